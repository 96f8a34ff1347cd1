// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s

// block.rms_norm over the last dim gives each row to a warp (xor shuffles
// combine the lanes' sums); over another dim each column goes to one thread,
// so that adjacent threads read adjacent elements of the tile. Each lane
// keeps four partial sums where its share of the row divides by four, and
// the row is multiplied by 1/rms, computed once.

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

// A tile of one row and 4 warps: every warp sums the whole row (its warp id
// mod 1 is row 0), then the 4 warps share the writes: warp w starts at
// 32 w + lane and strides by 128. The sum keeps 4 partials per lane
// (4096 / 32 lanes = 128 elements, 4 per step of 128).

// CHECK-LABEL: gpu.func @one_row_kernel0
// CHECK: %[[WARP:.*]] = arith.divui %[[TID:.*]], %c32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[GROUP:.*]] = arith.divui %[[WARP]], %c1
// CHECK: %[[OFFSET:.*]] = arith.muli %[[GROUP]], %c32
// CHECK: %[[START:.*]] = arith.addi %[[OFFSET]], %[[LANE]]
// CHECK: scf.for %{{.*}} = %[[LANE]] to %c4096 step %c128{{.*}} iter_args({{.*}}, {{.*}}, {{.*}}, {{.*}}) -> (f32, f32, f32, f32)
// CHECK: gpu.shuffle xor
// CHECK: %[[RMS:.*]] = math.sqrt
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[RMS]]
// CHECK: scf.for %{{.*}} = %[[START]] to %c4096{{.*}} step %c128
// CHECK-NOT: arith.divf
// CHECK: arith.mulf %{{.*}}, %[[INV]]
// CHECK: gpu.barrier
func.func @one_row(%x: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %o = kernel.custom (%x) grid <8, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  ^bb0(%in0: tensor<8x4096xf16>, %out0: tensor<8x4096xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<1x4096xf16> {
      %t = block.load %in0 imap <x = 0> : tensor<8x4096xf16> -> tensor<1x4096xf16>
      %n = block.rms_norm %t {epsilon = 1.0e-06 : f64} : tensor<1x4096xf16>
      block.yield %n : tensor<1x4096xf16>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<1x4096xf16> into tensor<8x4096xf16>
    block.return
  }
  return %o : tensor<8x4096xf16>
}

// Rows of 64 (QKNorm's head dim): 8 lanes per row, 4 rows per warp at once,
// three shuffles within each group of 8; 16 rows are 4 warps' worth, so
// every group has a row of its own and writes unguarded.
// CHECK-LABEL: gpu.func @short_rows_kernel0
// CHECK: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %[[C4]], %{{.*}} : f32
// CHECK: gpu.shuffle xor
// CHECK: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: math.sqrt
// CHECK-NOT: scf.if
// CHECK: arith.mulf
// CHECK: gpu.return
func.func @short_rows(%x: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %o = kernel.custom (%x) grid <4, 1, 1> block <128, 1, 1>
      : (tensor<64x64xf16>) -> tensor<64x64xf16> {
  ^bb0(%in0: tensor<64x64xf16>, %out0: tensor<64x64xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<16x64xf16> {
      %t = block.load %in0 imap <x = 0> : tensor<64x64xf16> -> tensor<16x64xf16>
      %n = block.rms_norm %t : tensor<16x64xf16>
      block.yield %n : tensor<16x64xf16>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<16x64xf16> into tensor<64x64xf16>
    block.return
  }
  return %o : tensor<64x64xf16>
}

// 6 rows of 64 on 4 warps of 4 groups: the groups past row 5 work on row 5
// again (every lane takes part in the shuffles) and write nothing.
// CHECK-LABEL: gpu.func @ragged_rows_kernel0
// CHECK: arith.cmpi ule, %{{.*}}, %c5
// CHECK: arith.minui %{{.*}}, %c5
// CHECK: gpu.shuffle xor
// CHECK: math.sqrt
// CHECK: scf.if
// CHECK: scf.for
// CHECK: memref.store
// CHECK: gpu.return
func.func @ragged_rows(%x: tensor<24x64xf16>) -> tensor<24x64xf16> {
  %o = kernel.custom (%x) grid <4, 1, 1> block <128, 1, 1>
      : (tensor<24x64xf16>) -> tensor<24x64xf16> {
  ^bb0(%in0: tensor<24x64xf16>, %out0: tensor<24x64xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<6x64xf16> {
      %t = block.load %in0 imap <x = 0> : tensor<24x64xf16> -> tensor<6x64xf16>
      %n = block.rms_norm %t : tensor<6x64xf16>
      block.yield %n : tensor<6x64xf16>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<6x64xf16> into tensor<24x64xf16>
    block.return
  }
  return %o : tensor<24x64xf16>
}
