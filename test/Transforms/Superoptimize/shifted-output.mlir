// A subprogram whose result is scores shifted by their row maximum, s -
// max(s): the attention of a LLaMA layer cut before its exp. The abstract
// expressions erase such a shift, as it cancels inside a softmax; for the
// result itself it does not, so only candidates that subtract the maximum
// may complete the program. Before, every kernel that stored the unshifted
// scores completed it too and was screened and rejected on the finite field
// (40 of 47 here; with the LLaMA layer's rotary embedding in front, all of
// the 11520 screened within the timeout, and the subprogram stayed as it
// was). Every candidate screened now passes.
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=60" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=60 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// REMARK: remark: superoptimize: replaced 5 kernel ops {{.*}} by 1 kernels {{.*}} [[N:[0-9]+]] candidates screened, [[N]] passed;
// CHECK-LABEL: func.func @shifted_scores(
// CHECK: kernel.custom
// CHECK: block.matmul
// CHECK: block.reduce_max
// CHECK: thread.binary sub
// CHECK: block.store
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: @shifted_scores is equivalent to @shifted_scores_reference

func.func @shifted_scores(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %mask: tensor<8x8xf32>) -> tensor<4x8x8xf32> {
  %kt = kernel.transpose %k [0, 2, 1] : tensor<4x8x16xf32>
  %s = kernel.matmul %q, %kt : tensor<4x8x16xf32>, tensor<4x16x8xf32>
  %scaled = kernel.mul_scalar %s, 2.500000e-01 : tensor<4x8x8xf32>
  %masked = kernel.add %scaled, %mask : tensor<4x8x8xf32>, tensor<8x8xf32>
  %m = kernel.reduce_max %masked dim 2 : tensor<4x8x8xf32>
  %shifted = kernel.sub %masked, %m : tensor<4x8x8xf32>, tensor<4x8x1xf32>
  return %shifted : tensor<4x8x8xf32>
}
