// RUN: mlsopt-opt %s --fuse-kernel-elementwise | FileCheck %s --check-prefix=FUSE
// RUN: mlsopt-opt %s --convert-kernel-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: %if mlir-runner %{ mlsopt-opt %s --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=CPU %}
// RUN: sed -e "/^func.func @main/,\$d" %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// A transpose of a rank-0 tensor (the identity, `[]`) crashed the export
// to linalg (upstream's linalg.transpose cannot build rank-0 maps) and
// --fuse-kernel-elementwise (the reader's default block graph works on a
// view of the scalar as a vector). The export passes the operand on; the
// fusion leaves rank-0 ops alone.

// FUSE-LABEL: func.func @scalar
// FUSE: kernel.transpose %arg0 [] : tensor<f32>
// FUSE: kernel.add
// LINALG-LABEL: func.func @scalar
// LINALG-NOT: linalg.transpose
// LINALG: linalg.generic
// LINALG: arith.addf
func.func @scalar(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %t = kernel.transpose %a [] : tensor<f32>
  %s = kernel.add %t, %b : tensor<f32>, tensor<f32>
  return %s : tensor<f32>
}

// CPU: 5
func.func @main() {
  %a = arith.constant dense<2.0> : tensor<f32>
  %b = arith.constant dense<3.0> : tensor<f32>
  %s = call @scalar(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %v = tensor.extract %s[] : tensor<f32>
  vector.print %v : f32
  return
}
