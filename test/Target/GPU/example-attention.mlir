// examples/attention.mlir lowers to PTX that ptxas accepts for sm_80 and sm_90 in
// f16, bf16 and f32 (the element type replaced throughout); f16 and bf16
// matmuls run on tensor cores as m16n8k16, f32 ones as tf32 m16n8k8 (and
// on CUDA cores with allow-tf32=false); every custom kernel and every
// pre-defined kernel op is one launch.
//
// @flash_decoding's tiles are the ones the search chose for f16 on sm_90
// (chunks of 256 keys in one tile). Its first kernel's tiles add up to
// 311808 bytes in f32, but tiles that are never live together share
// shared memory (Block/IR/SharedMemoryPlan.h). Its one-iteration loop
// copies V while exp(S) computes, not before the loop body (V's first
// reader is the second matmul), and exp(S) is written in place of S: at
// most Q, K and S (the first matmul) or V, exp(S) and their product (the
// second) are live, 2 x 64 KiB + 16 KiB = 147456 bytes in f32 (73728 in
// f16 and bf16; with V copied up front and exp(S) beside S it was 212992,
// Q, K, V and S during the first matmul). So it lowers for sm_80 (166912) in every type too; FD-F32-SM80
// checks its launch, FD-PTX where V's copy is issued and waited for.
// REQUIRES: ptxas
// RUN: mlsopt-opt %mlsopt_src_root/examples/attention.mlir --mlsopt-gpu-pipeline=chip=sm_80 -o %t.f16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.f16.sm_80.mlir -o %t.f16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.f16.sm_80.ptx -o %t.f16.sm_80.cubin
// RUN: FileCheck %s --check-prefixes=PTX,TC < %t.f16.sm_80.ptx
// RUN: mlsopt-opt %mlsopt_src_root/examples/attention.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.f16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.f16.sm_90.mlir -o %t.f16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.f16.sm_90.ptx -o %t.f16.sm_90.cubin
// RUN: FileCheck %s --check-prefixes=PTX,TC < %t.f16.sm_90.ptx
// RUN: sed s/f16/bf16/g %mlsopt_src_root/examples/attention.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.bf16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.bf16.sm_80.mlir -o %t.bf16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.bf16.sm_80.ptx -o %t.bf16.sm_80.cubin
// RUN: FileCheck %s --check-prefixes=PTX,TC < %t.bf16.sm_80.ptx
// RUN: sed s/f16/bf16/g %mlsopt_src_root/examples/attention.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.bf16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.bf16.sm_90.mlir -o %t.bf16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.bf16.sm_90.ptx -o %t.bf16.sm_90.cubin
// RUN: FileCheck %s --check-prefixes=PTX,TC < %t.bf16.sm_90.ptx
// RUN: sed s/f16/f32/g %mlsopt_src_root/examples/attention.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.f32.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.f32.sm_80.mlir -o %t.f32.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.f32.sm_80.ptx -o %t.f32.sm_80.cubin
// RUN: FileCheck %s --check-prefixes=PTX,F32 < %t.f32.sm_80.ptx
// RUN: sed s/f16/f32/g %mlsopt_src_root/examples/attention.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.f32.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.f32.sm_90.mlir -o %t.f32.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.f32.sm_90.ptx -o %t.f32.sm_90.cubin
// RUN: FileCheck %s --check-prefixes=PTX,F32 < %t.f32.sm_90.ptx
// RUN: FileCheck %s --check-prefix=LAUNCH < %t.f16.sm_90.mlir
// RUN: FileCheck %s --check-prefix=LAUNCH80 < %t.f16.sm_80.mlir
// RUN: FileCheck %s --check-prefix=FD-F32-SM90 < %t.f32.sm_90.mlir
// RUN: FileCheck %s --check-prefix=FD-F32-SM80 < %t.f32.sm_80.mlir
// RUN: FileCheck %s --check-prefix=FD-PTX < %t.f32.sm_80.ptx

// Dynamic shared memory is a module-scope extern array (not a demoted
// one-byte variable); tiles arrive by 16-byte cp.async.
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group
// TC: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// TC: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// TC: mma.sync.aligned.m16n8k16.row.col.f32.{{b?f16}}.{{b?f16}}.f32
// F32: cvt.rna.tf32.f32
// F32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX: st.global.v4

// LAUNCH-LABEL: func.func @reference(
// LAUNCH: gpu.launch_func
// LAUNCH: gpu.launch_func
// LAUNCH: gpu.launch_func
// LAUNCH: gpu.launch_func
// LAUNCH: gpu.launch_func
// LAUNCH-NOT: gpu.launch_func
// LAUNCH: return
// LAUNCH-LABEL: func.func @fused(
// LAUNCH: gpu.launch_func
// LAUNCH-NOT: gpu.launch_func
// LAUNCH: return
// LAUNCH-LABEL: func.func @fused_online_softmax(
// LAUNCH: gpu.launch_func
// LAUNCH-NOT: gpu.launch_func
// LAUNCH: return
// The chunks' partials, then the kernel that combines them.
// On sm_80 too, @flash_decoding is its two kernels.
// LAUNCH80-LABEL: func.func @flash_decoding(
// LAUNCH80: gpu.launch_func
// LAUNCH80: gpu.launch_func
// LAUNCH80-NOT: gpu.launch_func
// LAUNCH80: return

// LAUNCH-LABEL: func.func @flash_decoding(
// LAUNCH: gpu.launch_func
// LAUNCH: gpu.launch_func
// LAUNCH-NOT: gpu.launch_func
// LAUNCH: return
// LAUNCH: gpu.binary @mlsopt_kernels

// FD-F32-SM90-LABEL: func.func @flash_decoding(
// FD-F32-SM90: gpu.launch_func @mlsopt_kernels::@flash_decoding_kernel0 {{.*}} dynamic_shared_memory_size %c150528_i32
// FD-F32-SM90: gpu.launch_func @mlsopt_kernels::@flash_decoding_kernel1

// FD-F32-SM80-LABEL: func.func @flash_decoding(
// FD-F32-SM80: gpu.launch_func @mlsopt_kernels::@flash_decoding_kernel0 {{.*}} dynamic_shared_memory_size %c150528_i32
// FD-F32-SM80: gpu.launch_func @mlsopt_kernels::@flash_decoding_kernel1
// The prologue copies Q and K and waits for them at the top of the loop; V
// is copied after the first matmul, while exp(S) computes, and waited for
// before the barrier that ends exp(S), ahead of the second matmul.
// FD-PTX-LABEL: .entry flash_decoding_kernel0(
// FD-PTX: cp.async.commit_group;
// FD-PTX-NEXT: cp.async.wait_group 0;
// FD-PTX-NEXT: bar.sync 0;
// FD-PTX: mma.sync.aligned.m16n8k8
// FD-PTX: bar.sync 0;
// FD-PTX: cp.async.cg.shared.global
// FD-PTX: cp.async.commit_group;
// FD-PTX: ex2.approx
// FD-PTX: cp.async.wait_group 0;
// FD-PTX-NEXT: bar.sync 0;
// FD-PTX: mma.sync.aligned.m16n8k8
// FD-PTX: .entry
