// A gated MLP whose gate is the logistic function as XLA expands it,
// 0.5 * tanh(x / 2) + 0.5, in f16 (a JAX program reaching linalg). Imported
// op by op it was eight kernel ops, over max-kernel-ops, and the search cut
// it into two kernels; the import raises the spelled-out logistic to
// kernel.sigmoid, and the two matmuls and the gate are one kernel.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @gated_mlp
// IMPORT: %[[A:.*]] = kernel.matmul %arg0, %arg1
// IMPORT-NEXT: %[[B:.*]] = kernel.matmul %arg0, %arg2
// IMPORT-NEXT: %[[S:.*]] = kernel.sigmoid %[[A]] : tensor<16x256xf16>
// IMPORT-NEXT: %[[P:.*]] = kernel.mul %[[S]], %[[B]]
// IMPORT-NEXT: return %[[P]]
// REMARK: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 1 kernels
// VERIFY: remark: @gated_mlp is equivalent to @gated_mlp_reference
// HOST-LABEL: func.func @gated_mlp(
// HOST: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: return

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gated_mlp(%x: tensor<16x256xf16>, %w1: tensor<256x256xf16>, %w2: tensor<256x256xf16>) -> tensor<16x256xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x256xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<16x256xf16>) -> tensor<16x256xf16>
  %a = linalg.matmul ins(%x, %w1 : tensor<16x256xf16>, tensor<256x256xf16>) outs(%init : tensor<16x256xf16>) -> tensor<16x256xf16>
  %b = linalg.matmul ins(%x, %w2 : tensor<16x256xf16>, tensor<256x256xf16>) outs(%init : tensor<16x256xf16>) -> tensor<16x256xf16>
  %out = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<16x256xf16>, tensor<16x256xf16>) outs(%e : tensor<16x256xf16>) {
  ^bb0(%p: f16, %q: f16, %o: f16):
    %h = arith.constant 0.5 : f16
    %t0 = arith.mulf %p, %h : f16
    %t1 = math.tanh %t0 : f16
    %t2 = arith.mulf %t1, %h : f16
    %s = arith.addf %t2, %h : f16
    %r = arith.mulf %s, %q : f16
    linalg.yield %r : f16
  } -> tensor<16x256xf16>
  return %out : tensor<16x256xf16>
}
