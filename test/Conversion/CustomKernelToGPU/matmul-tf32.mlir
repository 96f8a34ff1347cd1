// f32 matmuls run on tensor cores as tf32 by default, and as exact f32 FMA
// loops with allow-tf32=false.
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=TF32
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu="chip=sm_80 allow-tf32=true" | FileCheck %s --check-prefix=TF32
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu="chip=sm_80 allow-tf32=false" | FileCheck %s --check-prefix=EXACT
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=ROUNDS

// Per k step of 8, each lane loads 4 elements of A and 2 of B as f32 from
// shared memory, rounds each to tf32 (round to nearest, ties away) and issues
// one m16n8k8 mma with f32 accumulators.
// The k loop walks the tile's 32-long contraction in steps of 8, carrying
// the four f32 accumulators; each operand is an f32 read from a shared
// memory tile, rounded, and the mma's results are the next iteration's
// accumulators, which end in the block's shared-memory result tile.
// TF32-LABEL: gpu.func @tf32_kernel0
// TF32: scf.for %{{.*}} = %{{.*}} to %c32{{.*}} step %c8{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<2x2xf32>)
// TF32-COUNT-6: memref.load %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// TF32-NEXT: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// TF32-NOT: nvvm.convert.float.to.tf32
// TF32: vector.extract %[[ACC]][0, 0]
// TF32: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// TF32-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// TF32-SAME: multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>
// TF32-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 8>
// TF32-SAME: (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// TF32: %[[NEXT:.*]] = vector.from_elements
// TF32-NEXT: scf.yield %[[NEXT]] : vector<2x2xf32>
// TF32-COUNT-4: memref.store %{{.*}} : memref<32x32xf32, #gpu.address_space<workgroup>>
// TF32-NOT: arith.mulf
// TF32: gpu.return

// Six roundings per k step (4 of A, 2 of B) and no others in the kernel.
// ROUNDS-LABEL: gpu.func @tf32_kernel0
// ROUNDS-COUNT-6: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// ROUNDS-NOT: nvvm.convert.float.to.tf32
// ROUNDS: gpu.return

// EXACT-LABEL: gpu.func @tf32_kernel0
// EXACT-NOT: nvvm.mma.sync
// EXACT-NOT: nvvm.convert.float.to.tf32
// EXACT: arith.mulf %{{.*}}, %{{.*}} : f32
// EXACT-NEXT: arith.addf %{{.*}}, %{{.*}} : f32
// EXACT-NOT: nvvm.mma.sync
// EXACT: gpu.return

func.func @tf32(%x: tensor<32x128xf32>, %w: tensor<128x64xf32>) -> tensor<32x64xf32> {
  %o = kernel.custom (%x, %w) grid <2, 1, 1> block <128, 1, 1>
      : (tensor<32x128xf32>, tensor<128x64xf32>) -> tensor<32x64xf32> {
  ^bb0(%in0: tensor<32x128xf32>, %in1: tensor<128x64xf32>, %out0: tensor<32x64xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<32x32xf32> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<32x128xf32> -> tensor<32x32xf32>
      %wt = block.load %in1 imap <x = 1> fmap 0 : tensor<128x64xf32> -> tensor<32x32xf32>
      %m = block.matmul %xt, %wt : tensor<32x32xf32>, tensor<32x32xf32>
      block.yield %m : tensor<32x32xf32>
    }
    block.store %acc, %out0 omap <x = 1> : tensor<32x32xf32> into tensor<32x64xf32>
    block.return
  }
  return %o : tensor<32x64xf32>
}
