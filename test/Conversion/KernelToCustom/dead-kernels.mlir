// Kernel ops nothing reads are not wrapped, so not launched; a chain of
// them (a view between) goes at once. The cost model skips them too: the
// launch count matches (python/tests).
// RUN: mlsopt-opt %s --convert-kernel-to-custom | FileCheck %s

// CHECK-LABEL: func.func @dead_chain
// CHECK-COUNT-1: kernel.custom
// CHECK: block.neg
// CHECK-NOT: kernel.custom
// CHECK: return
func.func @dead_chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %d = kernel.exp %x : tensor<4x8xf32>
  %v = tensor.collapse_shape %d [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %s = kernel.sigmoid %v : tensor<32xf32>
  %e = kernel.neg %x : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
