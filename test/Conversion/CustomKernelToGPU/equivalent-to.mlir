// A sum over a dim of size 1 is its operand: the search leaves @f returning
// its argument, with no kernel, beside its reference (keep-reference). Both
// are lowered to buffers and launches: @f copies its argument into its
// result buffer. The `mlsopt.equivalent_to` that related them, for
// --verify-equivalence on tensors, goes: it names no lowered function's
// contract (the module's verifier rejected it on a function of tensors
// equivalent to one of buffers, when @f stayed as it was).
// RUN: mlsopt-opt %s --superoptimize="timeout=5 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | FileCheck %s

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:.*]]: memref<1x1x256xf32>, %[[R:.*]]: memref<1x1x256xf32> {mlsopt.result_index = 0 : i64})
// CHECK-NOT: mlsopt.equivalent_to
// CHECK-SAME: {
// CHECK: gpu.launch_func @mlsopt_kernels::@f_kernel0 {{.*}} args(%[[X]] : memref<1x1x256xf32>, %[[R]] : memref<1x1x256xf32>)
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @f_reference(
// CHECK-SAME: memref<1x1x256xf32>
// CHECK-NOT: mlsopt.equivalent_to
// CHECK: gpu.launch_func

func.func @f(%x: tensor<1x1x256xf32>) -> tensor<1x1x256xf32> {
  %0 = kernel.reduce_sum %x dim 1 : tensor<1x1x256xf32>
  return %0 : tensor<1x1x256xf32>
}
