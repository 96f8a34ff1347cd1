// REQUIRES: mlir-runner
// Named linalg ops the import leaves split like generics: a linalg.reduce
// (an f64 row sum, as StableHLO's lowering writes one) and an i32
// linalg.matmul of 2 x 3 results over 768, each two loop kernels. Run on
// the host, they give the CPU pipeline's numbers.
// RUN: cat %s %S/Inputs/split-named-reductions-common.mlir %S/Inputs/split-named-reductions-tensor-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 -o %t.gpu.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mlsopt-opt %t.gpu.mlir --mlsopt-launches-to-host-loops \
// RUN: | sed -e '/^module.*{$/d' -e '/^}$/d' > %t.host.mlir
// RUN: cat %t.host.mlir %S/Inputs/split-named-reductions-common.mlir %S/Inputs/split-named-reductions-buffer-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 2>/dev/null | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// CHECK: [1023,  1025,  1024.5]
// CHECK: {{\[\[}}-34,   -39,   -44],
// CHECK-NEXT: [9,   9,   9]]

// REMARK: remark: 'linalg.reduce' runs as two loop kernels, its reduction split into 32 chunks of 32
// REMARK: remark: 'linalg.matmul' runs as two loop kernels, its reduction split into 24 chunks of 32

func.func @named(%x: tensor<3x1024xf64>, %a: tensor<2x768xi32>, %b: tensor<768x3xi32>) -> (tensor<3xf64>, tensor<2x3xi32>) {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %r = linalg.reduce ins(%x : tensor<3x1024xf64>) outs(%f : tensor<3xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  %zi = arith.constant 0 : i32
  %ei = tensor.empty() : tensor<2x3xi32>
  %fi = linalg.fill ins(%zi : i32) outs(%ei : tensor<2x3xi32>) -> tensor<2x3xi32>
  %m = linalg.matmul ins(%a, %b : tensor<2x768xi32>, tensor<768x3xi32>) outs(%fi : tensor<2x3xi32>) -> tensor<2x3xi32>
  return %r, %m : tensor<3xf64>, tensor<2x3xi32>
}
