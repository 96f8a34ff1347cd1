// The cut tries the edges out of a scale of an input last: such an op joins
// its reader's kernel after the search anyway (--fuse-kernel-elementwise,
// as a prologue on the reader's tiles), and in a subprogram it takes the
// place of an op that would otherwise cross a cut. With max-kernel-ops=2,
// the scale of X (the largest tensor) would have joined the matmul and
// left the bias add alone; instead the matmul and the add are one
// subprogram and the scale another, and the program is one kernel.
// RUN: mlsopt-opt %s --superoptimize="max-kernel-ops=2 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// REMARK: partition-input-scale.mlir:[[#@LINE+13]]:{{.*}} remark: superoptimize: kept the subprogram of 1 kernel ops
// REMARK: partition-input-scale.mlir:[[#@LINE+14]]:{{.*}} remark: superoptimize: replaced 2 kernel ops {{.*}} by 1 kernels
// REMARK: remark: superoptimize: fused across the cut: 1 launches fewer {{.*}} launches 1 kernels
// CHECK-LABEL: func.func @scaled_input(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom(%arg0, %arg1, %arg2)
// CHECK: thread.mul_scalar
// CHECK: block.matmul
// CHECK: thread.binary add
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return

func.func @scaled_input(%x: tensor<64x512xf32>, %w: tensor<512x16xf32>, %b: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %s = kernel.mul_scalar %x, 0.5 : tensor<64x512xf32>
  %y = kernel.matmul %s, %w : tensor<64x512xf32>, tensor<512x16xf32>
  %z = kernel.add %y, %b : tensor<64x16xf32>, tensor<64x16xf32>
  return %z : tensor<64x16xf32>
}
