// RUN: mlsopt-opt %s --canonicalize | FileCheck %s

// An explicit last dim of rms_norm folds away, so each normalization has one
// spelling; any other dim stays.
// CHECK-LABEL: func.func @rms_norm_last_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x64x32xf16>)
func.func @rms_norm_last_dim(%x: tensor<2x64x32xf16>)
    -> (tensor<2x64x32xf16>, tensor<2x64x32xf16>) {
  // CHECK: %[[A:.*]] = kernel.rms_norm %[[X]] {epsilon = 5.000000e-01 : f64} : tensor<2x64x32xf16>
  %0 = kernel.rms_norm %x dim 2 {epsilon = 0.5} : tensor<2x64x32xf16>
  // CHECK: %[[B:.*]] = kernel.rms_norm %[[X]] dim 1 : tensor<2x64x32xf16>
  %1 = kernel.rms_norm %x dim 1 : tensor<2x64x32xf16>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<2x64x32xf16>, tensor<2x64x32xf16>
}

// A scale by 1 (a head size of 1's 1/sqrt(d)) is the operand in every float
// type; a scale by anything else, an add of 0 (-0 + 0 is +0) and a clamp
// at 1 stay.
// CHECK-LABEL: func.func @unit_scale
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
func.func @unit_scale(%x: tensor<4x8xf16>)
    -> (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>) {
  %a = kernel.mul_scalar %x, 1.0 : tensor<4x8xf16>
  // CHECK: %[[B:.*]] = kernel.mul_scalar %[[X]], 2.000000e+00
  %b = kernel.mul_scalar %x, 2.0 : tensor<4x8xf16>
  // CHECK: %[[C:.*]] = kernel.add_scalar %[[X]], 0.000000e+00
  %c = kernel.add_scalar %x, 0.0 : tensor<4x8xf16>
  // CHECK: %[[D:.*]] = kernel.max_scalar %[[X]], 1.000000e+00
  %d = kernel.max_scalar %x, 1.0 : tensor<4x8xf16>
  // CHECK: return %[[X]], %[[B]], %[[C]], %[[D]]
  return %a, %b, %c, %d : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>
}
