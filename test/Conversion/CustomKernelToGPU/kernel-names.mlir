// RUN: mlsopt-opt %s --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_90 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.mlir
// RUN: mlsopt-translate --emit-launch-plan %t.mlir | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-translate --emit-ptx %t.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// MLIR symbols may be any string; PTX names hold letters, digits, `_` and
// `$` and do not start with a digit. A dot gave PTX that ptxas rejects, a
// dash an abort in the NVPTX printer. Kernel names are made PTX names, kept
// distinct; host functions and the launch plan keep the function's name.

// CHECK-DAG: gpu.func @model_forward_kernel0(
// CHECK-DAG: gpu.func @a_b_kernel0(
// CHECK-DAG: gpu.func @a_b_kernel0_1(
// CHECK-DAG: gpu.func @_9lives_kernel0(
// CHECK-DAG: func.func @model.forward(
// CHECK-DAG: gpu.launch_func @mlsopt_kernels::@model_forward_kernel0

// PLAN: "name": "model.forward"
// PLAN: "kernel": "model_forward_kernel0"
// PLAN: "name": "a-b"
// PLAN: "kernel": "a_b_kernel0"
// PLAN: "name": "a_b"
// PLAN: "kernel": "a_b_kernel0_1"
// PLAN: "name": "9lives"
// PLAN: "kernel": "_9lives_kernel0"

func.func @"model.forward"(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kernel.exp %x : tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}
func.func @"a-b"(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kernel.exp %x : tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}
func.func @a_b(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kernel.exp %x : tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}
func.func @"9lives"(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kernel.exp %x : tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}
