// A base-2 softmax (`exp2(x - max(x))`, as Triton's and FlashAttention's
// kernels write it) imports as exp((x - max(x)) * ln 2). The scale between
// the stabilizing subtraction and the exp counts nothing against
// max-kernel-ops, as the subtraction does, so the softmax and its product
// by V stay one subprogram and one kernel. Counted, it cut the product off
// (2 launches).
// RUN: mlsopt-opt %s --superoptimize="timeout=3" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// REMARK: partition-base2-softmax.mlir:[[#@LINE+17]]:{{.*}} remark: superoptimize: replaced 8 kernel ops {{.*}} by 1 kernels
// REMARK-NOT: remark: superoptimize: replaced
// CHECK-LABEL: func.func @base2_softmax(
// CHECK-NEXT: kernel.custom(%arg0, %arg1)
// CHECK: thread.mul_scalar %{{.*}}, 0.69314718055994529
// CHECK-NEXT: thread.unary exp
// CHECK-NOT: kernel.
// CHECK: return

func.func @base2_softmax(%s: tensor<64x128xf32>, %v: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %x = kernel.mul_scalar %s, 1.4426950216293335 : tensor<64x128xf32>
  %m = kernel.reduce_max %x dim 1 : tensor<64x128xf32>
  %d = kernel.sub %x, %m : tensor<64x128xf32>, tensor<64x1xf32>
  %y = kernel.mul_scalar %d, 0.69314718055994529 : tensor<64x128xf32>
  %e = kernel.exp %y : tensor<64x128xf32>
  %l = kernel.reduce_sum %e dim 1 : tensor<64x128xf32>
  %p = kernel.div %e, %l : tensor<64x128xf32>, tensor<64x1xf32>
  %o = kernel.matmul %p, %v : tensor<64x128xf32>, tensor<128x32xf32>
  return %o : tensor<64x32xf32>
}
