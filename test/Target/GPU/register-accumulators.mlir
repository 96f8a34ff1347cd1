// A for-loop's sum of a matmul is kept in registers: each warp's mma
// accumulator fragments are the scf.for's iteration arguments, zero before
// it; the mma.syncs of every iteration accumulate into them, nothing is
// stored in the loop, and the result tile is written once after it. Sums
// whose matmul is read otherwise, or whose warps would hold more than 32
// fragments, keep the f32 accumulator in shared memory. ptxas accepts the
// PTX for sm_80 and sm_90 in f16, bf16 and f32 (tf32).
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// RUN: sed s/f16/bf16/g %s | mlsopt-opt --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=BF16
// RUN: sed s/f16/f32/g %s | mlsopt-opt --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=TF32
// RUN: %if ptxas %{ mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.f16.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f16.sm_80.ptx -o %t.f16.sm_80.cubin %}
// RUN: %if ptxas %{ mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f16.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f16.sm_90.ptx -o %t.f16.sm_90.cubin %}
// RUN: %if ptxas %{ sed s/f16/bf16/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.bf16.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.bf16.sm_80.ptx -o %t.bf16.sm_80.cubin %}
// RUN: %if ptxas %{ sed s/f16/bf16/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.bf16.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.bf16.sm_90.ptx -o %t.bf16.sm_90.cubin %}
// RUN: %if ptxas %{ sed s/f16/f32/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.f32.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f32.sm_80.ptx -o %t.f32.sm_80.cubin %}
// RUN: %if ptxas %{ sed s/f16/f32/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f32.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f32.sm_90.ptx -o %t.f32.sm_90.cubin %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTX < %t.f16.sm_90.ptx %}

// A 16x40 sum is 5 fragments for 4 warps: every warp carries 2, and only
// warp 0 has a second one (fragment 4). The other warps compute fragment 4
// as their second too (min(warp + 4, 4)), which keeps the k loop free of
// branches, and only the store after the loop is guarded by fragment < 5.
// Both fragments lie in the result's one row of fragments, so both
// mma.syncs of a k step take the A operand of one ldmatrix.
// CHECK-LABEL: gpu.func @guarded_kernel0
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK: %[[SUMS:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %c3{{.*}} step %c1{{.*}} iter_args(%[[RUN0:.*]] = %[[ZERO]], %[[RUN1:.*]] = %[[ZERO]]) -> (vector<2x2xf32>, vector<2x2xf32>)
// CHECK-NOT: memref.store
// CHECK: %[[SECOND:.*]] = arith.addi %{{.*}}, %c4{{.*}} : index
// CHECK: arith.minui %[[SECOND]], %c4{{.*}} : index
// CHECK: %[[K:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %c32{{.*}} step %c16{{.*}} iter_args(%[[ACC0:.*]] = %[[RUN0]], %[[ACC1:.*]] = %[[RUN1]]) -> (vector<2x2xf32>, vector<2x2xf32>)
// CHECK-NOT: scf.if
// CHECK: %[[A:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK-NOT: scf.if
// CHECK: %[[NEXT0:.*]] = nvgpu.mma.sync(%[[A]], %{{.*}}, %[[ACC0]]) {mmaShape = [16, 8, 16]}
// CHECK-NOT: scf.if
// CHECK-NOT: numTiles = 4
// CHECK: %[[NEXT1:.*]] = nvgpu.mma.sync(%[[A]], %{{.*}}, %[[ACC1]]) {mmaShape = [16, 8, 16]}
// CHECK: scf.yield %[[NEXT0]], %[[NEXT1]] : vector<2x2xf32>, vector<2x2xf32>
// CHECK-NOT: memref.store
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield %[[K]]#0, %[[K]]#1 : vector<2x2xf32>, vector<2x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// Each row of a fragment is one 2-element store (st.shared.b32 of an f16
// pair).
// CHECK: vector.extract %[[SUMS]]#0[0, 0]
// CHECK-NEXT: vector.extract %[[SUMS]]#0[0, 1]
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: %[[PAIR:.*]] = vector.from_elements
// CHECK-NEXT: vector.store %[[PAIR]], %[[RESULT:.*]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<16x40xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-COUNT-1: vector.store %{{.*}}, %[[RESULT]]
// CHECK: scf.if
// CHECK: vector.extract %[[SUMS]]#1[0, 0]
// CHECK-COUNT-2: vector.store %{{.*}}, %[[RESULT]]
// CHECK-NOT: memref.store %{{.*}}, %[[RESULT]]
// CHECK-NOT: vector.store %{{.*}}, %[[RESULT]]
// CHECK: gpu.barrier
// CHECK: gpu.return
// BF16-LABEL: gpu.func @guarded_kernel0
// BF16: scf.for %{{.*}} iter_args(%[[RUN0:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>)
// BF16: scf.for %{{.*}} step %c16{{.*}} iter_args(%[[ACC0:.*]] = %[[RUN0]], %{{.*}} = %{{.*}})
// BF16: vector.extract %[[ACC0]][0, 0]
// BF16: nvvm.mma.sync
// BF16-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>
// TF32-LABEL: gpu.func @guarded_kernel0
// TF32: scf.for %{{.*}} iter_args(%[[RUN0:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>)
// TF32: scf.for %{{.*}} step %c8{{.*}} iter_args(%[[ACC0:.*]] = %[[RUN0]], %{{.*}} = %{{.*}})
// TF32: vector.extract %[[ACC0]][0, 0]
// TF32: nvvm.mma.sync
// TF32-SAME: multiplicandAPtxType = #nvvm.mma_type<tf32>
func.func @guarded(%x: tensor<16x96xf16>, %w: tensor<96x40xf16>) -> tensor<16x40xf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<16x96xf16>, tensor<96x40xf16>) -> tensor<16x40xf16> {
  ^bb0(%in0: tensor<16x96xf16>, %in1: tensor<96x40xf16>, %out0: tensor<16x40xf16>):
    %acc = block.for_loop 3 iterations accumulate (sum) : tensor<16x40xf16> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<16x96xf16> -> tensor<16x32xf16>
      %wt = block.load %in1 imap <> fmap 0 : tensor<96x40xf16> -> tensor<32x40xf16>
      %m = block.matmul %xt, %wt : tensor<16x32xf16>, tensor<32x40xf16>
      block.yield %m : tensor<16x40xf16>
    }
    block.store %acc, %out0 omap <> : tensor<16x40xf16> into tensor<16x40xf16>
    block.return
  }
  return %o : tensor<16x40xf16>
}

// The product is also reduced in the loop, so it is a tile in every
// iteration: the sum keeps its f32 accumulator in shared memory.
// CHECK-LABEL: gpu.func @read_twice_kernel0
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} step %c1{{.*}} {
// CHECK: %[[MMA:.*]] = nvgpu.mma.sync
// CHECK: vector.extract %{{.*}}[0, 0]
// CHECK: vector.store %{{.*}}, %{{.*}} : memref<16x40xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: gpu.shuffle
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<16x40xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.return
func.func @read_twice(%x: tensor<16x96xf16>, %w: tensor<96x40xf16>) -> (tensor<16x40xf16>, tensor<16x1xf16>) {
  %o:2 = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<16x96xf16>, tensor<96x40xf16>) -> (tensor<16x40xf16>, tensor<16x1xf16>) {
  ^bb0(%in0: tensor<16x96xf16>, %in1: tensor<96x40xf16>, %out0: tensor<16x40xf16>, %out1: tensor<16x1xf16>):
    %acc:2 = block.for_loop 3 iterations accumulate (sum, sum) : tensor<16x40xf16>, tensor<16x1xf16> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<16x96xf16> -> tensor<16x32xf16>
      %wt = block.load %in1 imap <> fmap 0 : tensor<96x40xf16> -> tensor<32x40xf16>
      %m = block.matmul %xt, %wt : tensor<16x32xf16>, tensor<32x40xf16>
      %r = block.reduce_sum %m dim 1 : tensor<16x40xf16>
      block.yield %m, %r : tensor<16x40xf16>, tensor<16x1xf16>
    }
    block.store %acc#0, %out0 omap <> : tensor<16x40xf16> into tensor<16x40xf16>
    block.store %acc#1, %out1 omap <> : tensor<16x1xf16> into tensor<16x1xf16>
    block.return
  }
  return %o#0, %o#1 : tensor<16x40xf16>, tensor<16x1xf16>
}

// 128x72 is 8 x 9 = 72 fragments: 36 for each of 2 warps, past the bound of
// 32 (128 registers): the shared-memory accumulator.
// CHECK-LABEL: gpu.func @too_many_fragments_kernel0
// CHECK-NOT: iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2{{.*}} step %c1{{.*}} {
// CHECK: nvgpu.mma.sync
// CHECK: vector.store %{{.*}}, %{{.*}} : memref<128x72xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<128x72xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.return
func.func @too_many_fragments(%x: tensor<128x32xf16>, %w: tensor<32x72xf16>) -> tensor<128x72xf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <64, 1, 1>
      : (tensor<128x32xf16>, tensor<32x72xf16>) -> tensor<128x72xf16> {
  ^bb0(%in0: tensor<128x32xf16>, %in1: tensor<32x72xf16>, %out0: tensor<128x72xf16>):
    %acc = block.for_loop 2 iterations accumulate (sum) : tensor<128x72xf16> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<128x32xf16> -> tensor<128x16xf16>
      %wt = block.load %in1 imap <> fmap 0 : tensor<32x72xf16> -> tensor<16x72xf16>
      %m = block.matmul %xt, %wt : tensor<128x16xf16>, tensor<16x72xf16>
      block.yield %m : tensor<128x72xf16>
    }
    block.store %acc, %out0 omap <> : tensor<128x72xf16> into tensor<128x72xf16>
    block.return
  }
  return %o : tensor<128x72xf16>
}

// In the PTX of @guarded, no shared-memory store comes between the first
// mma.sync and the wait for all copies that follows the loop; the stores of
// the result tile (f16 pairs, packed) come after it.
// PTX-LABEL: .entry guarded_kernel0(
// PTX-NOT: st.shared
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT: st.shared
// PTX: cp.async.wait_group 0;
// PTX: cvt.rn.f16x2.f32
// PTX: st.shared
// PTX-LABEL: .entry read_twice_kernel0(
