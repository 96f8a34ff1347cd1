// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlsopt-translate --emit-launch-plan %t.mlir | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-translate --emit-ptx %t.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// A weight in a dense_resource blob (torch-mlir's fx importer stores
// parameters there) is a device buffer as a dense constant is: its bytes
// become the host global's dense value, and the launch plan gives them
// (the same as constants.mlir's dense weight). The GPU pipeline refused
// such a constant before.

// CHECK: memref.global "private" constant @weight_constant : memref<3x2xf32> = dense<{{\[\[}}5.000000e-01, -1.000000e+00], [2.000000e+00, 2.500000e-01], [-7.500000e-01, 1.500000e+00]]> {alignment = 16 : i64}
// CHECK-LABEL: func.func @weight(
// CHECK: %[[W:.*]] = memref.get_global @weight_constant : memref<3x2xf32>
// CHECK: %[[DW:.*]] = gpu.alloc () : memref<3x2xf32>
// CHECK: gpu.memcpy %[[DW]], %[[W]] : memref<3x2xf32>, memref<3x2xf32>
// CHECK: gpu.launch_func @mlsopt_kernels::@weight_kernel0 {{.*}} args(%{{.*}} : memref<5x3xf32>, %[[DW]] : memref<3x2xf32>

// PLAN: "initializer": "AAAAPwAAgL8AAABAAACAPgAAQL8AAMA/"

func.func @weight(%x: tensor<5x3xf32>) -> tensor<5x2xf32> {
  %w = arith.constant dense_resource<torch_tensor_3_2_torch.float32> : tensor<3x2xf32>
  %m = kernel.matmul %x, %w : tensor<5x3xf32>, tensor<3x2xf32>
  return %m : tensor<5x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_3_2_torch.float32: "0x040000000000003F000080BF000000400000803E000040BF0000C03F"
    }
  }
#-}
