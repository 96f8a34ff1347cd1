// A widening block.matmul (bf16 or f16 tiles, an f32 result) runs on the
// tensor cores at the operands' type: bf16 (f16) mma.sync fragments with
// f32 accumulators, kept in registers across the for-loop, and its f32
// sums stored without the rounding a bf16 result gets. An f32 SiLU reads
// them, and the store rounds to the output's bf16.
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// RUN: sed s/bf16/f16/g %s | mlsopt-opt --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=F16
// RUN: %if ptxas %{ mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}
// RUN: %if ptxas %{ mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTX < %t.sm_90.ptx %}
// RUN: %if ptxas %{ sed s/bf16/f16/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f16.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f16.sm_90.ptx -o %t.f16.sm_90.cubin %}

// CHECK-LABEL: gpu.func @widening_kernel0
// CHECK: %[[SUMS:.*]]:2 = scf.for {{.*}} -> (vector<2x2xf32>, vector<2x2xf32>)
// CHECK: nvvm.mma.sync
// CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>
// The f32 result's rows are padded by 32 bytes, so that a half-warp's
// 8-byte stores of its fragment rows (4 rows of 32 bytes) hit 32 banks.
// CHECK: %[[E:.*]] = vector.extract %[[SUMS]]#0[0, 0] : f32
// CHECK-NOT: arith.truncf
// CHECK: %[[PAIR:.*]] = vector.from_elements %[[E]], %{{.*}} : vector<2xf32>
// CHECK: vector.store %[[PAIR]], %{{.*}} {alignment = 8 : i64} : memref<16x64xf32, strided<[72, 1]>, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// F16: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX: st.shared.v2.b32
func.func @widening(%x: tensor<16x256xbf16>, %w: tensor<256x64xbf16>) -> tensor<16x64xbf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<16x256xbf16>, tensor<256x64xbf16>) -> tensor<16x64xbf16> {
  ^bb0(%in0: tensor<16x256xbf16>, %in1: tensor<256x64xbf16>, %out0: tensor<16x64xbf16>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<16x64xf32> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<16x256xbf16> -> tensor<16x64xbf16>
      %wt = block.load %in1 imap <> fmap 0 : tensor<256x64xbf16> -> tensor<64x64xbf16>
      %m = block.matmul %xt, %wt : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xf32>
      block.yield %m : tensor<16x64xf32>
    }
    %s = block.silu %acc : tensor<16x64xf32>
    block.store %s, %out0 omap <> : tensor<16x64xf32> into tensor<16x64xbf16>
    block.return
  }
  return %o : tensor<16x64xbf16>
}
