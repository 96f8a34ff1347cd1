// The flash-decoding μGraph the search finds for 16 query rows over 8192
// keys (test/Transforms/Superoptimize/split-reduction.mlir): a kernel whose
// grid splits the KV length and stores partial results side by side, and a
// kernel whose for-loop sums the chunks. Both lower to PTX that ptxas
// accepts, with the partial numerators on tensor cores, and the host
// launches exactly the two kernels.
// REQUIRES: ptxas
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 -o %t.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_80.mlir -o %t.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_80.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.sm_90.mlir
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
//
// The partial results live in device buffers of 32 chunks side by side;
// the split kernel (grid 4 x 32: query tiles x chunks) writes them, the
// combine kernel (one block per query row) reads them, and they are freed.
// HOST-LABEL: func.func @decode(
// HOST: %[[NUM:.*]] = gpu.alloc () : memref<1x16x2048xf16>
// HOST: %[[DEN:.*]] = gpu.alloc () : memref<1x16x32xf16>
// HOST: gpu.launch_func @mlsopt_kernels::@decode_kernel0 blocks in (%c4, %c32, %c1)
// HOST-SAME: %[[NUM]] : memref<1x16x2048xf16>, %[[DEN]] : memref<1x16x32xf16>
// HOST: gpu.launch_func @mlsopt_kernels::@decode_kernel1 blocks in (%c16, %c1, %c1)
// HOST-SAME: args(%[[NUM]] : memref<1x16x2048xf16>, %[[DEN]] : memref<1x16x32xf16>
// HOST-NOT: gpu.launch_func
// HOST-DAG: gpu.dealloc %[[NUM]]
// HOST-DAG: gpu.dealloc %[[DEN]]
// HOST: return

module {
  func.func @decode(%arg0: tensor<1x16x64xf16>, %arg1: tensor<1x64x8192xf16>, %arg2: tensor<1x8192x64xf16>) -> tensor<1x16x64xf16> {
    %0:2 = kernel.custom(%arg0, %arg1, %arg2) grid <4, 32, 1> block <128, 1, 1> : (tensor<1x16x64xf16>, tensor<1x64x8192xf16>, tensor<1x8192x64xf16>) -> (tensor<1x16x2048xf16>, tensor<1x16x32xf16>) {
    ^bb0(%in0: tensor<1x16x64xf16>, %in1: tensor<1x64x8192xf16>, %in2: tensor<1x8192x64xf16>, %out0: tensor<1x16x2048xf16>, %out1: tensor<1x16x32xf16>):
      %2:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<1x4x64xf16>, tensor<1x4x1xf16> {
        %3 = block.load %in0 imap <x = 1> : tensor<1x16x64xf16> -> tensor<1x4x64xf16>
        %4 = block.load %in1 imap <y = 2> : tensor<1x64x8192xf16> -> tensor<1x64x256xf16>
        %5 = block.load %in2 imap <y = 1> : tensor<1x8192x64xf16> -> tensor<1x256x64xf16>
        %6 = block.matmul %3, %4 : tensor<1x4x64xf16>, tensor<1x64x256xf16>
        %7 = thread.graph(%6) : (tensor<1x4x256xf16>) -> tensor<1x4x256xf16> {
        ^bb0(%arg3: f16):
          %10 = thread.unary exp %arg3 : f16
          thread.yield %10 : f16
        }
        %8 = block.matmul %7, %5 : tensor<1x4x256xf16>, tensor<1x256x64xf16>
        %9 = block.reduce_sum %7 dim 2 : tensor<1x4x256xf16>
        block.yield %8, %9 : tensor<1x4x64xf16>, tensor<1x4x1xf16>
      }
      block.store %2#0, %out0 omap <x = 1, y = 2> : tensor<1x4x64xf16> into tensor<1x16x2048xf16>
      block.store %2#1, %out1 omap <x = 1, y = 2> : tensor<1x4x1xf16> into tensor<1x16x32xf16>
      block.return
    }
    %1 = kernel.custom(%0#0, %0#1) grid <16, 1, 1> block <128, 1, 1> : (tensor<1x16x2048xf16>, tensor<1x16x32xf16>) -> tensor<1x16x64xf16> {
    ^bb0(%in0: tensor<1x16x2048xf16>, %in1: tensor<1x16x32xf16>, %out0: tensor<1x16x64xf16>):
      %2:2 = block.for_loop 32 iterations accumulate (sum, sum) : tensor<1x1x64xf16>, tensor<1x1x1xf16> {
        %4 = block.load %in0 imap <x = 1> fmap 2 : tensor<1x16x2048xf16> -> tensor<1x1x64xf16>
        %5 = block.load %in1 imap <x = 1> fmap 2 : tensor<1x16x32xf16> -> tensor<1x1x1xf16>
        block.yield %4, %5 : tensor<1x1x64xf16>, tensor<1x1x1xf16>
      }
      %3 = thread.graph(%2#0, %2#1) : (tensor<1x1x64xf16>, tensor<1x1x1xf16>) -> tensor<1x1x64xf16> {
      ^bb0(%arg3: f16, %arg4: f16):
        %4 = thread.binary div %arg3, %arg4 : f16
        thread.yield %4 : f16
      }
      block.store %3, %out0 omap <x = 1> : tensor<1x1x64xf16> into tensor<1x16x64xf16>
      block.return
    }
    return %1 : tensor<1x16x64xf16>
  }
}

