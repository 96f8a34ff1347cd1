// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s

// Tiles that are never live together share shared memory
// (SharedMemoryPlan): the kernels' tiles add up to more than sm_80's
// 166912 bytes a block, but their live sets fit, so the verifier accepts
// them and the lowering gives each launch the peak of its live set.
// test/Target/GPU/shared-memory-plan.mlir runs them through ptxas.

// A one-iteration loop: four 128x128xf32 tiles of 65536 bytes (262144 in
// all). exp and sigmoid are written in place of their operands, which die
// at them: the load, exp and sigmoid share one buffer. The exp after the
// loop reads the loop's result (a one-iteration sum is its yielded tile,
// sigmoid) and needs a second one.
// CHECK-LABEL: func.func @chain
// CHECK: %[[CHAIN_BYTES:.*]] = arith.constant 131072 : i32
// CHECK: gpu.launch_func @mlsopt_kernels::@chain_kernel0 {{.*}} dynamic_shared_memory_size %[[CHAIN_BYTES]] args

// A four-iteration loop: seven 64x128xf32 tiles of 32768 bytes (229376 in
// all). The f32 sum accumulator (its own result) and the streamed load's two
// buffers live through the loop; exp cannot take the load's bytes (the
// loop carries them), sigmoid and the second exp are written in place of
// exp.
// CHECK-LABEL: func.func @loop
// CHECK: %[[LOOP_BYTES:.*]] = arith.constant 131072 : i32
// CHECK: gpu.launch_func @mlsopt_kernels::@loop_kernel0 {{.*}} dynamic_shared_memory_size %[[LOOP_BYTES]] args

// Three 128x128xf32 tiles at most, and a 1x128 one: 131584 bytes, where
// without in-place results exp, sigmoid, mul and the load of the row would
// be live together (196608 bytes and more).
// CHECK-LABEL: func.func @in_place
// CHECK: %[[IN_PLACE_BYTES:.*]] = arith.constant 131584 : i32
// CHECK: gpu.launch_func @mlsopt_kernels::@in_place_kernel0 {{.*}} dynamic_shared_memory_size %[[IN_PLACE_BYTES]] args

// The views, in the order the lowering creates them; their offsets (the
// constants' names) show which tiles share bytes.
// CHECK-LABEL: gpu.func @chain_kernel0
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// The load, exp and sigmoid at 0 ...
// CHECK: memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK: memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK: memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK-NOT: memref.view
// CHECK: scf.for
// ... and the exp after the loop at 65536, beside the sigmoid it reads.
// CHECK: memref.view %[[SMEM]][%c65536{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @loop_kernel0
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// The load's two buffers, then exp, sigmoid and the second exp on one
// buffer, and the accumulator.
// CHECK: memref.view %[[SMEM]][%c32768{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c65536{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c98304{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c98304{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c98304{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK-NOT: memref.view
// CHECK: scf.for
// CHECK: gpu.barrier
// After the loop (all copies waited for, then a barrier), the exp reuses the
// first buffer of the load.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: memref.view %[[SMEM]][%c32768{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @in_place_kernel0
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// The loads %t at 0 and %r at 131072 ...
// CHECK: memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK: memref.view %[[SMEM]][%c131072{{(_[0-9]+)?}}][] {{.*}} to memref<1x128xf32
// ... %e in place of %t; %s beside it (%e is read again by %m) ...
// CHECK: memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK: memref.view %[[SMEM]][%c65536{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// ... %m in place of its first operand %s (one operand is enough), %b in
// place of %m, not of the broadcast %r.
// CHECK: memref.view %[[SMEM]][%c65536{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK: memref.view %[[SMEM]][%c65536{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK-NOT: memref.view
// The prologue copies %t only; %r is copied while %m computes (its first
// reader is %b), and waited for before the barrier that ends %m.
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy {{.*}} : memref<2x128xf32> to memref<1x128xf32
// CHECK: nvvm.cp.async.commit.group
// CHECK: arith.mulf
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: arith.addf
// CHECK: gpu.barrier
// CHECK: gpu.return

module attributes {mlsopt.target = "sm_80"} {
  func.func @chain(%x: tensor<256x128xf32>) -> tensor<256x128xf32> {
    %o = kernel.custom (%x) grid <2, 1, 1> block <256, 1, 1>
        : (tensor<256x128xf32>) -> tensor<256x128xf32> {
    ^bb0(%in0: tensor<256x128xf32>, %out0: tensor<256x128xf32>):
      %a = block.for_loop 1 iterations accumulate (sum) : tensor<128x128xf32> {
        %t = block.load %in0 imap <x = 0> : tensor<256x128xf32> -> tensor<128x128xf32>
        %e = block.exp %t : tensor<128x128xf32>
        %s = block.sigmoid %e : tensor<128x128xf32>
        block.yield %s : tensor<128x128xf32>
      }
      %r = block.exp %a : tensor<128x128xf32>
      block.store %r, %out0 omap <x = 0> : tensor<128x128xf32> into tensor<256x128xf32>
      block.return
    }
    return %o : tensor<256x128xf32>
  }

  func.func @loop(%x: tensor<128x512xf32>) -> tensor<128x128xf32> {
    %o = kernel.custom (%x) grid <2, 1, 1> block <256, 1, 1>
        : (tensor<128x512xf32>) -> tensor<128x128xf32> {
    ^bb0(%in0: tensor<128x512xf32>, %out0: tensor<128x128xf32>):
      %a = block.for_loop 4 iterations accumulate (sum) : tensor<64x128xf32> {
        %t = block.load %in0 imap <x = 0> fmap 1 : tensor<128x512xf32> -> tensor<64x128xf32>
        %e = block.exp %t : tensor<64x128xf32>
        %s = block.sigmoid %e : tensor<64x128xf32>
        %f = block.exp %s : tensor<64x128xf32>
        block.yield %f : tensor<64x128xf32>
      }
      %r = block.exp %a : tensor<64x128xf32>
      block.store %r, %out0 omap <x = 0> : tensor<64x128xf32> into tensor<128x128xf32>
      block.return
    }
    return %o : tensor<128x128xf32>
  }

  func.func @in_place(%x: tensor<256x128xf32>, %y: tensor<2x128xf32>) -> tensor<256x128xf32> {
    %o = kernel.custom (%x, %y) grid <2, 1, 1> block <256, 1, 1>
        : (tensor<256x128xf32>, tensor<2x128xf32>) -> tensor<256x128xf32> {
    ^bb0(%in0: tensor<256x128xf32>, %in1: tensor<2x128xf32>, %out0: tensor<256x128xf32>):
      %a = block.for_loop 1 iterations accumulate (sum) : tensor<128x128xf32> {
        %t = block.load %in0 imap <x = 0> : tensor<256x128xf32> -> tensor<128x128xf32>
        %r = block.load %in1 imap <x = 0> : tensor<2x128xf32> -> tensor<1x128xf32>
        %e = block.exp %t : tensor<128x128xf32>
        %s = block.sigmoid %e : tensor<128x128xf32>
        %m = block.mul %s, %e : tensor<128x128xf32>, tensor<128x128xf32>
        %b = thread.graph (%r, %m) : (tensor<1x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32> {
        ^bb0(%re: f32, %me: f32):
          %v = thread.binary add %me, %re : f32
          thread.yield %v : f32
        }
        block.yield %b : tensor<128x128xf32>
      }
      block.store %a, %out0 omap <x = 0> : tensor<128x128xf32> into tensor<256x128xf32>
      block.return
    }
    return %o : tensor<256x128xf32>
  }
}
