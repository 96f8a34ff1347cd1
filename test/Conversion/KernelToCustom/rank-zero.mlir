// Kernel ops on rank-0 tensors (a scalar operand a front end or a Mirage
// graph gives) lower through their default block graphs on size-1 vectors,
// between tensor.expand_shape and tensor.collapse_shape views of the same
// buffer: block graphs map grid dims and loop iterations to tensor dims, and
// a rank-0 tensor has none (the GPU lowering crashed on one).
// RUN: mlsopt-opt %s --convert-kernel-to-custom | FileCheck %s
// RUN: mlsopt-opt %s --convert-kernel-to-custom | sed -e '/^module {$/d' -e '/^}$/d' > %t.kernel.mlir
// RUN: %if mlir-runner %{ cat %t.kernel.mlir %S/Inputs/rank-zero-main.mlir \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=CPU %}
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %s --superoptimize=timeout=5 | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-launch-plan | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @scalar(
// CHECK-SAME: %[[X:.*]]: tensor<f32>
// CHECK: %[[V:.*]] = tensor.expand_shape %[[X]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[E:.*]] = kernel.custom(%[[V]]) grid <1, 1, 1>
// CHECK: block.exp
// CHECK: %[[S:.*]] = tensor.collapse_shape %[[E]] [] : tensor<1xf32> into tensor<f32>
// CHECK: return %[[S]]

// exp(2) = 7.389
// CPU: scalar 7.38

// The scalar's exp keeps its default block graph; the search fuses the rest.
// PLAN: "kernel": "scalar_kernel0"
// PLAN: "kernel": "scalar_kernel1"
// PLAN-NOT: "kernel"

func.func @scalar(%x: tensor<f32>, %y: tensor<4x8xf32>) -> (tensor<f32>, tensor<4x8xf32>) {
  %e = kernel.exp %x : tensor<f32>
  %s = kernel.sub %y, %x : tensor<4x8xf32>, tensor<f32>
  %t = kernel.mul %s, %e : tensor<4x8xf32>, tensor<f32>
  return %e, %t : tensor<f32>, tensor<4x8xf32>
}
