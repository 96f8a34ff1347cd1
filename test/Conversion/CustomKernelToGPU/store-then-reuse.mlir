// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// A kernel with two outputs computed after its loop: the shared-memory plan
// gives the second output's tile (-x) the bytes of the first's (the
// softmax), whose last reader is the first store. That store ends with a
// barrier, so no warp writes -x over rows another warp has still to
// store; without it, the PTX emulator (python/tests/test_ptx_emulator.py,
// `two_outputs_after_loop`) stored -x into 1280 elements of the softmax
// of a larger case. The last store needs none.

// CHECK-LABEL: gpu.func @two_outputs_kernel0
// CHECK: vector.store %{{.*}}, %arg2[
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: gpu.barrier
// CHECK: %[[NEG:.*]] = memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK: arith.negf
// CHECK: vector.store %{{.*}}, %[[NEG]]
// CHECK: vector.store %{{.*}}, %arg3[
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: gpu.return
module {
  func.func @two_outputs(%arg0: tensor<4x64xf16>, %arg1: tensor<4x1xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
    %0:2 = kernel.custom(%arg0, %arg1) grid <1, 1, 1> block <128, 1, 1> : (tensor<4x64xf16>, tensor<4x1xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
    ^bb0(%in0: tensor<4x64xf16>, %in1: tensor<4x1xf16>, %out0: tensor<4x64xf16>, %out1: tensor<4x64xf16>):
      %1:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<4x64xf32>, tensor<4x64xf32> {
        %6 = block.load %in0 imap <x = 0> : tensor<4x64xf16> -> tensor<4x64xf32>
        %7 = block.load %in1 imap <x = 0> : tensor<4x1xf16> -> tensor<4x1xf32>
        %8 = thread.graph(%6, %7) : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32> {
        ^bb0(%arg2: f32, %arg3: f32):
          %9 = thread.binary sub %arg2, %arg3 : f32
          thread.yield %9 : f32
        }
        block.yield %8, %6 : tensor<4x64xf32>, tensor<4x64xf32>
      }
      %2 = thread.graph(%1#0) : (tensor<4x64xf32>) -> tensor<4x64xf32> {
      ^bb0(%arg2: f32):
        %7 = thread.unary exp %arg2 : f32
        thread.yield %7 : f32
      }
      %3 = block.reduce_sum %2 dim 1 : tensor<4x64xf32>
      %4 = thread.graph(%2, %3) : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32> {
      ^bb0(%arg2: f32, %arg3: f32):
        %6 = thread.binary div %arg2, %arg3 : f32
        thread.yield %6 : f32
      }
      block.store %4, %out0 omap <x = 0> : tensor<4x64xf32> into tensor<4x64xf16>
      %5 = thread.graph(%1#1) : (tensor<4x64xf32>) -> tensor<4x64xf32> {
      ^bb0(%arg2: f32):
        %6 = thread.unary neg %arg2 : f32
        thread.yield %6 : f32
      }
      block.store %5, %out1 omap <x = 0> : tensor<4x64xf32> into tensor<4x64xf16>
      block.return
    }
    return %0#0, %0#1 : tensor<4x64xf16>, tensor<4x64xf16>
  }
}
