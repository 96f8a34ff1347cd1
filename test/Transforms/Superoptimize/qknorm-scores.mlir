// QKNorm's attention scores, exp(rms_norm(Q) rms_norm(K)) with K stored
// [h, d, n] and normalized over d (dim 1). The roots in rms_norm have
// residues mod q (docs/verification.md), so the finite-field verifier can
// evaluate exp of the normalized product: the cut keeps the norms in the
// subprogram of the exp, and the search fuses them into the kernel that
// computes the scores, which normalizes its Q and K tiles in-block.
// Before, the norms were cut off as subprograms of their own and stayed
// kernels of their own.
// RUN: mlsopt-opt %s --superoptimize="timeout=5 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// REMARK: remark: superoptimize: replaced 4 kernel ops {{.*}} by 1 kernels
// REMARK-NOT: remark
// CHECK-LABEL: func.func @qknorm_scores(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK-DAG: block.rms_norm %{{.*}} {epsilon = {{.*}}} : tensor<1x{{[0-9]+}}x64xf32>
// CHECK-DAG: block.rms_norm %{{.*}} dim 1 {epsilon = {{.*}}} : tensor<1x64x{{[0-9]+}}xf32>
// CHECK-DAG: block.matmul
// CHECK-DAG: exp
// CHECK: block.store
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @qknorm_scores is equivalent to @qknorm_scores_reference
func.func @qknorm_scores(%q: tensor<2x64x64xf16>, %k: tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  %qn = kernel.rms_norm %q {epsilon = 1.0e-06 : f64} : tensor<2x64x64xf16>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x64x256xf16>
  %s = kernel.matmul %qn, %kn : tensor<2x64x64xf16>, tensor<2x64x256xf16>
  %e = kernel.exp %s : tensor<2x64x256xf16>
  return %e : tensor<2x64x256xf16>
}
