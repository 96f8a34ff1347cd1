// A sum over a dim of size 1 is its operand: the search leaves @f returning
// its argument, with no kernel, beside its reference (keep-reference). The
// reference is lowered to buffers and launches; @f stays as it is. The
// `mlsopt.equivalent_to` that related them, for --verify-equivalence on
// tensors, goes: kept, it failed the module's verifier (a function of
// tensors equivalent to one of buffers).
// RUN: mlsopt-opt %s --superoptimize="timeout=5 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | FileCheck %s

// CHECK-LABEL: func.func @f(
// CHECK-NOT: mlsopt.equivalent_to
// CHECK-SAME: {
// CHECK-NEXT: return %arg0
// CHECK-LABEL: func.func private @f_reference(
// CHECK-SAME: memref<1x1x256xf32>
// CHECK: gpu.launch_func
func.func @f(%x: tensor<1x1x256xf32>) -> tensor<1x1x256xf32> {
  %0 = kernel.reduce_sum %x dim 1 : tensor<1x1x256xf32>
  return %0 : tensor<1x1x256xf32>
}
