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
