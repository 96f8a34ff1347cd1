// RUN: mlsopt-opt %s --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_80 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-launch-plan | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// The data movement a front end writes between kernel ops, which the import
// keeps as it is, runs as copy kernels (one element per thread): a static
// tensor.extract_slice (the halves of a rotary embedding, a strided or
// rank-reducing slice) and a linalg.broadcast on tensors (repeat_kv). The
// broadcast's init is a shape only: no buffer, no kernel argument.

// CHECK-LABEL: func.func @rotate_half
// CHECK-SAME: (%[[Q:.*]]: memref<8x64xf16>, %[[R:.*]]: memref<8x64xf16> {mlsopt.result_index = 0 : i64})
// CHECK: %[[LO:.*]] = gpu.alloc () : memref<8x32xf16>
// CHECK: gpu.launch_func @mlsopt_kernels::@rotate_half_kernel0 {{.*}} args(%[[Q]] : memref<8x64xf16>, %[[LO]] : memref<8x32xf16>)
// CHECK: %[[HI:.*]] = gpu.alloc () : memref<8x32xf16>
// CHECK: gpu.launch_func @mlsopt_kernels::@rotate_half_kernel1 {{.*}} args(%[[Q]] : memref<8x64xf16>, %[[HI]] : memref<8x32xf16>)
// CHECK: %[[N:.*]] = gpu.alloc () : memref<8x32xf16>
// CHECK: gpu.launch_func @mlsopt_kernels::@rotate_half_kernel2 {{.*}} args(%[[HI]] : memref<8x32xf16>, %[[N]] : memref<8x32xf16>)
// CHECK: gpu.launch_func @mlsopt_kernels::@rotate_half_kernel3 {{.*}} args(%[[N]] : memref<8x32xf16>, %[[LO]] : memref<8x32xf16>, %[[R]] : memref<8x64xf16>)

// CHECK-LABEL: func.func @strided_and_broadcast
// CHECK-SAME: (%[[X:.*]]: memref<4x6x8xf32>, %[[K:.*]]: memref<2x16x8xf32>, %[[S:.*]]: memref<3x4xf32> {mlsopt.result_index = 0 : i64}, %[[B:.*]]: memref<2x3x16x8xf32> {mlsopt.result_index = 1 : i64})
// CHECK: %[[SL:.*]] = gpu.alloc () : memref<3x4xf32>
// CHECK: gpu.launch_func @mlsopt_kernels::@strided_and_broadcast_kernel0 {{.*}} args(%[[X]] : memref<4x6x8xf32>, %[[SL]] : memref<3x4xf32>)
// CHECK: gpu.launch_func @mlsopt_kernels::@strided_and_broadcast_kernel1 blocks in (%c3{{.*}}) {{.*}} args(%[[K]] : memref<2x16x8xf32>, %[[B]] : memref<2x3x16x8xf32>)
// CHECK: gpu.launch_func @mlsopt_kernels::@strided_and_broadcast_kernel2 {{.*}} args(%[[SL]] : memref<3x4xf32>, %[[S]] : memref<3x4xf32>)
// CHECK: return

// A function of data movement alone runs on the GPU too: its copy kernels
// (it stayed host code, and the module had no GPU binary).
// CHECK-LABEL: func.func @slice_only
// CHECK-SAME: (%[[X:.*]]: memref<8x16xf32>, %[[R:.*]]: memref<8x8xf32> {mlsopt.result_index = 0 : i64})
// CHECK: gpu.launch_func @mlsopt_kernels::@slice_only_kernel0 {{.*}} args(%[[X]] : memref<8x16xf32>, %[[R]] : memref<8x8xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK-LABEL: func.func @broadcast_only
// CHECK: gpu.launch_func @mlsopt_kernels::@broadcast_only_kernel0
// CHECK-NOT: gpu.launch_func
// CHECK: return
// So does one that returns an argument, or a reshape of one: the search
// leaves such a function of a sum over a dim of size 1, and each result
// buffer gets a copy of what it returns.
// CHECK-LABEL: func.func @returns_argument
// CHECK-SAME: (%[[X:.*]]: memref<6x10xf32>, %[[R:.*]]: memref<6x10xf32> {mlsopt.result_index = 0 : i64})
// CHECK: gpu.launch_func @mlsopt_kernels::@returns_argument_kernel0 {{.*}} args(%[[X]] : memref<6x10xf32>, %[[R]] : memref<6x10xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK-LABEL: func.func @reshape_only
// CHECK-SAME: (%[[X:.*]]: memref<7x1x5xf32>, %[[R:.*]]: memref<7x5xf32> {mlsopt.result_index = 0 : i64})
// CHECK: %[[V:.*]] = memref.collapse_shape %[[X]]
// CHECK: gpu.launch_func @mlsopt_kernels::@reshape_only_kernel0 {{.*}} args(%[[V]] : memref<7x5xf32>, %[[R]] : memref<7x5xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK: return

// The kernels read the source at offset + index * stride, a dropped dim at
// its offset, and the broadcast's input without its added dim.
// CHECK-LABEL: gpu.func @rotate_half_kernel1
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[C32]], %[[COL]] : index
// CHECK-NEXT: %[[V:.*]] = memref.load %{{.*}}[%[[ROW]], %[[J]]] : memref<8x64xf16>
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[ROW]], %[[COL]]] : memref<8x32xf16>
// CHECK-LABEL: gpu.func @strided_and_broadcast_kernel0
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[C1]], %[[ROW]] : index
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[K:.*]] = arith.muli %[[COL]], %[[C2]] : index
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[C5]], %[[K]]] : memref<4x6x8xf32>
// CHECK-LABEL: gpu.func @strided_and_broadcast_kernel1
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[B0:.*]], %[[B2:.*]], %[[B3:.*]]] : memref<2x16x8xf32>
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[B0]], %{{.*}}, %[[B2]], %[[B3]]] : memref<2x3x16x8xf32>

// PLAN-LABEL: "name": "strided_and_broadcast"
// PLAN: "kernel": "strided_and_broadcast_kernel0"
// PLAN-NEXT: "grid": [
// PLAN-NEXT: 1,
// PLAN: "kernel": "strided_and_broadcast_kernel1"
// PLAN-NEXT: "grid": [
// PLAN-NEXT: 3,

func.func @rotate_half(%q: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %lo = tensor.extract_slice %q[0, 0] [8, 32] [1, 1] : tensor<8x64xf16> to tensor<8x32xf16>
  %hi = tensor.extract_slice %q[0, 32] [8, 32] [1, 1] : tensor<8x64xf16> to tensor<8x32xf16>
  %n = kernel.neg %hi : tensor<8x32xf16>
  %r = kernel.concat %n, %lo dim 1 : tensor<8x32xf16>, tensor<8x32xf16>
  return %r : tensor<8x64xf16>
}

func.func @strided_and_broadcast(%x: tensor<4x6x8xf32>, %k: tensor<2x16x8xf32>) -> (tensor<3x4xf32>, tensor<2x3x16x8xf32>) {
  %s = tensor.extract_slice %x[1, 5, 0] [3, 1, 4] [1, 1, 2] : tensor<4x6x8xf32> to tensor<3x4xf32>
  %e = tensor.empty() : tensor<2x3x16x8xf32>
  %b = linalg.broadcast ins(%k : tensor<2x16x8xf32>) outs(%e : tensor<2x3x16x8xf32>) dimensions = [1]
  %se = kernel.exp %s : tensor<3x4xf32>
  return %se, %b : tensor<3x4xf32>, tensor<2x3x16x8xf32>
}

func.func @slice_only(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %x[0, 8] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

func.func @broadcast_only(%k: tensor<2x16x8xf32>) -> tensor<2x3x16x8xf32> {
  %e = tensor.empty() : tensor<2x3x16x8xf32>
  %b = linalg.broadcast ins(%k : tensor<2x16x8xf32>) outs(%e : tensor<2x3x16x8xf32>) dimensions = [1]
  return %b : tensor<2x3x16x8xf32>
}

func.func @returns_argument(%x: tensor<6x10xf32>) -> tensor<6x10xf32> {
  return %x : tensor<6x10xf32>
}

func.func @reshape_only(%x: tensor<7x1x5xf32>) -> tensor<7x5xf32> {
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<7x1x5xf32> into tensor<7x5xf32>
  return %c : tensor<7x5xf32>
}
