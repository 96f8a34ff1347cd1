// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t90.ptx -o %t90.cubin %}

// A load after the for-loop (the residual of a matmul's epilogue) copies its
// tile once, issued with the loop's prologue copies so that it lands while
// the loop runs (its buffer is kept from the loop's start); the loop's last
// wait covers it, and the add after the loop reads it.

// The residual's 4096 bytes come after the loop's (x's two buffers at 20992
// and 25088, w's at 0 and 8192, the product's tile at 16384, its rows
// padded to 72 elements: 4608 bytes): 33280 in all, where a buffer live
// from the epilogue only could have reused w's.
// CHECK-LABEL: func.func @matmul_residual
// CHECK: %[[BYTES:.*]] = arith.constant 33280 : i32
// CHECK: gpu.launch_func @mlsopt_kernels::@matmul_residual_kernel0 {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK-LABEL: gpu.func @matmul_residual_kernel0
// CHECK-SAME: (%[[X:.*]]: memref<64x256xf16>, %[[W:.*]]: memref<256x128xf16>, %[[R:.*]]: memref<64x128xf16>, %{{.*}}: memref<64x128xf16>)
// CHECK: %[[RT:.*]] = memref.view %{{.*}}[%c29184][] {{.*}} to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %[[R]][{{.*}}], %[[RT]][{{.*}}], 8 {bypassL1} : memref<64x128xf16> to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %[[X]]
// CHECK: nvgpu.device_async_copy %[[W]]
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: nvgpu.device_async_copy %[[R]]
// CHECK: nvgpu.mma.sync
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.barrier
// CHECK: arith.addf
// CHECK: gpu.return

func.func @matmul_residual(%x: tensor<64x256xf16>, %w: tensor<256x128xf16>, %r: tensor<64x128xf16>) -> tensor<64x128xf16> {
  %o = kernel.custom (%x, %w, %r) grid <2, 2, 1> block <128, 1, 1>
      : (tensor<64x256xf16>, tensor<256x128xf16>, tensor<64x128xf16>) -> tensor<64x128xf16> {
  ^bb0(%in0: tensor<64x256xf16>, %in1: tensor<256x128xf16>, %in2: tensor<64x128xf16>, %out0: tensor<64x128xf16>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<32x64xf16> {
      %xt = block.load %in0 imap <x = 0> fmap 1 : tensor<64x256xf16> -> tensor<32x64xf16>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<256x128xf16> -> tensor<64x64xf16>
      %m = block.matmul %xt, %wt : tensor<32x64xf16>, tensor<64x64xf16>
      block.yield %m : tensor<32x64xf16>
    }
    %rt = block.load %in2 imap <x = 0, y = 1> : tensor<64x128xf16> -> tensor<32x64xf16>
    %y = block.add %acc, %rt : tensor<32x64xf16>, tensor<32x64xf16>
    block.store %y, %out0 omap <x = 0, y = 1> : tensor<32x64xf16> into tensor<64x128xf16>
    block.return
  }
  return %o : tensor<64x128xf16>
}
