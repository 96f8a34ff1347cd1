// A linalg.fill of a constant that no linalg op reads (torch.zeros_like
// returned as an output) is imported as the splat constant it fills, which
// the GPU pipeline copies from a global and the verifier reads as a
// constant input. Before, it stayed linalg ("payload yields a constant")
// and the GPU pipeline refused the function. Fills that linalg ops read are
// left to their imports: here a scale (mul_scalar) and a matmul's zero init
// (dropped).
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --superoptimize="timeout=5 keep-reference=true" \
// RUN: | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 | FileCheck %s --check-prefix=GPU

// CHECK-LABEL: func.func @outputs_and_a_fill(
// CHECK-NOT: linalg.
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<8x16xf16>
// CHECK-DAG: %[[S:.*]] = kernel.mul_scalar %{{.*}}, 1.500000e+00 : tensor<8x32xf16>
// CHECK-DAG: %[[M:.*]] = kernel.matmul %[[S]], %{{.*}} : tensor<8x32xf16>, tensor<32x16xf16>
// CHECK: return %[[M]], %[[ZEROS]]

// VERIFY: remark: @outputs_and_a_fill is equivalent to @outputs_and_a_fill_reference

// GPU: memref.global "private" constant @{{.*}} : memref<8x16xf16> = dense<0.000000e+00>
// GPU-LABEL: func.func @outputs_and_a_fill(
// GPU: gpu.memcpy

func.func @outputs_and_a_fill(%x: tensor<8x32xf16>, %w: tensor<32x16xf16>) -> (tensor<8x16xf16>, tensor<8x16xf16>) {
  %scale = arith.constant 1.5 : f16
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x32xf16>
  %f = linalg.fill ins(%scale : f16) outs(%e : tensor<8x32xf16>) -> tensor<8x32xf16>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %f : tensor<8x32xf16>, tensor<8x32xf16>) outs(%e : tensor<8x32xf16>) {
  ^bb0(%v: f16, %c: f16, %o: f16):
    %t = arith.mulf %v, %c : f16
    linalg.yield %t : f16
  } -> tensor<8x32xf16>
  %e2 = tensor.empty() : tensor<8x16xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e2 : tensor<8x16xf16>) -> tensor<8x16xf16>
  %m = linalg.matmul ins(%s, %w : tensor<8x32xf16>, tensor<32x16xf16>) outs(%z : tensor<8x16xf16>) -> tensor<8x16xf16>
  %zeros = linalg.fill ins(%zero : f16) outs(%e2 : tensor<8x16xf16>) -> tensor<8x16xf16>
  return %m, %zeros : tensor<8x16xf16>, tensor<8x16xf16>
}
