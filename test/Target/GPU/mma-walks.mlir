// A matmul whose result goes to shared memory (not a sum kept in
// registers) walks k once for a group of up to 16 of a warp's fragments:
// the group's f32 accumulators are the k loop's iteration arguments, each
// k step loads every distinct A and B operand fragment of the group once,
// and the group's mma.syncs do not wait for one another. ptxas accepts the
// PTX for sm_80 and sm_90 in f16, bf16 and f32 (tf32).
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=MMA
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

// Attention scores of 32 queries and 256 keys: 2 x 32 fragments, 16 for
// each of the 4 warps. Warp w's are columns w, w + 4, ..., w + 28 of both
// rows of fragments: per k step 2 A fragments (one per row) and 8 B
// fragments (one per column) feed 16 mma.syncs, where a walk per fragment
// would load 16 of each.
// CHECK-LABEL: gpu.func @scores_kernel0
// CHECK: %[[K:.*]]:16 = scf.for %{{.*}} = %{{.*}} to %c64{{.*}} step %c16{{.*}} iter_args
// CHECK-COUNT-2: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK-NOT: nvgpu.ldmatrix %{{.*}} {numTiles = 4
// CHECK: scf.yield
// CHECK-NOT: scf.for %{{.*}} step %c16
// CHECK: gpu.barrier
// The MMA lines follow the operands: the first A fragment feeds the
// mma.syncs of the first row of fragments, the second A those of the
// second row, which take the B fragments loaded for the first.
// MMA-LABEL: gpu.func @scores_kernel0
// MMA: %[[K:.*]]:16 = scf.for %{{.*}} step %c16{{.*}} iter_args(%[[ACC0:[^ ]*]] = %{{.*}}) -> (vector<2x2xf32>
// MMA: %[[A0:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// MMA: %[[B0:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = true}
// MMA-NEXT: nvgpu.mma.sync(%[[A0]], %[[B0]], %[[ACC0]])
// MMA-COUNT-7: nvgpu.mma.sync(%[[A0]], %{{.*}}, %{{.*}})
// MMA: %[[A1:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// MMA-NEXT: nvgpu.mma.sync(%[[A1]], %[[B0]], %{{.*}})
// MMA-COUNT-7: nvgpu.mma.sync(%[[A1]], %{{.*}}, %{{.*}})
// MMA-NEXT: scf.yield
// After the loop each of the 16 fragments is stored.
// MMA: vector.extract %[[K]]#0[0, 0]
// MMA: vector.extract %[[K]]#15[1, 1]
// MMA: gpu.barrier

// bf16 takes the same walk through nvvm.mma.sync's packed registers.
// BF16-LABEL: gpu.func @scores_kernel0
// BF16: scf.for %{{.*}} step %c16{{.*}} iter_args
// BF16-COUNT-10: nvgpu.ldmatrix
// BF16-NOT: nvgpu.ldmatrix
// BF16: scf.yield

// tf32 loads its fragments element by element: 4 roundings for each of
// the 2 A fragments and 2 for each of the 8 B fragments per k step of 8.
// TF32-LABEL: gpu.func @scores_kernel0
// TF32: scf.for %{{.*}} step %c8{{.*}} iter_args
// TF32-COUNT-24: nvvm.convert.float.to.tf32
// TF32-NOT: nvvm.convert.float.to.tf32
// TF32: scf.yield
func.func @scores(%q: tensor<32x64xf16>, %k: tensor<64x256xf16>) -> tensor<32x256xf16> {
  %o = kernel.custom (%q, %k) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<32x64xf16>, tensor<64x256xf16>) -> tensor<32x256xf16> {
  ^bb0(%in0: tensor<32x64xf16>, %in1: tensor<64x256xf16>, %out0: tensor<32x256xf16>):
    %s = block.for_loop 1 iterations accumulate (sum) : tensor<32x256xf16> {
      %qt = block.load %in0 imap <> : tensor<32x64xf16> -> tensor<32x64xf16>
      %kt = block.load %in1 imap <> : tensor<64x256xf16> -> tensor<64x256xf16>
      %m = block.matmul %qt, %kt : tensor<32x64xf16>, tensor<64x256xf16>
      block.yield %m : tensor<32x256xf16>
    }
    block.store %s, %out0 omap <> : tensor<32x256xf16> into tensor<32x256xf16>
    block.return
  }
  return %o : tensor<32x256xf16>
}

// 64 rows: 4 x 32 fragments, 32 for each warp, in two walks of 16 (rows 0
// and 1 of fragments, then rows 2 and 3), each with its own 16
// accumulators and 2 + 8 operand loads per k step.
// CHECK-LABEL: gpu.func @wide_kernel0
// CHECK: scf.for %{{.*}} step %c16{{.*}} iter_args
// CHECK-COUNT-10: nvgpu.ldmatrix
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: scf.yield
// CHECK: :16 = scf.for %{{.*}} step %c16{{.*}} iter_args
// CHECK-COUNT-10: nvgpu.ldmatrix
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: scf.yield
// CHECK-NOT: scf.for %{{.*}} step %c16
// CHECK: gpu.barrier
// CHECK: gpu.return
func.func @wide(%x: tensor<64x64xf16>, %w: tensor<64x256xf16>) -> tensor<64x256xf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<64x64xf16>, tensor<64x256xf16>) -> tensor<64x256xf16> {
  ^bb0(%in0: tensor<64x64xf16>, %in1: tensor<64x256xf16>, %out0: tensor<64x256xf16>):
    %s = block.for_loop 1 iterations accumulate (sum) : tensor<64x256xf16> {
      %xt = block.load %in0 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %wt = block.load %in1 imap <> : tensor<64x256xf16> -> tensor<64x256xf16>
      %m = block.matmul %xt, %wt : tensor<64x64xf16>, tensor<64x256xf16>
      block.yield %m : tensor<64x256xf16>
    }
    block.store %s, %out0 omap <> : tensor<64x256xf16> into tensor<64x256xf16>
    block.return
  }
  return %o : tensor<64x256xf16>
}

// The PTX of a k step: 16 mma.syncs after 10 ldmatrix.
// PTX-LABEL: .entry scores_kernel0(
// PTX-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT: mma.sync
// PTX: bar.sync
