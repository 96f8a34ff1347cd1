// examples/gated_mlp.mlir lowers to PTX that ptxas accepts for sm_80 and sm_90 in
// f16, bf16 and f32 (the element type replaced throughout); f16 and bf16
// matmuls run on tensor cores as m16n8k16, f32 ones as tf32 m16n8k8 (and
// on CUDA cores with allow-tf32=false); every custom kernel and every
// pre-defined kernel op is one launch.
// REQUIRES: ptxas
// RUN: mlsopt-opt %mlsopt_src_root/examples/gated_mlp.mlir --mlsopt-gpu-pipeline=chip=sm_80 -o %t.f16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.f16.sm_80.mlir -o %t.f16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.f16.sm_80.ptx -o %t.f16.sm_80.cubin
// RUN: FileCheck %s --check-prefixes=PTX,TC < %t.f16.sm_80.ptx
// RUN: mlsopt-opt %mlsopt_src_root/examples/gated_mlp.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.f16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.f16.sm_90.mlir -o %t.f16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.f16.sm_90.ptx -o %t.f16.sm_90.cubin
// RUN: FileCheck %s --check-prefixes=PTX,TC < %t.f16.sm_90.ptx
// RUN: sed s/f16/bf16/g %mlsopt_src_root/examples/gated_mlp.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.bf16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.bf16.sm_80.mlir -o %t.bf16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.bf16.sm_80.ptx -o %t.bf16.sm_80.cubin
// RUN: FileCheck %s --check-prefixes=PTX,TC < %t.bf16.sm_80.ptx
// RUN: sed s/f16/bf16/g %mlsopt_src_root/examples/gated_mlp.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.bf16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.bf16.sm_90.mlir -o %t.bf16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.bf16.sm_90.ptx -o %t.bf16.sm_90.cubin
// RUN: FileCheck %s --check-prefixes=PTX,TC < %t.bf16.sm_90.ptx
// RUN: sed s/f16/f32/g %mlsopt_src_root/examples/gated_mlp.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.f32.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.f32.sm_80.mlir -o %t.f32.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.f32.sm_80.ptx -o %t.f32.sm_80.cubin
// RUN: FileCheck %s --check-prefixes=PTX,F32 < %t.f32.sm_80.ptx
// RUN: sed s/f16/f32/g %mlsopt_src_root/examples/gated_mlp.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.f32.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.f32.sm_90.mlir -o %t.f32.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.f32.sm_90.ptx -o %t.f32.sm_90.cubin
// RUN: FileCheck %s --check-prefixes=PTX,F32 < %t.f32.sm_90.ptx
// RUN: FileCheck %s --check-prefix=LAUNCH < %t.f16.sm_90.mlir
// With allow-tf32=false, f32 matmuls stay exact: FMA loops, no mma.sync.
// RUN: sed s/f16/f32/g %mlsopt_src_root/examples/gated_mlp.mlir | mlsopt-opt --mlsopt-gpu-pipeline="chip=sm_90 allow-tf32=false" -o %t.exact.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.exact.sm_90.mlir -o %t.exact.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.exact.sm_90.ptx -o %t.exact.sm_90.cubin
// RUN: FileCheck %s --check-prefix=PTX --implicit-check-not=mma.sync --implicit-check-not=cvt.rna.tf32 < %t.exact.sm_90.ptx

// Dynamic shared memory is a module-scope extern array (not a demoted
// one-byte variable); tiles arrive by 16-byte cp.async.
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group
// The weight tiles, read only by tensor cores, are XOR-swizzled: the xors
// of the chunk indices come before the for-loop, since a warp keeps its
// fragments (so its addresses in each tile) across the iterations.
// TC: xor.b{{32|64}}
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
// LAUNCH-NOT: gpu.launch_func
// LAUNCH: return
// LAUNCH-LABEL: func.func @fused(
// LAUNCH: gpu.launch_func
// LAUNCH-NOT: gpu.launch_func
// LAUNCH: return
// LAUNCH: gpu.binary @mlsopt_kernels
