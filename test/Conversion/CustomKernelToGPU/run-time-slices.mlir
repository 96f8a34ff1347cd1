// A row read at a run-time position (a rank-reducing tensor.extract_slice
// at `%n`, an index argument) is a kernel of its own: each thread computes
// the offset from the argument's 0-d buffer, clamped into the tensor (a
// position past the last row reads the last row), then loads its element.
// A function that writes a row into a cache at a run-time position and
// does nothing else is data movement, which the GPU runs too.
// python/tests/test_ptx_emulator.py (row_at_position_f32, cache_update_f32)
// runs both to the CPU pipeline's numbers; the invalid cases are in
// invalid.mlir.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_90 2>/dev/null | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 2>/dev/null | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// CHECK-LABEL: func.func @row_at(
// CHECK-SAME: %[[X:arg0]]: memref<16x64xf32>, %[[N:arg1]]: memref<i64>
// CHECK: gpu.launch_func @mlsopt_kernels::@row_at_kernel0 blocks in (%c1{{.*}}) threads in (%c256{{.*}}) {{.*}}args(%[[X]] : memref<16x64xf32>, %[[N]] : memref<i64>, %[[ROW:.*]] : memref<64xf32>)
// CHECK: gpu.launch_func @mlsopt_kernels::@row_at_kernel1 {{.*}}args(%[[ROW]] : memref<64xf32>,

// A function that only writes a row into a cache at a run-time position
// (an i64 argument) is data movement, which the GPU runs too: one launch.
// CHECK-LABEL: func.func @update(
// CHECK-SAME: %[[C:arg0]]: memref<64x32xf32>, %[[K:arg1]]: memref<1x32xf32>, %[[P:arg2]]: memref<i64>, %[[R:arg3]]: memref<64x32xf32> {mlsopt.result_index = 0 : i64}
// CHECK: gpu.launch_func @mlsopt_kernels::@update_kernel0 {{.*}}args(%[[K]] : memref<1x32xf32>, %[[C]] : memref<64x32xf32>, %[[P]] : memref<i64>, %[[R]] : memref<64x32xf32>)
// CHECK-NOT: gpu.launch_func
// The read kernel (the gpu.module follows the host functions).
// CHECK: gpu.func @row_at_kernel0(%[[XA:.*]]: memref<16x64xf32>, %[[NA:.*]]: memref<i64>, %[[OUT:.*]]: memref<64xf32>) kernel
// CHECK: %[[P:.*]] = memref.load %[[NA]][] : memref<i64>
// CHECK: %[[I:.*]] = arith.index_cast %[[P]] : i64 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[I]], %{{.*}} : index
// CHECK: %[[OFF:.*]] = arith.minsi %[[LO]], %c15{{.*}} : index
// CHECK: %[[V:.*]] = memref.load %[[XA]][%[[OFF]], %{{.*}}] : memref<16x64xf32>
// CHECK: memref.store %[[V]], %[[OUT]]
func.func @row_at(%x: tensor<16x64xf32>, %n: index) -> tensor<64xf32> {
  %s = tensor.extract_slice %x[%n, 0] [1, 64] [1, 1] : tensor<16x64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.exp ins(%s : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

func.func @update(%cache: tensor<64x32xf32>, %k: tensor<1x32xf32>, %pos: i64) -> tensor<64x32xf32> {
  %p = arith.index_cast %pos : i64 to index
  %c = tensor.insert_slice %k into %cache[%p, 0] [1, 32] [1, 1] : tensor<1x32xf32> into tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
