// The scale of attention scores counts nothing against max-kernel-ops, as
// the safe softmax's stabilizer does not: the search computes it on the
// product's tiles. Here the 1/sqrt(64) stays on the scores (24 queries by
// 40 keys are fewer elements than Q), and counted it made the attention
// six ops, one over the default: Q K^T was cut off and its scores went
// through device memory (2 launches). Now the attention is one subprogram
// and one kernel.
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=30" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=30 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// REMARK: remark: superoptimize: replaced 8 kernel ops {{.*}} by 1 kernels
// REMARK-NOT: remark: superoptimize: {{replaced|kept}}
// CHECK-LABEL: func.func @cross_attention(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom
// CHECK: block.matmul
// CHECK: thread.mul_scalar
// CHECK: block.matmul
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: @cross_attention is equivalent to @cross_attention_reference

func.func @cross_attention(%q: tensor<2x24x64xf32>, %k: tensor<2x40x64xf32>, %v: tensor<2x40x64xf32>) -> tensor<2x24x64xf32> {
  %kt = kernel.transpose %k [0, 2, 1] : tensor<2x40x64xf32>
  %s = kernel.matmul %q, %kt : tensor<2x24x64xf32>, tensor<2x64x40xf32>
  %scaled = kernel.mul_scalar %s, 1.250000e-01 : tensor<2x24x40xf32>
  %m = kernel.reduce_max %scaled dim 2 : tensor<2x24x40xf32>
  %d = kernel.sub %scaled, %m : tensor<2x24x40xf32>, tensor<2x24x1xf32>
  %e = kernel.exp %d : tensor<2x24x40xf32>
  %sum = kernel.reduce_sum %e dim 2 : tensor<2x24x40xf32>
  %p = kernel.div %e, %sum : tensor<2x24x40xf32>, tensor<2x24x1xf32>
  %o = kernel.matmul %p, %v : tensor<2x24x40xf32>, tensor<2x40x64xf32>
  return %o : tensor<2x24x64xf32>
}
