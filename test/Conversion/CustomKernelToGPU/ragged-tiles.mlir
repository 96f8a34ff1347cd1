// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_90 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t90.ptx -o %t90.cubin %}
// RUN: FileCheck %s --check-prefix=PTX < %t90.ptx

// Ragged grid splits on the GPU: where the last block's tile runs past the
// end of a tensor, its 16-byte copies read nothing and fill zeros (cp.async
// with a source size of 0), and its stores are skipped. Every address is
// clamped inside the tensor, so the guarded copies never point outside it.

// 200 columns in 4 tiles of 64 (the last holds 8): w's copies are guarded
// along its columns, the stores along the output's.
// CHECK-LABEL: gpu.func @ragged_columns_kernel0
// CHECK-SAME: (%[[X:.*]]: memref<64x128xf16>, %[[W:.*]]: memref<128x200xf16>, %[[O:.*]]: memref<64x200xf16>)
// CHECK: nvgpu.device_async_copy %[[X]][{{.*}}], %{{.*}}[{{.*}}], 8 {bypassL1}
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c200
// CHECK: %[[COL:.*]] = arith.minui %{{.*}}, %c192
// CHECK: %[[N:.*]] = arith.select %[[IN]], %c8{{(_[0-9]+)?}}, %c0
// CHECK: nvgpu.device_async_copy %[[W]][%{{.*}}, %[[COL]]], %{{.*}}[{{.*}}], 8, %[[N]] {bypassL1}
// CHECK: nvgpu.mma.sync
// CHECK: %[[OUT:.*]] = arith.cmpi ult, %{{.*}}, %c200
// CHECK: scf.if %[[OUT]]
// CHECK: vector.store %{{.*}}, %[[O]]
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
func.func @ragged_columns(%x: tensor<64x128xf16>, %w: tensor<128x200xf16>) -> tensor<64x200xf16> {
  %o = kernel.custom (%x, %w) grid <4, 1, 1> block <128, 1, 1>
      : (tensor<64x128xf16>, tensor<128x200xf16>) -> tensor<64x200xf16> {
  ^bb0(%in0: tensor<64x128xf16>, %in1: tensor<128x200xf16>, %out0: tensor<64x200xf16>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<64x64xf32> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<64x128xf16> -> tensor<64x32xf16>
      %wt = block.load %in1 imap <x = 1> fmap 0 : tensor<128x200xf16> -> tensor<32x64xf16>
      %m = block.matmul %xt, %wt : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
      block.yield %m : tensor<64x64xf32>
    }
    block.store %acc, %out0 omap <x = 1> : tensor<64x64xf32> into tensor<64x200xf16>
    block.return
  }
  return %o : tensor<64x200xf16>
}

// 13 columns, which no 16-byte piece divides, in 2 tiles of 7: single
// elements, each load clamped and its value replaced by 0 past the end.
// CHECK-LABEL: gpu.func @ragged_odd_rows_kernel0
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %{{.*}}, %c13
// CHECK: %[[AT:.*]] = arith.minui %{{.*}}, %c12
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%{{.*}}, %[[AT]]]
// CHECK: arith.select %[[IN1]], %[[V]], %{{.*}} : f16
// CHECK: math.exp
// CHECK: scf.if
// CHECK: memref.store
func.func @ragged_odd_rows(%x: tensor<4x13xf16>) -> tensor<4x13xf16> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<4x13xf16>) -> tensor<4x13xf16> {
  ^bb0(%in0: tensor<4x13xf16>, %out0: tensor<4x13xf16>):
    %s = block.for_loop 1 iterations accumulate (sum) : tensor<4x7xf16> {
      %t = block.load %in0 imap <x = 1> : tensor<4x13xf16> -> tensor<4x7xf16>
      %e = block.exp %t : tensor<4x7xf16>
      block.yield %e : tensor<4x7xf16>
    }
    block.store %s, %out0 omap <x = 1> : tensor<4x7xf16> into tensor<4x13xf16>
    block.return
  }
  return %o : tensor<4x13xf16>
}

// A ragged loop: k = 200 walked in 4 iterations of 64, the last holding 8.
// Both operands' copies are guarded along k (x's columns, w's rows), in the
// copies before the loop and in those the loop issues for the next
// iteration.
// CHECK-LABEL: gpu.func @ragged_k_kernel0
// CHECK-SAME: (%[[X:.*]]: memref<64x200xf16>, %[[W:.*]]: memref<200x64xf16>
// CHECK: %[[XIN:.*]] = arith.cmpi ult, %{{.*}}, %c200
// CHECK: %[[XCOL:.*]] = arith.minui %{{.*}}, %c192
// CHECK: %[[XN:.*]] = arith.select %[[XIN]], %c8{{(_[0-9]+)?}}, %c0
// CHECK: nvgpu.device_async_copy %[[X]][%{{.*}}, %[[XCOL]]], %{{.*}}[{{.*}}], 8, %[[XN]] {bypassL1}
// CHECK: %[[WIN:.*]] = arith.cmpi ult, %{{.*}}, %c200
// CHECK: %[[WROW:.*]] = arith.minui %{{.*}}, %c199
// CHECK: %[[WN:.*]] = arith.select %[[WIN]], %c8{{(_[0-9]+)?}}, %c0
// CHECK: nvgpu.device_async_copy %[[W]][%[[WROW]], %{{.*}}], %{{.*}}[{{.*}}], 8, %[[WN]] {bypassL1}
// CHECK: scf.for
// CHECK: nvgpu.device_async_copy %[[X]][%{{.*}}, %{{.*}}], %{{.*}}[{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.device_async_copy %[[W]][%{{.*}}, %{{.*}}], %{{.*}}[{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.mma.sync
func.func @ragged_k(%x: tensor<64x200xf16>, %w: tensor<200x64xf16>) -> tensor<64x64xf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<64x200xf16>, tensor<200x64xf16>) -> tensor<64x64xf16> {
  ^bb0(%in0: tensor<64x200xf16>, %in1: tensor<200x64xf16>, %out0: tensor<64x64xf16>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<64x64xf32> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<64x200xf16> -> tensor<64x64xf16>
      %wt = block.load %in1 imap <> fmap 0 : tensor<200x64xf16> -> tensor<64x64xf16>
      %m = block.matmul %xt, %wt : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      block.yield %m : tensor<64x64xf32>
    }
    block.store %acc, %out0 omap <> : tensor<64x64xf32> into tensor<64x64xf16>
    block.return
  }
  return %o : tensor<64x64xf16>
}
