// A mean over a middle dim (`x.mean(dim=1)` on [b, s, h]) times a gain
// [h]. The kernel reduction keeps its reduced dim ([b, h, 1]) and linalg's
// result drops it ([b, h]), so the import reshapes between the two; numpy
// broadcasting cannot read the gain past that reshape, and the product
// stayed a launch of its own after the reduction's kernel. The import
// computes the product on the reduction's shape instead, the gain
// reshaped to [1, h, 1], and reshapes after: one launch.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=3 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @mean_gain
// IMPORT: %[[S:.*]] = kernel.reduce_sum %{{.*}} dim 2 : tensor<4x128x64xf32>
// IMPORT-NEXT: %[[M:.*]] = kernel.mul_scalar %[[S]], 1.562500e-02 : tensor<4x128x1xf32>
// IMPORT-NEXT: %[[G:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1, 2]] output_shape [1, 128, 1]
// IMPORT-NEXT: %[[P:.*]] = kernel.mul %[[M]], %[[G]] : tensor<4x128x1xf32>, tensor<1x128x1xf32>
// IMPORT-NEXT: %[[R:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0], [1, 2]]
// IMPORT-NEXT: return %[[R]]
// REMARK: @mean_gain launches 1 kernels
// VERIFY: remark: @mean_gain is equivalent to @mean_gain_reference
// HOST-LABEL: func.func @mean_gain(
// HOST: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: return

#in = affine_map<(b, h, s) -> (b, s, h)>
#out = affine_map<(b, h, s) -> (b, h)>
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @mean_gain(%x: tensor<4x64x128xf32>, %w: tensor<128xf32>) -> tensor<4x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x128xf32>) -> tensor<4x128xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<4x64x128xf32>) outs(%f : tensor<4x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4x128xf32>
  %m = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %w : tensor<4x128xf32>, tensor<128xf32>) outs(%e : tensor<4x128xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %n = arith.constant 64.0 : f32
    %d = arith.divf %a, %n : f32
    %r = arith.mulf %d, %g : f32
    linalg.yield %r : f32
  } -> tensor<4x128xf32>
  return %m : tensor<4x128xf32>
}
