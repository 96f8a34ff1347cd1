// LayerNorm with a gain and a bias, then a linear layer, as torch-mlir
// lowers it: the mean and the variance are sums divided by the row length
// 96 (no power of two), the gain and bias are 1-D. The divisions import as
// multiplications by 1.0/96, which the verifier reads as 1/96, as it does
// the 1/96 of the rms_norm the search raises the normalization to; the 1-D
// gain and bias join the search's subprograms as [1, 96].
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f32.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f32.sm_90.ptx -o %t.f32.sm_90.cubin %}
// RUN: sed s/f32/bf16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.bf16.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.bf16.sm_80.ptx -o %t.bf16.sm_80.cubin %}

// IMPORT-LABEL: func.func @layernorm_matmul
// IMPORT-NOT: linalg.
// IMPORT: kernel.reduce_sum
// IMPORT: kernel.mul_scalar %{{.*}}, 0.010416666666666666
// IMPORT: kernel.matmul
// IMPORT-NOT: linalg.
// IMPORT: return
// OPT-LABEL: func.func @layernorm_matmul(
// OPT-DAG: tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [1, 96]
// OPT-DAG: tensor.expand_shape %arg2 {{\[\[}}0, 1]] output_shape [1, 96]
// OPT: kernel.custom
// OPT: return
// VERIFY: remark: @layernorm_matmul is equivalent to @layernorm_matmul_reference

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @layernorm_matmul(%x: tensor<24x96xf32>, %g: tensor<96xf32>, %b: tensor<96xf32>, %w: tensor<96x80xf32>) -> tensor<24x80xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 96.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e0 = tensor.empty() : tensor<24xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<24xf32>) -> tensor<24xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<24x96xf32>) outs(%z0 : tensor<24xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<24xf32>
  %e1 = tensor.empty() : tensor<24x96xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<24x96xf32>, tensor<24xf32>) outs(%e1 : tensor<24x96xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %mu = arith.divf %s, %n : f32
    %y = arith.subf %a, %mu : f32
    linalg.yield %y : f32
  } -> tensor<24x96xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<24x96xf32>) outs(%z0 : tensor<24xf32>) {
  ^bb0(%a: f32, %s: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %s, %sq : f32
    linalg.yield %r : f32
  } -> tensor<24xf32>
  %nrm = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %var, %g, %b : tensor<24x96xf32>, tensor<24xf32>, tensor<96xf32>, tensor<96xf32>) outs(%e1 : tensor<24x96xf32>) {
  ^bb0(%a: f32, %v: f32, %gg: f32, %bb: f32, %o: f32):
    %vm = arith.divf %v, %n : f32
    %ve = arith.addf %vm, %eps : f32
    %r = math.rsqrt %ve : f32
    %y = arith.mulf %a, %r : f32
    %yg = arith.mulf %y, %gg : f32
    %yb = arith.addf %yg, %bb : f32
    linalg.yield %yb : f32
  } -> tensor<24x96xf32>
  %e2 = tensor.empty() : tensor<24x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<24x80xf32>) -> tensor<24x80xf32>
  %out = linalg.matmul ins(%nrm, %w : tensor<24x96xf32>, tensor<96x80xf32>) outs(%acc : tensor<24x80xf32>) -> tensor<24x80xf32>
  return %out : tensor<24x80xf32>
}
