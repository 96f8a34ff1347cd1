// f32 matmuls run on tensor cores as tf32 by default, and as exact f32 FMA
// loops with allow-tf32=false.
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=TF32
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu="chip=sm_80 allow-tf32=true" | FileCheck %s --check-prefix=TF32
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu="chip=sm_80 allow-tf32=false" | FileCheck %s --check-prefix=EXACT
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=ROUNDS

// The sum is kept in registers across the 4 iterations: each warp owns 2
// of the 8 16x8 result fragments; their f32 accumulators are the loop's
// iteration arguments, zero before it. Per k step of 8, each lane loads 4
// elements of A per fragment and 2 of B as f32 from shared memory, rounds
// each to tf32 (round to nearest, ties away) and issues one m16n8k8 mma
// per fragment into its running accumulator. The warp's two fragments,
// w and w + 4 of the 2 x 4 grid, lie in one column of the result, so both
// mmas take the same B registers. The k loop walks the tile's 32-long
// contraction in steps of 8, carrying both fragments. Nothing is stored in
// the loop; after it, each fragment is stored once into the block's
// shared-memory result tile.
// TF32-LABEL: gpu.func @tf32_kernel0
// TF32: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// TF32: %[[SUMS:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args(%[[RUN0:.*]] = %[[ZERO]], %[[RUN1:.*]] = %[[ZERO]]) -> (vector<2x2xf32>, vector<2x2xf32>)
// TF32-NOT: memref.store
// TF32: nvvm.cp.async.wait.group 1
// TF32-NEXT: gpu.barrier
// TF32-NOT: memref.store
// TF32: %[[K:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %c32{{.*}} step %c8{{.*}} iter_args(%[[ACC0:.*]] = %[[RUN0]], %[[ACC1:.*]] = %[[RUN1]]) -> (vector<2x2xf32>, vector<2x2xf32>)
// TF32-COUNT-6: memref.load %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// TF32-NEXT: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// TF32-NOT: nvvm.convert.float.to.tf32
// TF32: vector.extract %[[ACC0]][0, 0]
// TF32: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%[[B0:.*]], %[[B1:.*]]] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// TF32-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// TF32-SAME: multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>
// TF32-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 8>
// TF32-SAME: (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// TF32: %[[NEXT0:.*]] = vector.from_elements
// TF32-NOT: memref.store
// TF32-COUNT-4: nvvm.convert.float.to.tf32
// TF32-NOT: nvvm.convert.float.to.tf32
// TF32: vector.extract %[[ACC1]][0, 0]
// TF32: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%[[B0]], %[[B1]]]
// TF32: %[[NEXT1:.*]] = vector.from_elements
// TF32-NEXT: scf.yield %[[NEXT0]], %[[NEXT1]] : vector<2x2xf32>, vector<2x2xf32>
// TF32-NEXT: }
// TF32-NEXT: gpu.barrier
// TF32-NEXT: scf.yield %[[K]]#0, %[[K]]#1 : vector<2x2xf32>, vector<2x2xf32>
// TF32-NEXT: }
// TF32-NEXT: nvvm.cp.async.wait.group 0
// Each fragment row's two f32 sums are one 8-byte store, into rows padded
// by 32 bytes (a half-warp's stores: 4 rows of 32 bytes on 32 banks).
// TF32: %[[E:.*]] = vector.extract %[[SUMS]]#0[0, 0] : f32 from vector<2x2xf32>
// TF32: %[[PAIR:.*]] = vector.from_elements %[[E]], %{{.*}} : vector<2xf32>
// TF32: vector.store %[[PAIR]], %[[RESULT:.*]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<32x32xf32, strided<[40, 1]>, #gpu.address_space<workgroup>>, vector<2xf32>
// TF32-COUNT-1: vector.store %{{.*}}, %[[RESULT]]
// TF32: vector.extract %[[SUMS]]#1[0, 0]
// TF32-COUNT-2: vector.store %{{.*}}, %[[RESULT]]
// TF32-NOT: memref.store
// TF32: gpu.barrier
// TF32-NOT: arith.mulf
// TF32: gpu.return

// Ten roundings per k step (4 of A for each fragment, 2 of the B they
// share), all in the k loop that carries the warp's two fragments, and no
// others in the kernel.
// ROUNDS-LABEL: gpu.func @tf32_kernel0
// ROUNDS-NOT: nvvm.convert.float.to.tf32
// ROUNDS: scf.for %{{.*}} step %c8{{.*}} iter_args
// ROUNDS-COUNT-10: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// ROUNDS-NOT: nvvm.convert.float.to.tf32
// ROUNDS: gpu.return

// With allow-tf32=false the sum stays in registers too: FMA loops, one f32
// running value per result element a thread owns (1024 / 128 = 8), stored
// once after the loop.
// EXACT-LABEL: gpu.func @tf32_kernel0
// EXACT-NOT: nvvm.mma.sync
// EXACT-NOT: nvvm.convert.float.to.tf32
// EXACT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// EXACT: %[[SUMS:.*]]:8 = scf.for %{{.*}} iter_args(%[[RUN0:[^ ]*]] = %[[ZERO]], {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// EXACT-NOT: memref.store
// EXACT: scf.for %{{.*}} = %{{.*}} to %c32{{.*}} step %c1{{.*}} iter_args(%[[DOT:.*]] = %[[RUN0]]) -> (f32)
// EXACT: arith.mulf %{{.*}}, %{{.*}} : f32
// EXACT-NEXT: arith.addf %[[DOT]], %{{.*}} : f32
// EXACT-NOT: memref.store
// EXACT: scf.yield %{{.*}} : f32, f32, f32, f32, f32, f32, f32, f32
// EXACT-NEXT: }
// EXACT-NEXT: nvvm.cp.async.wait.group 0
// EXACT: memref.store %[[SUMS]]#0, %[[RESULT:.*]][%{{.*}}, %{{.*}}] : memref<32x32xf32
// EXACT-COUNT-7: memref.store %[[SUMS]]#{{[1-7]}}, %[[RESULT]]
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
