// Two results sharing exp(x): exp(x) * a and the row sums of exp(x),
// returned as a 1-D tensor (linalg.reduce drops the reduced dim). The
// import returns a collapse of the kernel reduction's [32, 1]; the verifier
// evaluates it, and on the GPU it is a view of the result buffer, which the
// fused kernel writes directly.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-launch-plan %t.gpu.mlir | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// SEARCH: remark: superoptimize: replaced 3 kernel ops {{.*}} by 1 kernels
// VERIFY: remark: @row_sums is equivalent to @row_sums_reference
// HOST-LABEL: func.func @row_sums(
// HOST-SAME: %[[S:[a-zA-Z0-9_]+]]: memref<32xf32> {mlsopt.result_index = 1 : i64})
// HOST: %[[V:.*]] = memref.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [32, 1]
// HOST: gpu.launch_func @mlsopt_kernels::@row_sums_kernel0 {{.*}}%[[V]] : memref<32x1xf32>
// HOST-NOT: gpu.launch_func
// HOST: return
// PLAN: "name": "row_sums",
// PLAN: "launches": [
// PLAN: "kernel": "row_sums_kernel0",
// PLAN-NOT: "kernel":
// PLAN: "index": 3,
// PLAN-NEXT: "shape": [
// PLAN-NEXT: 32,
// PLAN-NEXT: 1

func.func @row_sums(%x: tensor<32x96xf32>, %a: tensor<32x96xf32>) -> (tensor<32x96xf32>, tensor<32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x96xf32>
  %ex = linalg.exp ins(%x : tensor<32x96xf32>) outs(%e1 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %p = linalg.mul ins(%ex, %a : tensor<32x96xf32>, tensor<32x96xf32>) outs(%e1 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %e0 = tensor.empty() : tensor<32xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<32xf32>) -> tensor<32xf32>
  %s = linalg.reduce ins(%ex : tensor<32x96xf32>) outs(%z0 : tensor<32xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %y = arith.addf %in, %acc : f32
      linalg.yield %y : f32
    }
  return %p, %s : tensor<32x96xf32>, tensor<32xf32>
}
