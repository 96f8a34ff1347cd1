// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s

// block.reduce_max of 6 rows of 32 on 4 warps: 4 lanes per row (8 elements
// each), 8 rows per warp at once. Only warp 0 has rows; its groups past
// row 5 reduce row 5 again, so that every lane takes part in the shuffles,
// and store nothing.
// CHECK-LABEL: gpu.func @ragged_kernel0
// CHECK: arith.cmpi ule, %{{.*}}, %c5
// CHECK: arith.minui %{{.*}}, %c5
// CHECK: arith.maximumf
// CHECK: %[[O2:.*]] = arith.constant 2 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %[[O2]], %{{.*}} : f32
// CHECK: %[[O1:.*]] = arith.constant 1 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %[[O1]], %{{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: arith.andi %[[FIRST]]
// CHECK: scf.if
// CHECK: memref.store
// CHECK: gpu.return
func.func @ragged(%x: tensor<24x32xf16>) -> tensor<24x1xf16> {
  %o = kernel.custom (%x) grid <4, 1, 1> block <128, 1, 1>
      : (tensor<24x32xf16>) -> tensor<24x1xf16> {
  ^bb0(%in0: tensor<24x32xf16>, %out0: tensor<24x1xf16>):
    %acc = block.for_loop 1 iterations accumulate (max) : tensor<6x1xf16> {
      %t = block.load %in0 imap <x = 0> : tensor<24x32xf16> -> tensor<6x32xf16>
      %m = block.reduce_max %t dim 1 : tensor<6x32xf16>
      block.yield %m : tensor<6x1xf16>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<6x1xf16> into tensor<24x1xf16>
    block.return
  }
  return %o : tensor<24x1xf16>
}
