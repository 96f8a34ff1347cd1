// kernel.transpose (what a front end's K^T or x W^T imports to, when the
// search keeps it) runs on the GPU as a copy kernel of its own: one thread per
// result element, 256 to a block, which reads the operand at the permuted
// index. Scaled dot-product attention with K given as [b, n, d] lowers for
// sm_80 and sm_90 in f16, bf16 and f32, and ptxas accepts the PTX.
// RUN: mlsopt-opt %s --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-launch-plan | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f16.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f16.sm_90.ptx -o %t.f16.sm_90.cubin %}
// RUN: sed s/f16/bf16/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.bf16.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.bf16.sm_80.ptx -o %t.bf16.sm_80.cubin %}
// RUN: sed s/f16/f32/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f32.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f32.sm_90.ptx -o %t.f32.sm_90.cubin %}

// CHECK-LABEL: func.func @sdpa
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: memref<2x64x48xf16>, %[[K:[a-zA-Z0-9_]+]]: memref<2x80x48xf16>
// CHECK: %[[KT:.*]] = gpu.alloc () : memref<2x48x80xf16>
// CHECK: gpu.launch_func @mlsopt_kernels::@sdpa_kernel0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %{{.*}} args(%[[K]] : memref<2x80x48xf16>, %[[KT]] : memref<2x48x80xf16>)
// CHECK: gpu.launch_func @mlsopt_kernels::@sdpa_kernel1 {{.*}} args(%[[Q]] : memref<2x64x48xf16>, %[[KT]] : memref<2x48x80xf16>,
// CHECK: gpu.func @sdpa_kernel0(%[[IN:.*]]: memref<2x80x48xf16>, %[[OUT:.*]]: memref<2x48x80xf16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 30, 1, 1>}
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: scf.if
// CHECK: %[[E:.*]] = memref.load %[[IN]][%[[B:.*]], %[[N:.*]], %[[D:.*]]] : memref<2x80x48xf16>
// CHECK: memref.store %[[E]], %[[OUT]][%[[B]], %[[D]], %[[N]]] : memref<2x48x80xf16>
// CHECK: gpu.return

// PLAN: "kernel": "sdpa_kernel0",
// PLAN-NEXT: "grid": [
// PLAN-NEXT: 30,
// PLAN: "block": [
// PLAN-NEXT: 256,
// PLAN: "dynamic_shared_memory_bytes": 0,

func.func @sdpa(%q: tensor<2x64x48xf16>, %k: tensor<2x80x48xf16>, %v: tensor<2x80x48xf16>) -> tensor<2x64x48xf16> {
  %kt = kernel.transpose %k [0, 2, 1] : tensor<2x80x48xf16>
  %s = kernel.matmul %q, %kt : tensor<2x64x48xf16>, tensor<2x48x80xf16>
  %ss = kernel.mul_scalar %s, 0.14433756729740643 : tensor<2x64x80xf16>
  %m = kernel.reduce_max %ss dim 2 : tensor<2x64x80xf16>
  %d = kernel.sub %ss, %m : tensor<2x64x80xf16>, tensor<2x64x1xf16>
  %e = kernel.exp %d : tensor<2x64x80xf16>
  %sum = kernel.reduce_sum %e dim 2 : tensor<2x64x80xf16>
  %p = kernel.div %e, %sum : tensor<2x64x80xf16>, tensor<2x64x1xf16>
  %o = kernel.matmul %p, %v : tensor<2x64x80xf16>, tensor<2x80x48xf16>
  return %o : tensor<2x64x48xf16>
}
