// keep-reference keeps the original function, private, and links the
// result to it; --verify-equivalence then proves the link.
// RUN: mlsopt-opt %s --superoptimize="keep-reference=true timeout=20" 2>/dev/null | FileCheck %s
// RUN: mlsopt-opt %s --superoptimize="keep-reference=true timeout=20" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// CHECK-LABEL: func.func @f(
// CHECK-SAME: attributes {mlsopt.equivalent_to = @f_reference}
// CHECK: kernel.custom
// CHECK-NOT: kernel.exp
// CHECK: return
// CHECK-LABEL: func.func private @f_reference(
// CHECK: kernel.exp
// CHECK: kernel.mul

// VERIFY: remark: @f is equivalent to @f_reference
func.func @f(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %e = kernel.exp %x : tensor<64x256xf32>
  %m = kernel.mul %e, %y : tensor<64x256xf32>, tensor<64x256xf32>
  return %m : tensor<64x256xf32>
}
