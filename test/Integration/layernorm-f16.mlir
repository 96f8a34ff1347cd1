// The LayerNorm of layernorm-matmul.mlir on f16 activations computed in
// f32, as torch-mlir lowers autocast code: an extf of the input, the norm
// and the linear layer in f32, a truncf of the result. The conversions
// import as kernel.convert, which the search sees through and computes
// inside the kernels beside them: two launches (the norm, the linear
// layer) where the ops were nine.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}

// IMPORT-LABEL: func.func @layernorm_f16
// IMPORT-NOT: linalg.
// IMPORT: kernel.convert %{{.*}} : tensor<24x96xf16> to tensor<24x96xf32>
// IMPORT: kernel.matmul
// IMPORT: kernel.convert %{{.*}} : tensor<24x80xf32> to tensor<24x80xf16>
// IMPORT-NOT: linalg.
// REMARK: remark: superoptimize: replaced 7 kernel ops {{.*}} by 1 kernels
// REMARK: remark: superoptimize: replaced 2 kernel ops {{.*}} by 1 kernels
// VERIFY: remark: @layernorm_f16 is equivalent to @layernorm_f16_reference
// GPU-LABEL: func.func @layernorm_f16(
// GPU-COUNT-2: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @layernorm_f16(%xh: tensor<24x96xf16>, %g: tensor<96xf32>, %b: tensor<96xf32>, %w: tensor<96x80xf32>) -> tensor<24x80xf16> {
  %ex = tensor.empty() : tensor<24x96xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xh : tensor<24x96xf16>) outs(%ex : tensor<24x96xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w32 = arith.extf %a : f16 to f32
    linalg.yield %w32 : f32
  } -> tensor<24x96xf32>
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
  %eh = tensor.empty() : tensor<24x80xf16>
  %outh = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%out : tensor<24x80xf32>) outs(%eh : tensor<24x80xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<24x80xf16>
  return %outh : tensor<24x80xf16>
}
