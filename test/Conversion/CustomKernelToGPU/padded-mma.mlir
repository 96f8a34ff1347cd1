// Matmul tiles whose n is not a multiple of 8 or whose k is not one of the
// k step (16 in f16 and bf16, 8 for tf32) still run on tensor cores: their
// fragments are padded. Each lane loads its fragment elements one by one
// (ldmatrix needs 16-byte rows), k past its end as zeros from a clamped
// address, columns past n clamped (like rows past m) and not stored.
// RUN: mlsopt-opt %s --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// RUN: sed s/f16/bf16/g %s | mlsopt-opt --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=BF16
// RUN: sed s/f16/f32/g %s | mlsopt-opt --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=TF32
// RUN: sed s/f16/f32/g %s | mlsopt-opt --convert-kernel-to-custom --convert-custom-kernel-to-gpu="chip=sm_80 allow-tf32=false" | FileCheck %s --check-prefix=EXACT
// RUN: %if ptxas %{ mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.f16.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f16.sm_80.ptx -o %t.f16.sm_80.cubin %}
// RUN: %if ptxas %{ mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f16.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f16.sm_90.ptx -o %t.f16.sm_90.cubin %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTX < %t.f16.sm_90.ptx %}
// RUN: %if ptxas %{ sed s/f16/bf16/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.bf16.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.bf16.sm_80.ptx -o %t.bf16.sm_80.cubin %}
// RUN: %if ptxas %{ sed s/f16/bf16/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.bf16.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.bf16.sm_90.ptx -o %t.bf16.sm_90.cubin %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTXBF16 < %t.bf16.sm_90.ptx %}
// RUN: %if ptxas %{ sed s/f16/f32/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.f32.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f32.sm_80.ptx -o %t.f32.sm_80.cubin %}
// RUN: %if ptxas %{ sed s/f16/f32/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f32.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f32.sm_90.ptx -o %t.f32.sm_90.cubin %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTXTF32 < %t.f32.sm_90.ptx %}
// The block graphs themselves are plain: the same numbers as the kernel ops.
// RUN: mlsopt-opt %s --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// 100 columns and k = 40: no ldmatrix. A's rows are clamped to 31 and its
// k to 39 with a zero select past 40, B's columns clamped to 99; the
// fragment's 8 A and 4 B elements make the mma's operands, and a column
// past 99 is not stored.
// CHECK-LABEL: gpu.func @odd_n_and_k_kernel0
// CHECK-NOT: nvgpu.ldmatrix
// CHECK-DAG: arith.minui %{{.*}}, %c31
// CHECK-DAG: arith.minui %{{.*}}, %c99
// CHECK-DAG: %[[INK:.*]] = arith.cmpi ult, %{{.*}}, %c40
// CHECK-DAG: arith.minui %{{.*}}, %c39
// CHECK-DAG: arith.select %[[INK]], %{{.*}}, %{{.*}} : f16
// CHECK: %[[A:.*]] = vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK: nvgpu.mma.sync(%[[A]], %[[B]], %{{.*}}) {mmaShape = [16, 8, 16]}
// CHECK: %[[COL:.*]] = arith.cmpi ule, %{{.*}}, %c99
// CHECK: scf.if %[[COL]]
// CHECK: memref.store
// CHECK: gpu.return
// BF16-LABEL: gpu.func @odd_n_and_k_kernel0
// BF16-NOT: nvgpu.ldmatrix
// BF16: vector.from_elements {{.*}} : vector<4x2xbf16>
// BF16: nvvm.mma.sync
// BF16-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
// k = 40 is 5 whole k steps of tf32: only the columns are clamped.
// TF32-LABEL: gpu.func @odd_n_and_k_kernel0
// TF32-NOT: arith.cmpi ult, %{{.*}}, %c40
// TF32: arith.minui %{{.*}}, %c99
// TF32: nvvm.mma.sync
// TF32-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 8>
// TF32-LABEL: gpu.func @register_sum_kernel0
// TF32: %[[INK:.*]] = arith.cmpi ult, %{{.*}}, %c20
// TF32: arith.select %[[INK]], %{{.*}}, %{{.*}} : f32
// TF32: nvvm.mma.sync
// EXACT-LABEL: gpu.func @odd_n_and_k_kernel0
// EXACT-NOT: nvvm.mma.sync
// EXACT: gpu.return
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTXBF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTXTF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// VERIFY: remark: @odd_n_and_k is equivalent to @odd_n_and_k_reference
func.func @odd_n_and_k(%x: tensor<64x40xf16>, %w: tensor<40x100xf16>) -> tensor<64x100xf16>
    attributes {mlsopt.equivalent_to = @odd_n_and_k_reference} {
  %o = kernel.custom (%x, %w) grid <2, 1, 1> block <128, 1, 1>
      : (tensor<64x40xf16>, tensor<40x100xf16>) -> tensor<64x100xf16> {
  ^bb0(%in0: tensor<64x40xf16>, %in1: tensor<40x100xf16>, %out0: tensor<64x100xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<32x100xf32> {
      %xt = block.load %in0 imap <x = 0> : tensor<64x40xf16> -> tensor<32x40xf16>
      %wt = block.load %in1 imap <> : tensor<40x100xf16> -> tensor<40x100xf16>
      %m = block.matmul %xt, %wt : tensor<32x40xf16>, tensor<40x100xf16> -> tensor<32x100xf32>
      block.yield %m : tensor<32x100xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<32x100xf32> into tensor<64x100xf16>
    block.return
  }
  return %o : tensor<64x100xf16>
}
func.func @odd_n_and_k_reference(%x: tensor<64x40xf16>, %w: tensor<40x100xf16>) -> tensor<64x100xf16> {
  %o = kernel.matmul %x, %w : tensor<64x40xf16>, tensor<40x100xf16>
  return %o : tensor<64x100xf16>
}

// A sum over 4 iterations of 20-long k chunks stays in registers: the
// padded mma steps accumulate into the loop's iteration arguments (2 k
// steps of 16 per iteration, the second half zeros).
// CHECK-LABEL: gpu.func @register_sum_kernel0
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>)
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: arith.cmpi ult, %{{.*}}, %c20
// CHECK: nvgpu.mma.sync
// CHECK: gpu.return
// VERIFY: remark: @register_sum is equivalent to @register_sum_reference
func.func @register_sum(%x: tensor<16x80xf16>, %w: tensor<80x24xf16>) -> tensor<16x24xf16>
    attributes {mlsopt.equivalent_to = @register_sum_reference} {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<16x80xf16>, tensor<80x24xf16>) -> tensor<16x24xf16> {
  ^bb0(%in0: tensor<16x80xf16>, %in1: tensor<80x24xf16>, %out0: tensor<16x24xf16>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<16x24xf32> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<16x80xf16> -> tensor<16x20xf16>
      %wt = block.load %in1 imap <> fmap 0 : tensor<80x24xf16> -> tensor<20x24xf16>
      %m = block.matmul %xt, %wt : tensor<16x20xf16>, tensor<20x24xf16> -> tensor<16x24xf32>
      block.yield %m : tensor<16x24xf32>
    }
    block.store %acc, %out0 omap <> : tensor<16x24xf32> into tensor<16x24xf16>
    block.return
  }
  return %o : tensor<16x24xf16>
}
func.func @register_sum_reference(%x: tensor<16x80xf16>, %w: tensor<80x24xf16>) -> tensor<16x24xf16> {
  %o = kernel.matmul %x, %w : tensor<16x80xf16>, tensor<80x24xf16>
  return %o : tensor<16x24xf16>
}

// Attention scores over 37 keys read through a transposed view of the
// 37 x 64 key tile: the B elements come from the view's source at (n, k),
// n clamped to 36; no column past 36 is stored.
// CHECK-LABEL: gpu.func @scores_kernel0
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: arith.minui %{{.*}}, %c36
// CHECK: nvgpu.mma.sync
// CHECK: arith.cmpi ule, %{{.*}}, %c36
// CHECK: gpu.return
// VERIFY: remark: @scores is equivalent to @scores_reference
func.func @scores(%q: tensor<32x64xf16>, %k: tensor<37x64xf16>) -> tensor<32x37xf16>
    attributes {mlsopt.equivalent_to = @scores_reference} {
  %o = kernel.custom (%q, %k) grid <2, 1, 1> block <128, 1, 1>
      : (tensor<32x64xf16>, tensor<37x64xf16>) -> tensor<32x37xf16> {
  ^bb0(%in0: tensor<32x64xf16>, %in1: tensor<37x64xf16>, %out0: tensor<32x37xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<16x37xf32> {
      %qt = block.load %in0 imap <x = 0> : tensor<32x64xf16> -> tensor<16x64xf16>
      %kt = block.load %in1 imap <> : tensor<37x64xf16> -> tensor<37x64xf16>
      %ktt = block.transpose %kt [1, 0] : tensor<37x64xf16>
      %s = block.matmul %qt, %ktt : tensor<16x64xf16>, tensor<64x37xf16> -> tensor<16x37xf32>
      block.yield %s : tensor<16x37xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<16x37xf32> into tensor<32x37xf16>
    block.return
  }
  return %o : tensor<32x37xf16>
}
func.func @scores_reference(%q: tensor<32x64xf16>, %k: tensor<37x64xf16>) -> tensor<32x37xf16> {
  %t = kernel.transpose %k [1, 0] : tensor<37x64xf16>
  %o = kernel.matmul %q, %t : tensor<32x64xf16>, tensor<64x37xf16>
  return %o : tensor<32x37xf16>
}
