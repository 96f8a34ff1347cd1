// A bf16 MLP as torch-mlir emits it: bf16 matmuls with a SiLU between them
// computed in f32 inside the generic (extf, x / (1 + exp(-x)), truncf), and
// a 1-D bias added before it. The SiLU imports as one kernel.silu (its one
// rounding is the op's), the bias joins the search's subprogram as [1, 48].
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}

// IMPORT-LABEL: func.func @bf16_silu_mlp
// IMPORT-NOT: linalg.
// IMPORT: %[[H:.*]] = kernel.matmul %arg0, %arg1 : tensor<8x96xbf16>, tensor<96x48xbf16>
// IMPORT-NEXT: %[[B:.*]] = kernel.add %[[H]], %arg2 : tensor<8x48xbf16>, tensor<48xbf16>
// IMPORT-NEXT: %[[S:.*]] = kernel.silu %[[B]] : tensor<8x48xbf16>
// IMPORT-NEXT: kernel.matmul %[[S]], %arg3 : tensor<8x48xbf16>, tensor<48x96xbf16>
// SEARCH: remark: superoptimize: {{replaced|kept the subprogram of}} 4 kernel ops
// VERIFY: remark: @bf16_silu_mlp is equivalent to @bf16_silu_mlp_reference

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @bf16_silu_mlp(%x: tensor<8x96xbf16>, %w1: tensor<96x48xbf16>, %b1: tensor<48xbf16>, %w2: tensor<48x96xbf16>) -> tensor<8x96xbf16> {
  %zero = arith.constant 0.0 : bf16
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x48xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<8x48xbf16>) -> tensor<8x48xbf16>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x96xbf16>, tensor<96x48xbf16>) outs(%f : tensor<8x48xbf16>) -> tensor<8x48xbf16>
  %hb = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<8x48xbf16>, tensor<48xbf16>) outs(%e : tensor<8x48xbf16>) {
  ^bb0(%a: bf16, %c: bf16, %o: bf16):
    %s = arith.addf %a, %c : bf16
    linalg.yield %s : bf16
  } -> tensor<8x48xbf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hb : tensor<8x48xbf16>) outs(%e : tensor<8x48xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %n = arith.negf %af : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %y = arith.divf %af, %d : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x48xbf16>
  %e2 = tensor.empty() : tensor<8x96xbf16>
  %f2 = linalg.fill ins(%zero : bf16) outs(%e2 : tensor<8x96xbf16>) -> tensor<8x96xbf16>
  %o = linalg.matmul ins(%g, %w2 : tensor<8x48xbf16>, tensor<48x96xbf16>) outs(%f2 : tensor<8x96xbf16>) -> tensor<8x96xbf16>
  return %o : tensor<8x96xbf16>
}
