// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s

// block.rms_norm over the last dim gives each row to a warp (xor shuffles
// combine the lanes' sums); over another dim each column goes to one thread,
// so that adjacent threads read adjacent elements of the tile.

// CHECK-LABEL: gpu.func @rows_kernel0
// CHECK: gpu.shuffle xor
// CHECK: math.sqrt
// CHECK: gpu.return
func.func @rows(%x: tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  %o = kernel.custom (%x) grid <4, 2, 1> block <128, 1, 1>
      : (tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  ^bb0(%in0: tensor<2x64x256xf16>, %out0: tensor<2x64x256xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<1x16x256xf16> {
      %t = block.load %in0 imap <x = 1, y = 0> : tensor<2x64x256xf16> -> tensor<1x16x256xf16>
      %n = block.rms_norm %t {epsilon = 1.0e-06 : f64} : tensor<1x16x256xf16>
      block.yield %n : tensor<1x16x256xf16>
    }
    block.store %acc, %out0 omap <x = 1, y = 0> : tensor<1x16x256xf16> into tensor<2x64x256xf16>
    block.return
  }
  return %o : tensor<2x64x256xf16>
}

// CHECK-LABEL: gpu.func @columns_kernel0
// CHECK-NOT: gpu.shuffle
// CHECK: math.sqrt
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @columns(%k: tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  %o = kernel.custom (%k) grid <4, 2, 1> block <128, 1, 1>
      : (tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  ^bb0(%in0: tensor<2x64x256xf16>, %out0: tensor<2x64x256xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<1x64x64xf16> {
      %t = block.load %in0 imap <x = 2, y = 0> : tensor<2x64x256xf16> -> tensor<1x64x64xf16>
      %n = block.rms_norm %t dim 1 {epsilon = 1.0e-06 : f64} : tensor<1x64x64xf16>
      block.yield %n : tensor<1x64x64xf16>
    }
    block.store %acc, %out0 omap <x = 2, y = 0> : tensor<1x64x64xf16> into tensor<2x64x256xf16>
    block.return
  }
  return %o : tensor<2x64x256xf16>
}
