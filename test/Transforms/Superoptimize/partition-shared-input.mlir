// Ops that read the same tensor go into one subprogram when nothing else
// joins them: two row reductions of x (x*y and x*x summed) have no edge
// between them, but one kernel can read x once for both, and the search
// finds that kernel (two stores). --verify-equivalence checks the result.
// RUN: mlsopt-opt %s --superoptimize="timeout=20 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// REMARK: remark: superoptimize: replaced 4 kernel ops {{.*}} by 1 kernels
// REMARK-NOT: remark
// CHECK-LABEL: func.func @two_sums(
// CHECK: kernel.custom(%arg0, %arg1)
// CHECK-COUNT-2: block.store
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: remark: @two_sums is equivalent to @two_sums_reference

func.func @two_sums(%x: tensor<2x8192xf32>, %y: tensor<2x8192xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %p = kernel.mul %x, %y : tensor<2x8192xf32>, tensor<2x8192xf32>
  %s = kernel.reduce_sum %p dim 1 : tensor<2x8192xf32>
  %q = kernel.square %x : tensor<2x8192xf32>
  %t = kernel.reduce_sum %q dim 1 : tensor<2x8192xf32>
  return %s, %t : tensor<2x1xf32>, tensor<2x1xf32>
}
