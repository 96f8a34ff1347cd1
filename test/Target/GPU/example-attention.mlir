// examples/attention.mlir lowers to PTX that ptxas accepts for sm_80 and sm_90 in
// f16, bf16 and f32 (the element type replaced throughout); f16 and bf16
// matmuls run on tensor cores as m16n8k16, f32 ones as tf32 m16n8k8 (and
// on CUDA cores with allow-tf32=false); every custom kernel and every
// pre-defined kernel op is one launch.
//
// @flash_decoding's tiles are the ones the search chose for f16 on sm_90
// (chunks of 256 keys in one tile). Its first kernel's tiles add up to
// 311808 bytes in f32, but tiles that are never live together share
// shared memory (Block/IR/SharedMemoryPlan.h): the matmul of Q and K reads
// Q, K and V's tiles (V is copied with them, before the loop body) and
// writes S, 16 KiB + 3 x 64 KiB = 212992 bytes at its peak (106496 in f16
// and bf16). That fits sm_90 (232448) in every type, and sm_80 (166912) in
// f16 and bf16 only: the f32 run for sm_80 leaves @flash_decoding out
// (%{nofd}) and checks instead that it is refused (FD-F32-SM80).
// REQUIRES: ptxas
// DEFINE: %{nofd} = sed '/^func.func @flash_decoding(/,/^}/d'
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
// RUN: %{nofd} %mlsopt_src_root/examples/attention.mlir | sed s/f16/f32/g | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.f32.sm_80.mlir
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
// RUN: sed s/f16/f32/g %mlsopt_src_root/examples/attention.mlir | not mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=FD-F32-SM80

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
// FD-F32-SM90: gpu.launch_func @mlsopt_kernels::@flash_decoding_kernel0 {{.*}} dynamic_shared_memory_size %c212992_i32
// FD-F32-SM90: gpu.launch_func @mlsopt_kernels::@flash_decoding_kernel1
// FD-F32-SM80: error: 'kernel.custom' op needs 212992 bytes of shared memory on the GPU (tiles, double buffers and f32 accumulators), more than the 166912 bytes a block of sm_80 can have
