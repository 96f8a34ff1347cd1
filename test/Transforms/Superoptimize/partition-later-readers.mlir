// The cut pairs each later reader of a tensor with the one before it, not
// only with the first: in a base layer with two LoRA adapters (seven ops),
// x W fills its subprogram with the adapters' up projections and adds, and
// the two down projections x A_1 and x A_2, which read x as well, were a
// kernel each (four launches, 11.61 us est.). Paired, they are one
// subprogram, and one kernel computes both (their columns are one class,
// grouped-matmuls.mlir): three launches, 9.43 us.
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// REMARK: partition-later-readers.mlir:[[# @LINE + 12]]:{{.*}} remark: superoptimize: replaced 2 kernel ops {{.*}} by 1 kernels
// REMARK: partition-later-readers.mlir:[[# @LINE + 14]]:{{.*}} remark: superoptimize: replaced 5 kernel ops
// REMARK-NOT: remark: superoptimize: {{replaced|kept}}
// CHECK-LABEL: func.func @lora2(
// CHECK: %[[DOWN:.*]]:2 = kernel.custom(%arg0, %arg2, %arg4)
// CHECK-NOT: kernel.matmul
// CHECK: return

func.func @lora2(%x: tensor<64x2048xf16>, %w: tensor<2048x2048xf16>, %a1: tensor<2048x16xf16>, %b1: tensor<16x2048xf16>, %a2: tensor<2048x16xf16>, %b2: tensor<16x2048xf16>) -> tensor<64x2048xf16> {
  %xw = kernel.matmul %x, %w : tensor<64x2048xf16>, tensor<2048x2048xf16>
  %xa1 = kernel.matmul %x, %a1 : tensor<64x2048xf16>, tensor<2048x16xf16>
  %d1 = kernel.matmul %xa1, %b1 : tensor<64x16xf16>, tensor<16x2048xf16>
  %xa2 = kernel.matmul %x, %a2 : tensor<64x2048xf16>, tensor<2048x16xf16>
  %d2 = kernel.matmul %xa2, %b2 : tensor<64x16xf16>, tensor<16x2048xf16>
  %o1 = kernel.add %xw, %d1 : tensor<64x2048xf16>, tensor<64x2048xf16>
  %o = kernel.add %o1, %d2 : tensor<64x2048xf16>, tensor<64x2048xf16>
  return %o : tensor<64x2048xf16>
}
