// The log-sum-exp of each row of logits (a cross-entropy loss's normalizer),
// safe: log(sum(exp(x - max))) + max, as a front end emits it from linalg.
// One kernel walks each row once in tiles, keeping the running maximum and a
// sum it rescales whenever the maximum grows (the online softmax's
// accumulator), and takes the log in its epilogue.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// IMPORT-LABEL: func.func @logsumexp
// IMPORT-NOT: linalg.
// IMPORT: kernel.reduce_max
// IMPORT: kernel.exp
// IMPORT: kernel.reduce_sum
// IMPORT: kernel.log
// IMPORT: return
// OPT-LABEL: func.func @logsumexp(
// OPT: kernel.custom
// OPT: block.for_loop {{[0-9]+}} iterations accumulate (max, rescale by 0)
// OPT: thread.unary log
// OPT-NOT: kernel.
// OPT: return
// VERIFY: remark: @logsumexp is equivalent to @logsumexp_reference

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @logsumexp(%x: tensor<32x8192xf32>) -> tensor<32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<32xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<32xf32>) -> tensor<32xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x8192xf32>) outs(%m0 : tensor<32xf32>) {
  ^bb0(%a: f32, %s: f32):
    %y = arith.maximumf %s, %a : f32
    linalg.yield %y : f32
  } -> tensor<32xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<32xf32>) -> tensor<32xf32>
  %l = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<32x8192xf32>, tensor<32xf32>) outs(%z0 : tensor<32xf32>) {
  ^bb0(%a: f32, %mm: f32, %s: f32):
    %d = arith.subf %a, %mm : f32
    %e = math.exp %d : f32
    %y = arith.addf %s, %e : f32
    linalg.yield %y : f32
  } -> tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%l, %m : tensor<32xf32>, tensor<32xf32>) outs(%e0 : tensor<32xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %g = math.log %a : f32
    %y = arith.addf %g, %mm : f32
    linalg.yield %y : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}
