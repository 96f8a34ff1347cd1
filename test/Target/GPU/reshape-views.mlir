// Reshapes at the top level of a host function (what an imported reduction
// whose linalg result drops the reduced dim leaves) are views of one buffer:
// no launch and no copy. A returned view makes its source's kernel write
// straight into the result buffer, viewed with the source's shape; a view
// read by a kernel passes the buffer it views, which stays allocated until
// the view's last reader. The launch plan names the viewed buffer.
// RUN: mlsopt-opt %s --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-launch-plan | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// CHECK-LABEL: func.func @row_sums
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<32x96xf32>, %[[E:[a-zA-Z0-9_]+]]: memref<32x96xf32> {mlsopt.result_index = 0 : i64}, %[[C:[a-zA-Z0-9_]+]]: memref<32xf32> {mlsopt.result_index = 1 : i64})
// CHECK-NOT: gpu.alloc
// CHECK: %[[S:.*]] = memref.expand_shape %[[C]] {{\[\[}}0, 1]] output_shape [32, 1] : memref<32xf32> into memref<32x1xf32>
// CHECK-NOT: gpu.alloc
// CHECK: gpu.launch_func @mlsopt_kernels::@row_sums_kernel0 {{.*}} args(%[[X]] : memref<32x96xf32>, %[[E]] : memref<32x96xf32>)
// CHECK: gpu.launch_func @mlsopt_kernels::@row_sums_kernel1 {{.*}} args(%[[E]] : memref<32x96xf32>, %[[S]] : memref<32x1xf32>)
// CHECK-NOT: gpu.dealloc
// CHECK: return
func.func @row_sums(%x: tensor<32x96xf32>) -> (tensor<32x96xf32>, tensor<32xf32>) {
  %e = kernel.exp %x : tensor<32x96xf32>
  %s = kernel.reduce_sum %e dim 1 : tensor<32x96xf32>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<32x1xf32> into tensor<32xf32>
  return %e, %c : tensor<32x96xf32>, tensor<32xf32>
}

// CHECK-LABEL: func.func @centered
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<96x48xf32>, %[[R:[a-zA-Z0-9_]+]]: memref<96x48xf32> {mlsopt.result_index = 0 : i64})
// CHECK: %[[B:.*]] = gpu.alloc () : memref<1x48xf32>
// CHECK: gpu.launch_func @mlsopt_kernels::@centered_kernel0 {{.*}} args(%[[X]] : memref<96x48xf32>, %[[B]] : memref<1x48xf32>)
// CHECK: %[[V:.*]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1]] : memref<1x48xf32> into memref<48xf32>
// CHECK: gpu.launch_func @mlsopt_kernels::@centered_kernel1 {{.*}} args(%[[X]] : memref<96x48xf32>, %[[V]] : memref<48xf32>, %[[R]] : memref<96x48xf32>)
// CHECK-NEXT: gpu.dealloc %[[B]] : memref<1x48xf32>
// CHECK-NEXT: return
func.func @centered(%x: tensor<96x48xf32>) -> tensor<96x48xf32> {
  %s = kernel.reduce_sum %x dim 0 : tensor<96x48xf32>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<1x48xf32> into tensor<48xf32>
  %r = kernel.sub %x, %c : tensor<96x48xf32>, tensor<48xf32>
  return %r : tensor<96x48xf32>
}

// PLAN: "name": "row_sums",
// PLAN: "kernel": "row_sums_kernel1",
// PLAN: "args": [
// PLAN: "kind": "argument",
// PLAN-NEXT: "index": 1,
// PLAN: "kind": "argument",
// PLAN-NEXT: "index": 2,
// PLAN-NEXT: "shape": [
// PLAN-NEXT: 32,
// PLAN-NEXT: 1
// PLAN: "name": "centered",
// PLAN: "buffers": [
// PLAN-NEXT: {
// PLAN-NEXT: "id": 0,
// PLAN: "kernel": "centered_kernel1",
// PLAN: "kind": "buffer",
// PLAN-NEXT: "id": 0,
// PLAN-NEXT: "shape": [
// PLAN-NEXT: 48
// PLAN-NEXT: ],
