// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-launch-plan | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// A GPU host function writes each result buffer with a launch. A result that
// is an argument, a view of one, or the same tensor as an earlier result is
// written by a copy kernel (an identity transpose, one element per thread),
// as Mirage-style graphs that mark one tensor as two outputs need.

// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[X:.*]]: memref<64x128xf16>, %[[R0:.*]]: memref<64x1xf16> {mlsopt.result_index = 0 : i64}, %[[R1:.*]]: memref<64x1xf16> {mlsopt.result_index = 1 : i64}, %[[R2:.*]]: memref<64x128xf16> {mlsopt.result_index = 2 : i64}, %[[R3:.*]]: memref<8192xf16> {mlsopt.result_index = 3 : i64})
// CHECK: gpu.launch_func @mlsopt_kernels::@copies_kernel0 {{.*}} args(%[[X]] : memref<64x128xf16>, %[[R0]] : memref<64x1xf16>)
// CHECK: gpu.launch_func @mlsopt_kernels::@copies_kernel1 {{.*}} args(%[[R0]] : memref<64x1xf16>, %[[R1]] : memref<64x1xf16>)
// CHECK: gpu.launch_func @mlsopt_kernels::@copies_kernel2 {{.*}} args(%[[X]] : memref<64x128xf16>, %[[R2]] : memref<64x128xf16>)
// CHECK: %[[V:.*]] = memref.collapse_shape %[[X]] {{\[}}[0, 1]]
// CHECK: gpu.launch_func @mlsopt_kernels::@copies_kernel3 {{.*}} args(%[[V]] : memref<8192xf16>, %[[R3]] : memref<8192xf16>)
// CHECK-NEXT: return

// PLAN: "kernel": "copies_kernel3"
// PLAN-NEXT: "grid": [
// PLAN-NEXT: 32,

func.func @copies(%x: tensor<64x128xf16>) -> (tensor<64x1xf16>, tensor<64x1xf16>, tensor<64x128xf16>, tensor<8192xf16>) {
  %r = kernel.custom (%x) grid <64, 1, 1> block <128, 1, 1>
      : (tensor<64x128xf16>) -> tensor<64x1xf16> {
  ^bb0(%in0: tensor<64x128xf16>, %out0: tensor<64x1xf16>):
    %s = block.for_loop 1 iterations accumulate (sum) : tensor<1x1xf16> {
      %t = block.load %in0 imap <x = 0> : tensor<64x128xf16> -> tensor<1x128xf16>
      %u = block.reduce_sum %t dim 1 : tensor<1x128xf16>
      block.yield %u : tensor<1x1xf16>
    }
    block.store %s, %out0 omap <x = 0> : tensor<1x1xf16> into tensor<64x1xf16>
    block.return
  }
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<64x128xf16> into tensor<8192xf16>
  return %r, %r, %x, %c : tensor<64x1xf16>, tensor<64x1xf16>, tensor<64x128xf16>, tensor<8192xf16>
}
