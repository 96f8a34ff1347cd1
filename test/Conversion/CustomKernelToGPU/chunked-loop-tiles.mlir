// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_90 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t90.ptx -o %t90.cubin %}

// A grid dim and the for-loop split k together (a split-K): each of the 2
// blocks walks its own 128 of the 256 columns of x and rows of w, in 2
// iterations of 64. A tile starts at block id * 128 + iteration * 64, for
// the copies before the loop (iteration 0) and for the copies the loop
// issues for the next iteration alike.
// CHECK-LABEL: gpu.func @split_k_kernel0
// CHECK-SAME: (%[[X:.*]]: memref<16x256xf16>, %[[W:.*]]: memref<256x64xf16>, %{{.*}}: memref<32x64xf16>)
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[CHUNK:.*]] = arith.muli %[[BX]], %c128{{(_[0-9]+)?}} : index
// CHECK: %[[FIRST:.*]] = arith.muli %c0{{(_[0-9]+)?}}, %c64{{(_[0-9]+)?}} : index
// CHECK: %[[COL:.*]] = arith.addi %[[CHUNK]], %[[FIRST]] : index
// CHECK: scf.for
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[COL]] : index
// CHECK: nvgpu.device_async_copy %[[X]][%{{.*}}, %[[AT]]]
// CHECK: scf.for %[[I:.*]] = %c0{{(_[0-9]+)?}} to %c2{{(_[0-9]+)?}} step
// CHECK: %[[NEXT:.*]] = arith.addi %[[I]], %c1{{(_[0-9]+)?}} : index
// CHECK: %[[CHUNK2:.*]] = arith.muli %[[BX]], %c128{{(_[0-9]+)?}} : index
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %c64{{(_[0-9]+)?}} : index
// CHECK: arith.addi %[[CHUNK2]], %[[STEP]] : index
// CHECK: nvgpu.mma.sync
func.func @split_k(%x: tensor<16x256xf16>, %w: tensor<256x64xf16>) -> tensor<32x64xf16> {
  %p = kernel.custom (%x, %w) grid <2, 1, 1> block <128, 1, 1>
      : (tensor<16x256xf16>, tensor<256x64xf16>) -> tensor<32x64xf16> {
  ^bb0(%in0: tensor<16x256xf16>, %in1: tensor<256x64xf16>, %out0: tensor<32x64xf16>):
    %acc = block.for_loop 2 iterations accumulate (sum) : tensor<16x64xf32> {
      %xt = block.load %in0 imap <x = 1> fmap 1 : tensor<16x256xf16> -> tensor<16x64xf16>
      %wt = block.load %in1 imap <x = 0> fmap 0 : tensor<256x64xf16> -> tensor<64x64xf16>
      %m = block.matmul %xt, %wt : tensor<16x64xf16>, tensor<64x64xf16> -> tensor<16x64xf32>
      block.yield %m : tensor<16x64xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<16x64xf32> into tensor<32x64xf16>
    block.return
  }
  return %p : tensor<32x64xf16>
}
