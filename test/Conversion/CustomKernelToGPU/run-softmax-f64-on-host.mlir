// REQUIRES: mlir-runner
// A softmax the import leaves (f64) is the generic ops it stands for
// (--mlsopt-decompose-linalg-aggregates, which the GPU pipeline runs
// first), each a loop kernel: the maximum, the shifted exponentials, their
// sum and the quotient, 4 launches. Run on the host, they give softmax's
// numbers; the pipeline's PTX passes ptxas.
// RUN: mlsopt-opt %s --mlsopt-decompose-linalg-aggregates --convert-kernel-to-custom \
// RUN:     --convert-custom-kernel-to-gpu=chip=sm_80 2>/dev/null \
// RUN: | mlsopt-opt --mlsopt-launches-to-host-loops \
// RUN: | sed -e '/^module.*{$/d' -e '/^}$/d' > %t.host.mlir
// RUN: cat %t.host.mlir %S/Inputs/softmax-f64-buffer-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir 2>&1 \
// RUN: | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// exp(0), exp(ln 3), exp(0) over 5, and three equal values:
// CHECK: {{\[\[}}0.2,   0.6,   0.2],
// CHECK-NEXT: {{\[}}0.333333,   0.333333,   0.333333]]
// REMARK-COUNT-4: remark: 'linalg.generic' runs as a loop kernel, one thread per result element (correct, not fast): --convert-linalg-to-kernel did not import it: element type is not one of f16, bf16, f32
// GPU-COUNT-4: gpu.launch_func
// GPU-NOT: gpu.launch_func

func.func @softmax_f64(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %e = tensor.empty() : tensor<2x3xf64>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x3xf64>) outs(%e : tensor<2x3xf64>) -> tensor<2x3xf64>
  return %s : tensor<2x3xf64>
}
