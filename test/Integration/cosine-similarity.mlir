// Cosine similarities of 64 queries with 1024 keys in f16: both normalized
// by the rsqrt of their sums of squares, then Q K^T, as a front end emits
// it from linalg (the contraction over the keys' last dim imports as a
// transpose and a matmul). The queries' norms are computed in the matmul's
// kernel and scale its rows, the keys' norms in a kernel of their own and
// scale its columns: no normalized copy of Q or K is written, and the
// matmul runs on tensor cores. Both kernels load K as stored and transpose
// their tiles (--fuse-kernel-elementwise computes a transpose that several
// kernels read in each of them): no K^T is written.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// IMPORT-LABEL: func.func @cosine
// IMPORT-NOT: linalg.
// IMPORT: kernel.rsqrt
// IMPORT: kernel.rsqrt
// IMPORT: kernel.transpose
// IMPORT: kernel.matmul
// IMPORT: return
// OPT-LABEL: func.func @cosine(
// OPT-SAME: %[[Q:.*]]: tensor<64x128xf16>, %[[K:.*]]: tensor<1024x128xf16>)
// OPT-NEXT: %[[N:.*]] = kernel.custom(%[[K]])
// OPT: block.transpose
// OPT: block.reduce_sum
// OPT: kernel.custom(%[[Q]], %[[K]], %[[N]])
// OPT: block.reduce_sum
// OPT: block.matmul
// OPT-NOT: kernel.
// OPT: return
// VERIFY: remark: @cosine is equivalent to @cosine_reference
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

#qk = affine_map<(i, j, k) -> (i, k)>
#kk = affine_map<(i, j, k) -> (j, k)>
#out = affine_map<(i, j, k) -> (i, j)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @cosine(%q: tensor<64x128xf16>, %k: tensor<1024x128xf16>) -> tensor<64x1024xf16> {
  %zero = arith.constant 0.0 : f16
  %eq = tensor.empty() : tensor<64xf16>
  %zq = linalg.fill ins(%zero : f16) outs(%eq : tensor<64xf16>) -> tensor<64xf16>
  %sq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%q : tensor<64x128xf16>) outs(%zq : tensor<64xf16>) {
  ^bb0(%a: f16, %s: f16):
    %m = arith.mulf %a, %a : f16
    %y = arith.addf %s, %m : f16
    linalg.yield %y : f16
  } -> tensor<64xf16>
  %e1 = tensor.empty() : tensor<64x128xf16>
  %qn = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q, %sq : tensor<64x128xf16>, tensor<64xf16>) outs(%e1 : tensor<64x128xf16>) {
  ^bb0(%a: f16, %s: f16, %o: f16):
    %r = math.rsqrt %s : f16
    %y = arith.mulf %a, %r : f16
    linalg.yield %y : f16
  } -> tensor<64x128xf16>
  %ek = tensor.empty() : tensor<1024xf16>
  %zk = linalg.fill ins(%zero : f16) outs(%ek : tensor<1024xf16>) -> tensor<1024xf16>
  %sk = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%k : tensor<1024x128xf16>) outs(%zk : tensor<1024xf16>) {
  ^bb0(%a: f16, %s: f16):
    %m = arith.mulf %a, %a : f16
    %y = arith.addf %s, %m : f16
    linalg.yield %y : f16
  } -> tensor<1024xf16>
  %e2 = tensor.empty() : tensor<1024x128xf16>
  %kn = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%k, %sk : tensor<1024x128xf16>, tensor<1024xf16>) outs(%e2 : tensor<1024x128xf16>) {
  ^bb0(%a: f16, %s: f16, %o: f16):
    %r = math.rsqrt %s : f16
    %y = arith.mulf %a, %r : f16
    linalg.yield %y : f16
  } -> tensor<1024x128xf16>
  %e3 = tensor.empty() : tensor<64x1024xf16>
  %z3 = linalg.fill ins(%zero : f16) outs(%e3 : tensor<64x1024xf16>) -> tensor<64x1024xf16>
  %s = linalg.generic {indexing_maps = [#qk, #kk, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%qn, %kn : tensor<64x128xf16>, tensor<1024x128xf16>) outs(%z3 : tensor<64x1024xf16>) {
  ^bb0(%a: f16, %b: f16, %c: f16):
    %m = arith.mulf %a, %b : f16
    %y = arith.addf %c, %m : f16
    linalg.yield %y : f16
  } -> tensor<64x1024xf16>
  return %s : tensor<64x1024xf16>
}
