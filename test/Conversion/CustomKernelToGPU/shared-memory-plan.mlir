// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s

// Tiles that are never live together share shared memory
// (SharedMemoryPlan): both kernels' tiles add up to more than sm_80's
// 166912 bytes a block, but their live sets fit, so the verifier accepts
// them and the lowering gives each launch the peak of its live set.
// test/Target/GPU/shared-memory-plan.mlir runs them through ptxas.

// A one-iteration loop: four 128x128xf32 tiles of 65536 bytes (262144 in
// all), at most two live at a time: the load and exp, exp and sigmoid, then
// sigmoid (the loop's result: a one-iteration sum is its yielded tile) and
// the exp after the loop.
// CHECK-LABEL: func.func @chain
// CHECK: %[[CHAIN_BYTES:.*]] = arith.constant 131072 : i32
// CHECK: gpu.launch_func @mlsopt_kernels::@chain_kernel0 {{.*}} dynamic_shared_memory_size %[[CHAIN_BYTES]] args

// A four-iteration loop: seven 64x128xf32 tiles of 32768 bytes (229376 in
// all). The f32 sum accumulator (its own result) and the streamed load's two
// buffers live through the loop; in its body exp, sigmoid and exp again
// need two tiles at a time, the second exp reusing the first's bytes.
// CHECK-LABEL: func.func @loop
// CHECK: %[[LOOP_BYTES:.*]] = arith.constant 163840 : i32
// CHECK: gpu.launch_func @mlsopt_kernels::@loop_kernel0 {{.*}} dynamic_shared_memory_size %[[LOOP_BYTES]] args

// The views, in the order the lowering creates them; their offsets (the
// constants' names) show which tiles share bytes.
// CHECK-LABEL: gpu.func @chain_kernel0
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// The load at 0, exp at 65536, sigmoid back at 0 (the load is dead once exp
// has run) ...
// CHECK: memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK: memref.view %[[SMEM]][%c65536{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK: memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK-NOT: memref.view
// CHECK: scf.for
// ... and the exp after the loop at 65536 again.
// CHECK: memref.view %[[SMEM]][%c65536{{(_[0-9]+)?}}][] {{.*}} to memref<128x128xf32
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @loop_kernel0
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// The load's two buffers, exp, sigmoid, the second exp on the first's bytes,
// and the accumulator.
// CHECK: memref.view %[[SMEM]][%c32768{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c65536{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c98304{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c131072{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c98304{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK: memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
// CHECK-NOT: memref.view
// The loop; every step ends with a barrier, so the second exp overwrites the
// first's bytes only after sigmoid has read them on every thread.
// CHECK: scf.for
// CHECK: gpu.barrier
// After the loop (all copies waited for, then a barrier), the exp reuses the
// first buffer of the load.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: memref.view %[[SMEM]][%c32768{{(_[0-9]+)?}}][] {{.*}} to memref<64x128xf32
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
}
