// A residual add, then RMSNorm over rows of 80 with a 1-D gain; both the
// residual stream and the normalized value are results. The mean's factor
// is 1/80 rounded to f32 (0.0125 is no dyadic rational): the search raises
// the normalization to rms_norm, which divides by 80, and the verifier
// reads the rounded factor as 1/80, so the result verifies against the
// program as written. One kernel stores both results: the residual stream
// is an output that its own epilogue normalizes (two kernels before stores
// of such values existed).
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @residual_rmsnorm
// IMPORT-NOT: linalg.
// IMPORT: kernel.mul_scalar %{{.*}}, 0.012500000186264515
// IMPORT: return
// OPT-LABEL: func.func @residual_rmsnorm(
// OPT: tensor.expand_shape %arg2 {{\[\[}}0, 1]] output_shape [1, 80]
// OPT: %[[K:.*]]:2 = kernel.custom
// OPT: block.rms_norm
// OPT-NOT: kernel.
// OPT: return %[[K]]#0, %[[K]]#1
// VERIFY: remark: @residual_rmsnorm is equivalent to @residual_rmsnorm_reference

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @residual_rmsnorm(%x: tensor<12x80xf32>, %r: tensor<12x80xf32>, %g: tensor<80xf32>) -> (tensor<12x80xf32>, tensor<12x80xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 1.250000e-02 : f32
  %eps = arith.constant 1.0e-6 : f32
  %e1 = tensor.empty() : tensor<12x80xf32>
  %h = linalg.add ins(%x, %r : tensor<12x80xf32>, tensor<12x80xf32>) outs(%e1 : tensor<12x80xf32>) -> tensor<12x80xf32>
  %e0 = tensor.empty() : tensor<12xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<12xf32>) -> tensor<12xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<12x80xf32>) outs(%z0 : tensor<12xf32>) {
  ^bb0(%a: f32, %s: f32):
    %sq = arith.mulf %a, %a : f32
    %y = arith.addf %s, %sq : f32
    linalg.yield %y : f32
  } -> tensor<12xf32>
  %n = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %ss, %g : tensor<12x80xf32>, tensor<12xf32>, tensor<80xf32>) outs(%e1 : tensor<12x80xf32>) {
  ^bb0(%a: f32, %s: f32, %gg: f32, %o: f32):
    %m = arith.mulf %s, %inv_n : f32
    %v = arith.addf %m, %eps : f32
    %rs = math.rsqrt %v : f32
    %y = arith.mulf %a, %rs : f32
    %yg = arith.mulf %y, %gg : f32
    linalg.yield %yg : f32
  } -> tensor<12x80xf32>
  return %h, %n : tensor<12x80xf32>, tensor<12x80xf32>
}
