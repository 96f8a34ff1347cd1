// What a subprogram counts against max-kernel-ops: a mean (a sum then its
// scale by 1/n, as front ends spell torch.mean) counts one op, as a clamp
// does. A LayerNorm with gain and bias is six ops once its variance is
// raised to rms_norm of the centred rows, and counting the mean as two cut
// it at the default max-kernel-ops=5 into a kernel for the mean and a
// kernel for the rest. A sum something else reads (here, a result) counts
// on its own. With max-kernel-ops=3, the centred and scaled rows (four
// ops, three counted) stay one subprogram and become one kernel; when the
// sum is also returned, the four ops count four and are cut, and the two
// kernels, with one launch, merge into one whose one loop loads each row
// once and stores both results.
// RUN: mlsopt-opt %s --superoptimize="max-kernel-ops=3 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// REMARK: partition-mean.mlir:[[#@LINE+20]]:{{.*}} remark: superoptimize: replaced 4 kernel ops {{.*}} by 1 kernels
// REMARK-NOT: replaced 4 kernel ops
// CHECK-LABEL: func.func @centre_scale(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// CHECK-LABEL: func.func @centre_scale_and_sum(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom{{.*}} -> (tensor<64x1xf32>, tensor<64x512xf32>)
// CHECK: block.for_loop 1 iterations accumulate (sum, sum)
// CHECK-COUNT-2: block.load
// CHECK-NOT: block.load
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return

func.func @centre_scale(%x: tensor<64x512xf32>, %g: tensor<1x512xf32>) -> tensor<64x512xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<64x512xf32>
  %m = kernel.mul_scalar %s, 0.001953125 : tensor<64x1xf32>
  %c = kernel.sub %x, %m : tensor<64x512xf32>, tensor<64x1xf32>
  %o = kernel.mul %c, %g : tensor<64x512xf32>, tensor<1x512xf32>
  return %o : tensor<64x512xf32>
}

func.func @centre_scale_and_sum(%x: tensor<64x512xf32>, %g: tensor<1x512xf32>) -> (tensor<64x512xf32>, tensor<64x1xf32>) {
  %s = kernel.reduce_sum %x dim 1 : tensor<64x512xf32>
  %m = kernel.mul_scalar %s, 0.001953125 : tensor<64x1xf32>
  %c = kernel.sub %x, %m : tensor<64x512xf32>, tensor<64x1xf32>
  %o = kernel.mul %c, %g : tensor<64x512xf32>, tensor<1x512xf32>
  return %o, %s : tensor<64x512xf32>, tensor<64x1xf32>
}
