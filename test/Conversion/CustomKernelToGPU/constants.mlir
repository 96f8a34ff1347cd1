// RUN: mlsopt-opt %s --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_90 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.mlir
// RUN: mlsopt-translate --emit-launch-plan %t.mlir | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-translate --emit-ptx %t.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// A weight a front end inlined as a dense constant is a device buffer: the
// host function copies it from a constant memref.global before the first
// launch and frees it after the last reader; the launch plan gives its bytes
// (base64, as the device holds them). A constant returned as a result is
// copied into the result buffer by a copy kernel, as an argument is.

// CHECK-DAG: memref.global "private" constant @weight_constant : memref<3x2xf32> = dense<{{\[\[}}5.000000e-01, -1.000000e+00], [2.000000e+00, 2.500000e-01], [-7.500000e-01, 1.500000e+00]]> {alignment = 16 : i64}
// CHECK-DAG: memref.global "private" constant @weight_constant_0 : memref<5x2xf32> = dense<2.000000e+00> {alignment = 16 : i64}
// CHECK-DAG: memref.global "private" constant @constant_only_constant : memref<3x3xf32> = dense<2.500000e+00> {alignment = 16 : i64}
// CHECK-LABEL: func.func @weight(
// CHECK-SAME: %[[X:.*]]: memref<5x3xf32>, %[[R0:.*]]: memref<5x2xf32> {mlsopt.result_index = 0 : i64}, %[[R1:.*]]: memref<5x2xf32> {mlsopt.result_index = 1 : i64})
// CHECK: %[[W:.*]] = memref.get_global @weight_constant : memref<3x2xf32>
// CHECK: %[[DW:.*]] = gpu.alloc () : memref<3x2xf32>
// CHECK: gpu.memcpy %[[DW]], %[[W]] : memref<3x2xf32>, memref<3x2xf32>
// CHECK: %[[T:.*]] = memref.get_global @weight_constant_0 : memref<5x2xf32>
// CHECK: %[[DT:.*]] = gpu.alloc () : memref<5x2xf32>
// CHECK: gpu.memcpy %[[DT]], %[[T]]
// CHECK: gpu.launch_func @mlsopt_kernels::@weight_kernel0 {{.*}} args(%[[X]] : memref<5x3xf32>, %[[DW]] : memref<3x2xf32>, %[[R0]] : memref<5x2xf32>)
// CHECK-NEXT: gpu.dealloc %[[DW]]
// CHECK: gpu.launch_func @mlsopt_kernels::@weight_kernel1 {{.*}} args(%[[DT]] : memref<5x2xf32>, %[[R1]] : memref<5x2xf32>)
// CHECK-NEXT: gpu.dealloc %[[DT]]

// PLAN: "buffers": [
// PLAN: "shape": [
// PLAN-NEXT: 3,
// PLAN-NEXT: 2
// PLAN: "initializer": "AAAAPwAAgL8AAABAAACAPgAAQL8AAMA/"
// PLAN: "shape": [
// PLAN-NEXT: 5,
// PLAN-NEXT: 2
// PLAN: "initializer": "AAAAQAAAAEAAAABAAAAAQAAAAEAAAABAAAAAQAAAAEAAAABAAAAAQA=="
// PLAN: "launches": [
// PLAN: "name": "constant_only"
// PLAN: "initializer": "AAAgQAAAIEAAACBAAAAgQAAAIEAAACBAAAAgQAAAIEAAACBA"
// PLAN: "kernel": "constant_only_kernel0"

func.func @weight(%x: tensor<5x3xf32>) -> (tensor<5x2xf32>, tensor<5x2xf32>) {
  %w = arith.constant dense<[[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]]> : tensor<3x2xf32>
  %two = arith.constant dense<2.0> : tensor<5x2xf32>
  %m = kernel.matmul %x, %w : tensor<5x3xf32>, tensor<3x2xf32>
  return %m, %two : tensor<5x2xf32>, tensor<5x2xf32>
}

// A function that only returns a constant (a linalg.fill of one, folded) is
// lowered too, not left as tensor code with no GPU binary.
// CHECK-LABEL: func.func @constant_only(
// CHECK-SAME: %{{.*}}: memref<3x3xf32>, %[[R:.*]]: memref<3x3xf32> {mlsopt.result_index = 0 : i64})
// CHECK: %[[C:.*]] = memref.get_global @constant_only_constant
// CHECK: %[[DC:.*]] = gpu.alloc () : memref<3x3xf32>
// CHECK: gpu.memcpy %[[DC]], %[[C]]
// CHECK: gpu.launch_func @mlsopt_kernels::@constant_only_kernel0 {{.*}} args(%[[DC]] : memref<3x3xf32>, %[[R]] : memref<3x3xf32>)
func.func @constant_only(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %c = arith.constant dense<2.5> : tensor<3x3xf32>
  return %c : tensor<3x3xf32>
}

// Integer and mask constants that a loop kernel reads (GPT-2's position
// ids under its position-embedding gather, a constant keep-mask): device
// buffers like float ones. The ids' bytes are little-endian int64s; a mask
// takes a byte per element (0 or 1), as the kernel loads it.
// CHECK-LABEL: func.func @integer_constants(
// CHECK: memref.get_global @integer_constants_constant : memref<4xi64>
// CHECK: memref.get_global @integer_constants_constant_0 : memref<4xi1>
// CHECK: gpu.launch_func @mlsopt_kernels::@integer_constants_kernel1 {{.*}} args(%{{.*}} : memref<4xi64>, %{{.*}} : memref<4xi1>, %{{.*}} : memref<16x8xf32>, %{{.*}} : memref<4x8xf32>)
// PLAN: "name": "integer_constants"
// PLAN: "dtype": "i64",
// PLAN: "bytes": 32,
// PLAN: "initializer": "AwAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAgAAAAAAAAA="
// PLAN: "dtype": "i1",
// PLAN: "bytes": 4,
// PLAN: "initializer": "AQABAQ=="
func.func @integer_constants(%x: tensor<4x8xf32>, %wpe: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %pos = arith.constant dense<[3, 0, 1, 2]> : tensor<4xi64>
  %keep = arith.constant dense<[true, false, true, true]> : tensor<4xi1>
  %zero = arith.constant 0.0 : f32
  %y = kernel.exp %x : tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(s, d) -> (s)>, affine_map<(s, d) -> (s)>, affine_map<(s, d) -> (s, d)>], iterator_types = ["parallel", "parallel"]}
      ins(%pos, %keep : tensor<4xi64>, tensor<4xi1>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%i: i64, %k: i1, %o: f32):
    %row = arith.index_cast %i : i64 to index
    %d = linalg.index 1 : index
    %v = tensor.extract %wpe[%row, %d] : tensor<16x8xf32>
    %r = arith.select %k, %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s = kernel.add %y, %p : tensor<4x8xf32>, tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
