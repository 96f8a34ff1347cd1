// RUN: mlsopt-opt %s --mlsopt-inline-helpers | FileCheck %s

// Calls to private functions with bodies take their bodies, helpers of
// helpers too, and the helpers go; nothing else is simplified (the dead
// kernel.neg stays). A call to a public function, or to a declaration,
// stays, as does a private function nothing calls.
// CHECK-NOT: func.func private @scale(
// CHECK-NOT: func.func private @act(
// CHECK-LABEL: func.func @entry(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf32>
// CHECK-NEXT: %[[N:.*]] = kernel.neg %[[X]]
// CHECK-NEXT: %[[T:.*]] = kernel.tanh %[[X]]
// CHECK-NEXT: %[[S:.*]] = kernel.mul_scalar %[[T]], 2.0
// CHECK-NEXT: %[[P:.*]] = call @public_exp(%[[S]])
// CHECK-NEXT: %[[D:.*]] = call @external(%[[P]])
// CHECK-NEXT: return %[[D]]
// CHECK-LABEL: func.func @public_exp(
// CHECK: func.func private @external(
// A private function nothing called is no helper, and stays.
// CHECK-LABEL: func.func private @uncalled(
// CHECK-NEXT: kernel.exp
func.func private @scale(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kernel.mul_scalar %a, 2.0 : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
func.func private @act(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %n = kernel.neg %a : tensor<4x8xf32>
  %t = kernel.tanh %a : tensor<4x8xf32>
  %s = call @scale(%t) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
func.func @entry(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = call @act(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = call @public_exp(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = call @external(%p) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
func.func @public_exp(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kernel.exp %a : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func private @external(tensor<4x8xf32>) -> tensor<4x8xf32>
func.func private @uncalled(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kernel.exp %a : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
