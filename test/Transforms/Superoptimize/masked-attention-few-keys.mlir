// A masked attention with no more keys than its head dim (16 queries by 16
// keys of dim 32): its one-kernel μGraph divides the probabilities before
// their product by V, 12 block ops with the mask's add counted, one past
// the default max-block-ops, and the search kept it as ten launches. The
// mask's load and add count nothing now, as the partition counts them.
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=10" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=10 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// REMARK: remark: superoptimize: replaced 9 kernel ops {{.*}} by 1 kernels
// CHECK-LABEL: func.func @few_keys(
// CHECK-NEXT: kernel.custom(%arg0, %arg1, %arg3, %arg2)
// CHECK: block.load %in2 imap <x = 0> : tensor<2x1x1x16xf32> -> tensor<1x1x1x16xf32>
// CHECK: block.reduce_sum
// CHECK: thread.binary div
// CHECK: block.matmul
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @few_keys is equivalent to @few_keys_reference
func.func @few_keys(%q: tensor<2x2x16x32xf32>, %k: tensor<2x2x32x16xf32>, %v: tensor<2x2x16x32xf32>, %mask: tensor<2x1x1x16xf32>) -> tensor<2x2x16x32xf32> {
  %s0 = kernel.matmul %q, %k : tensor<2x2x16x32xf32>, tensor<2x2x32x16xf32>
  %s1 = kernel.mul_scalar %s0, 0.125 : tensor<2x2x16x16xf32>
  %s = kernel.add %s1, %mask : tensor<2x2x16x16xf32>, tensor<2x1x1x16xf32>
  %m = kernel.reduce_max %s dim 3 : tensor<2x2x16x16xf32>
  %d = kernel.sub %s, %m : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>
  %e = kernel.exp %d : tensor<2x2x16x16xf32>
  %l = kernel.reduce_sum %e dim 3 : tensor<2x2x16x16xf32>
  %p = kernel.div %e, %l : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>
  %o = kernel.matmul %p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x32xf32>
  return %o : tensor<2x2x16x32xf32>
}
