// A causal attention: the mask imports as
// kernel.triangle_fill, and the search computes it on the scores' tiles
// inside the one attention kernel, placed by the grid (the query rows) as
// a load of the scores would be. Verified against the program as imported,
// then lowered to one launch and accepted by ptxas in f16.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @causal_attention
// IMPORT-NOT: linalg.
// IMPORT: kernel.mul_scalar %{{.*}}, 1.250000e-01 : tensor<2x128x512xf32>
// IMPORT: kernel.triangle_fill %{{.*}} dims [1, 2] diagonal 385 value 0xFFF0000000000000 : tensor<2x128x512xf32>
// IMPORT: kernel.reduce_max
// IMPORT-NOT: linalg.
// OPT-LABEL: func.func @causal_attention(
// OPT: kernel.custom
// OPT: block.matmul
// OPT: block.triangle_fill %{{.*}} dims [1, 2] diagonal 385 value 0xFFF0000000000000 imap <x = 0, y = 1>
// OPT: block.store
// OPT-NOT: kernel.
// OPT: return
// OPT-LABEL: func.func private @causal_attention_reference(
// VERIFY: remark: @causal_attention is equivalent to @causal_attention_reference
// HOST-LABEL: func.func @causal_attention(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: return

// The last 128 queries of a 512-token sequence attending to all 512 keys
// through a causal mask (chunked prefill), as torch-mlir emits
// scaled_dot_product_attention(is_causal=True) once the mask is fused into
// the generic that scales the scores: query i sits at position 384 + i and
// sees keys j <= 384 + i. A safe softmax (max subtracted) follows; K is
// transposed by linalg.transpose.
#m3 = affine_map<(b, i, j) -> (b, i, j)>
#r3 = affine_map<(b, i, j) -> (b, i)>
func.func @causal_attention(%q: tensor<2x128x64xf32>, %k: tensor<2x512x64xf32>, %v: tensor<2x512x64xf32>) -> tensor<2x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %past = arith.constant 384 : index
  %kt0 = tensor.empty() : tensor<2x64x512xf32>
  %kt = linalg.transpose ins(%k : tensor<2x512x64xf32>) outs(%kt0 : tensor<2x64x512xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x128x512xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x128x512xf32>) -> tensor<2x128x512xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x128x64xf32>, tensor<2x64x512xf32>) outs(%sf : tensor<2x128x512xf32>) -> tensor<2x128x512xf32>
  %ss = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x128x512xf32>) outs(%s0 : tensor<2x128x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %pos = arith.addi %i, %past : index
    %future = arith.cmpi ugt, %j, %pos : index
    %scaled = arith.mulf %a, %scale : f32
    %y = arith.select %future, %ninf, %scaled : f32
    linalg.yield %y : f32
  } -> tensor<2x128x512xf32>
  %m0 = tensor.empty() : tensor<2x128xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<2x128xf32>) -> tensor<2x128xf32>
  %mx = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ss : tensor<2x128x512xf32>) outs(%mf : tensor<2x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x128xf32>
  %e = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ss, %mx : tensor<2x128x512xf32>, tensor<2x128xf32>) outs(%s0 : tensor<2x128x512xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<2x128x512xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%m0 : tensor<2x128xf32>) -> tensor<2x128xf32>
  %sum = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x128x512xf32>) outs(%zf : tensor<2x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x128xf32>
  %p = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x128x512xf32>, tensor<2x128xf32>) outs(%s0 : tensor<2x128x512xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %y = arith.divf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<2x128x512xf32>
  %o0 = tensor.empty() : tensor<2x128x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x128x512xf32>, tensor<2x512x64xf32>) outs(%of : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  return %out : tensor<2x128x64xf32>
}
