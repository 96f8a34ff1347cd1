// Six kernel ops, cut at max-kernel-ops=5: RMSNorm, gain and matmul with
// silu and the scale in one subprogram (two kernels: the normalized rows,
// then the matmul, found first of all the search tried in its timeout),
// the negation alone. The search replaces each on its own, so the
// negation would be a second launch over the matmul's result; after the
// subprograms are replaced it joins the kernel that produces its operand,
// after the for-loop, in the same thread graph as silu and the scale.
// RUN: mlsopt-opt %s --superoptimize="timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// The rewritten function still verifies against the original.
// RUN: mlsopt-opt %s --superoptimize="timeout=20 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// REMARK: remark: superoptimize: replaced 5 kernel ops {{.*}} by 2 kernels
// REMARK: remark: superoptimize: kept the subprogram of 1 kernel ops
// REMARK: remark: superoptimize: fused across the cut: 1 launches fewer ({{.*}}); @rmsnorm_mlp launches 2 kernels ({{[0-9.]+}} us)
// VERIFY: remark: @rmsnorm_mlp is equivalent to @rmsnorm_mlp_reference
// CHECK-LABEL: func.func @rmsnorm_mlp(
// CHECK: kernel.custom
// CHECK: block.rms_norm
// CHECK: kernel.custom
// CHECK: block.matmul
// CHECK: thread.graph
// CHECK-NEXT: ^bb0(%[[Y:.*]]: f32):
// CHECK-NEXT: %[[A:.*]] = thread.unary silu %[[Y]]
// CHECK-NEXT: %[[H:.*]] = thread.mul_scalar %[[A]], 5.000000e-01
// CHECK-NEXT: %[[O:.*]] = thread.unary neg %[[H]]
// CHECK-NEXT: thread.yield %[[O]]
// CHECK: block.store
// CHECK-NEXT: block.return
// CHECK-NOT: kernel.
// CHECK: return

func.func @rmsnorm_mlp(%x: tensor<4x2048xf16>, %g: tensor<1x2048xf16>, %w: tensor<2048x2048xf16>) -> tensor<4x2048xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-05 : f64} : tensor<4x2048xf16>
  %s = kernel.mul %n, %g : tensor<4x2048xf16>, tensor<1x2048xf16>
  %y = kernel.matmul %s, %w : tensor<4x2048xf16>, tensor<2048x2048xf16>
  %a = kernel.silu %y : tensor<4x2048xf16>
  %h = kernel.mul_scalar %a, 5.000000e-01 : tensor<4x2048xf16>
  %o = kernel.neg %h : tensor<4x2048xf16>
  return %o : tensor<4x2048xf16>
}
