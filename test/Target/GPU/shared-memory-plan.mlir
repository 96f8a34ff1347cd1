// The kernels of test/Conversion/CustomKernelToGPU/shared-memory-plan.mlir,
// whose tiles add up to more shared memory than sm_80's 166912 bytes a block
// (262144, 229376 and 262656) but whose live sets fit (131072, 131072 and
// 131584), lower to PTX that ptxas accepts for sm_80 and sm_90, with buffers
// shared between tiles that are never live together, results written in
// place of operands that die at them and a copy issued during the body.
// REQUIRES: ptxas
// DEFINE: %{input} = %mlsopt_src_root/test/Conversion/CustomKernelToGPU/shared-memory-plan.mlir
// RUN: mlsopt-opt %{input} --mlsopt-gpu-pipeline=chip=sm_80 -o %t.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_80.mlir -o %t.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin
// RUN: sed 's/sm_80/sm_90/' %{input} | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin
// RUN: mlsopt-translate --emit-launch-plan %t.sm_80.mlir | FileCheck %s
// RUN: mlsopt-translate --emit-launch-plan %t.sm_90.mlir | FileCheck %s

// CHECK: "kernel": "chain_kernel0"
// CHECK: "dynamic_shared_memory_bytes": 131072
// CHECK: "kernel": "loop_kernel0"
// CHECK: "dynamic_shared_memory_bytes": 131072
// CHECK: "kernel": "in_place_kernel0"
// CHECK: "dynamic_shared_memory_bytes": 131584
