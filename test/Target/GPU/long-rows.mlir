// An rms_norm keeps its whole row in a block. Default block graphs may use
// the chip's opt-in shared memory, as searched kernels do, so a row of 8192
// f16 values (LLaMA-2-70B's hidden size; past 48 KiB by the block graph's
// estimate) is one kernel on every chip. A row that fits no chip (65536
// values) is computed by the ops it stands for, the sum of squares by a
// reduction that walks the row (test/Conversion/KernelToCustom/run-long-rows.mlir
// runs it): in f32, between a conversion in and one out. A concat along
// rows that fit no chip joins views that factor them (@long_concat).
// REQUIRES: ptxas
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: FileCheck %s < %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 -o %t.sm_80.mlir
// RUN: FileCheck %s < %t.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_80.mlir -o %t.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_86 | FileCheck %s

// CHECK-LABEL: func.func @llama70b_norm
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @llama70b_norm(%x: tensor<4x8192xf16>) -> tensor<4x8192xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<4x8192xf16>
  return %n : tensor<4x8192xf16>
}

// convert, square, the reduction in two kernels (split across the grid,
// then combined), mul_scalar, add_scalar, rsqrt, mul, convert.
// CHECK-LABEL: func.func @longest_norm
// CHECK-COUNT-9: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @longest_norm(%x: tensor<2x65536xf16>) -> tensor<2x65536xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<2x65536xf16>
  return %n : tensor<2x65536xf16>
}

// A concat along rows of 40000 + 30000 f32 values (280 KB, past every
// chip's shared memory) is one kernel on [4, 10000] and [3, 10000] views
// of its inputs, which launch nothing.
// CHECK-LABEL: func.func @long_concat
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @long_concat(%a: tensor<2x40000xf32>, %b: tensor<2x30000xf32>) -> tensor<2x70000xf32> {
  %c = kernel.concat %a, %b dim 1 : tensor<2x40000xf32>, tensor<2x30000xf32>
  return %c : tensor<2x70000xf32>
}
