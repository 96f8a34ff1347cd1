// GPT-2's MLP as torch-mlir emits it in f16: c_fc (a matmul and a bias),
// gelu(approximate='tanh') spelled out in one generic (0.5 * x * (1 +
// tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), constants rounded to f16),
// c_proj. The GELU imports as one kernel.gelu_tanh, so the MLP is four
// kernel ops and the search makes it one kernel; spelled out, the GELU's
// nine ops passed max-kernel-ops and the MLP took four launches.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// IMPORT-LABEL: func.func @gpt2_mlp
// IMPORT-NOT: linalg.
// IMPORT: kernel.matmul
// IMPORT-NEXT: kernel.add
// IMPORT-NEXT: kernel.gelu_tanh
// IMPORT-NEXT: kernel.matmul
// SEARCH: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 1 kernels
// VERIFY: remark: @gpt2_mlp is equivalent to @gpt2_mlp_reference
// GPU-LABEL: func.func @gpt2_mlp
// GPU-COUNT-1: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @gpt2_mlp(%x: tensor<8x96xf16>, %w1: tensor<96x384xf16>, %b1: tensor<384xf16>, %w2: tensor<384x96xf16>) -> tensor<8x96xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x384xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<8x384xf16>) -> tensor<8x384xf16>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x96xf16>, tensor<96x384xf16>) outs(%f : tensor<8x384xf16>) -> tensor<8x384xf16>
  %hb = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<8x384xf16>, tensor<384xf16>) outs(%e : tensor<8x384xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<8x384xf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hb : tensor<8x384xf16>) outs(%e : tensor<8x384xf16>) {
  ^bb0(%a: f16, %o: f16):
    %half = arith.constant 0.5 : f16
    %hx = arith.mulf %a, %half : f16
    %sq = arith.mulf %a, %a : f16
    %cube = arith.mulf %sq, %a : f16
    %alpha = arith.constant 0.044715 : f16
    %ca = arith.mulf %cube, %alpha : f16
    %in = arith.addf %a, %ca : f16
    %beta = arith.constant 0.7978845608 : f16
    %s = arith.mulf %in, %beta : f16
    %t = math.tanh %s : f16
    %one = arith.constant 1.0 : f16
    %p = arith.addf %t, %one : f16
    %r = arith.mulf %hx, %p : f16
    linalg.yield %r : f16
  } -> tensor<8x384xf16>
  %e2 = tensor.empty() : tensor<8x96xf16>
  %f2 = linalg.fill ins(%zero : f16) outs(%e2 : tensor<8x96xf16>) -> tensor<8x96xf16>
  %o = linalg.matmul ins(%g, %w2 : tensor<8x384xf16>, tensor<384x96xf16>) outs(%f2 : tensor<8x96xf16>) -> tensor<8x96xf16>
  return %o : tensor<8x96xf16>
}
