// What a subprogram counts against max-kernel-ops: a row maximum
// subtracted from the row it was taken over (a safe softmax's stabilizer)
// and that subtraction count nothing, as the abstract expressions erase
// them; a maximum something else reads (here, a result) counts one. With
// max-kernel-ops=3, the softmax (five ops, three counted) stays one
// subprogram and becomes one kernel; the softmax that also returns its
// maximum counts four, so the maximum is cut off and the other four ops
// (three counted) are one subprogram.
// RUN: mlsopt-opt %s --superoptimize="max-kernel-ops=3 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// REMARK: partition-stabilizer.mlir:[[#@LINE+21]]:{{.*}} remark: superoptimize: replaced 5 kernel ops {{.*}} by 1 kernels
// REMARK: partition-stabilizer.mlir:[[#@LINE+24]]:{{.*}} remark: superoptimize: kept the subprogram of 1 kernel ops
// REMARK: partition-stabilizer.mlir:[[#@LINE+27]]:{{.*}} remark: superoptimize: replaced 4 kernel ops {{.*}} by 1 kernels
// REMARK-NOT: remark
// CHECK-LABEL: func.func @softmax(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// CHECK-LABEL: func.func @softmax_and_max(
// CHECK: %[[M:.*]] = kernel.reduce_max %arg0 dim 1
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: %[[P:.*]] = kernel.custom(%arg0, %[[M]])
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return %[[P]], %[[M]]

func.func @softmax(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %m = kernel.reduce_max %x dim 1 : tensor<64x512xf32>
  %d = kernel.sub %x, %m : tensor<64x512xf32>, tensor<64x1xf32>
  %e = kernel.exp %d : tensor<64x512xf32>
  %l = kernel.reduce_sum %e dim 1 : tensor<64x512xf32>
  %p = kernel.div %e, %l : tensor<64x512xf32>, tensor<64x1xf32>
  return %p : tensor<64x512xf32>
}
func.func @softmax_and_max(%x: tensor<64x512xf32>) -> (tensor<64x512xf32>, tensor<64x1xf32>) {
  %m = kernel.reduce_max %x dim 1 : tensor<64x512xf32>
  %d = kernel.sub %x, %m : tensor<64x512xf32>, tensor<64x1xf32>
  %e = kernel.exp %d : tensor<64x512xf32>
  %l = kernel.reduce_sum %e dim 1 : tensor<64x512xf32>
  %p = kernel.div %e, %l : tensor<64x512xf32>, tensor<64x1xf32>
  return %p, %m : tensor<64x512xf32>, tensor<64x1xf32>
}
