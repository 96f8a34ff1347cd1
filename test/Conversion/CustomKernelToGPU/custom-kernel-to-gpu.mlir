// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s

// RMSNorm + matmul as one kernel (the μGraph of examples/rmsnorm_matmul.mlir
// at a smaller size): the host function launches it once, on the original
// arguments and the result argument.
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @fused
// CHECK-SAME: (%[[X:.*]]: memref<8x256xf16>, %[[W:.*]]: memref<256x512xf16>, %[[O:.*]]: memref<8x512xf16> {mlsopt.result_index = 0 : i64})
// CHECK-NOT: gpu.alloc
// CHECK: gpu.launch_func @mlsopt_kernels::@fused_kernel0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %{{.*}} args(%[[X]] : memref<8x256xf16>, %[[W]] : memref<256x512xf16>, %[[O]] : memref<8x512xf16>)
// CHECK-NEXT: return

// Two kernels: the intermediate tensor is allocated before the launch that
// writes it and freed after the last launch that reads it.
// CHECK-LABEL: func.func @two_kernels
// CHECK-SAME: (%[[A:.*]]: memref<64x64xf32>, %[[R:.*]]: memref<64x64xf32> {mlsopt.result_index = 0 : i64})
// CHECK: %[[T:.*]] = gpu.alloc () : memref<64x64xf32>
// CHECK: gpu.launch_func @mlsopt_kernels::@two_kernels_kernel0 {{.*}} args(%[[A]] : memref<64x64xf32>, %[[T]] : memref<64x64xf32>)
// CHECK: gpu.launch_func @mlsopt_kernels::@two_kernels_kernel1 {{.*}} args(%[[T]] : memref<64x64xf32>, %[[R]] : memref<64x64xf32>)
// CHECK-NEXT: gpu.dealloc %[[T]] : memref<64x64xf32>
// CHECK-NEXT: return

// CHECK: gpu.module @mlsopt_kernels
// CHECK: gpu.func @fused_kernel0(%[[GX:.*]]: memref<8x256xf16>, %[[GW:.*]]: memref<256x512xf16>, %[[GO:.*]]: memref<8x512xf16>) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 1, 1>
// All tiles live in one dynamic shared-memory buffer.
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// Two buffers per streamed tile (double buffering). The W tile, read only
// by the tensor cores, is flat and XOR-swizzled (same bytes); the X tile,
// which block.square reads too, keeps its shape.
// CHECK-DAG: %[[XA:.*]] = memref.view %[[SMEM]][%{{.*}}][] {{.*}} to memref<8x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[WA:.*]] = memref.view %[[SMEM]][%{{.*}}][] {{.*}} to memref<4096xf16, #gpu.address_space<workgroup>>
// Prologue: iteration 0's tiles, 16 bytes (8 halves) per cp.async.
// The swizzle: the 16-byte chunk index XOR (row mod 8) (rows of W are 8
// chunks of 8 halves: offset ^ ((offset / 64) % 8) * 8, in halves).
// CHECK: nvgpu.device_async_copy %[[GX]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8 {bypassL1}
// CHECK: %[[WSWZ:.*]] = arith.xori %{{.*}}, %{{.*}} : index
// CHECK: nvgpu.device_async_copy %[[GW]][%{{.*}}, %{{.*}}], %{{.*}}[%[[WSWZ]]], 8 {bypassL1} : memref<256x512xf16> to memref<4096xf16
// CHECK: nvvm.cp.async.commit.group
// The loop prefetches iteration i+1 into the other buffer, then waits for
// all but the newest group.
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: arith.select
// CHECK: nvgpu.device_async_copy %[[GX]]
// CHECK: nvgpu.device_async_copy %[[GW]]
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// Tensor-core matmul: ldmatrix of A, transposed ldmatrix of B, mma.sync.
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<8x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[BSWZ:.*]] = arith.xori %{{.*}}, %{{.*}} : index
// CHECK: nvgpu.ldmatrix %{{.*}}[%[[BSWZ]]] {numTiles = 2 : i32, transpose = true} : memref<4096xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// The row sum of 8 rows of 64: 8 lanes per row, each adding 8 elements in
// four partial sums, then three xor shuffles within the group of 8 lanes
// (a warp takes 4 rows at once, so two warps hold all 8 rows); the first
// lane of each group stores (row-reductions.mlir has rows that do not
// fill the warps).
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: %[[O4:.*]] = arith.constant 4 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %[[O4]], %{{.*}} : f32
// CHECK: %[[O2:.*]] = arith.constant 2 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %[[O2]], %{{.*}} : f32
// CHECK: %[[O1:.*]] = arith.constant 1 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %[[O1]], %{{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: arith.cmpi eq
// CHECK-NEXT: scf.if
// After the loop, the thread graph runs in registers: one load per input,
// one store, and rsqrt in between.
// CHECK: math.rsqrt
// The output tile leaves in 16-byte vectors. It is written in place of the
// product, whose rows the tensor cores write, so it keeps their padding.
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<8x64xf16, strided<[72, 1]>, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[GO]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<8x512xf16>, vector<8xf16>
// CHECK: gpu.return
// Kernels without a matmul issue no mma.sync.
// CHECK: gpu.func @two_kernels_kernel0
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.return

func.func @fused(%x: tensor<8x256xf16>, %w: tensor<256x512xf16>) -> tensor<8x512xf16> {
  %o = kernel.custom (%x, %w) grid <8, 1, 1> block <128, 1, 1>
      : (tensor<8x256xf16>, tensor<256x512xf16>) -> tensor<8x512xf16> {
  ^bb0(%in0: tensor<8x256xf16>, %in1: tensor<256x512xf16>, %out0: tensor<8x512xf16>):
    %acc:2 = block.for_loop 4 iterations accumulate (sum, sum) : tensor<8x64xf16>, tensor<8x1xf16> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<8x256xf16> -> tensor<8x64xf16>
      %wt = block.load %in1 imap <x = 1> fmap 0 : tensor<256x512xf16> -> tensor<64x64xf16>
      %m = block.matmul %xt, %wt : tensor<8x64xf16>, tensor<64x64xf16>
      %sq = block.square %xt : tensor<8x64xf16>
      %s = block.reduce_sum %sq dim 1 : tensor<8x64xf16>
      block.yield %m, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph(%acc#0, %acc#1) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16, %s: f16):
      %ms = thread.mul_scalar %s, 3.90625E-3 : f16
      %r = thread.unary rsqrt %ms : f16
      %p = thread.binary mul %a, %r : f16
      thread.yield %p : f16
    }
    block.store %y, %out0 omap <x = 1> : tensor<8x64xf16> into tensor<8x512xf16>
    block.return
  }
  return %o : tensor<8x512xf16>
}

func.func @two_kernels(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %t = kernel.custom (%a) grid <2, 1, 1> block <64, 1, 1>
      : (tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%in0: tensor<64x64xf32>, %out0: tensor<64x64xf32>):
    %r = block.for_loop 1 iterations accumulate (sum) : tensor<64x32xf32> {
      %at = block.load %in0 imap <x = 1> : tensor<64x64xf32> -> tensor<64x32xf32>
      %e = block.exp %at : tensor<64x32xf32>
      block.yield %e : tensor<64x32xf32>
    }
    block.store %r, %out0 omap <x = 1> : tensor<64x32xf32> into tensor<64x64xf32>
    block.return
  }
  %u = kernel.custom (%t) grid <2, 1, 1> block <64, 1, 1>
      : (tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%in0: tensor<64x64xf32>, %out0: tensor<64x64xf32>):
    %r = block.for_loop 1 iterations accumulate (sum) : tensor<64x32xf32> {
      %at = block.load %in0 imap <x = 1> : tensor<64x64xf32> -> tensor<64x32xf32>
      %e = block.neg %at : tensor<64x32xf32>
      block.yield %e : tensor<64x32xf32>
    }
    block.store %r, %out0 omap <x = 1> : tensor<64x32xf32> into tensor<64x64xf32>
    block.return
  }
  return %u : tensor<64x64xf32>
}
