// A causal prefill (512 tokens, query i sees keys j <= i): the search
// computes it as one online-softmax kernel over key tiles, the mask on each
// tile placed by the grid (rows) and the for-loop (keys, fmap 2). Verified
// against the program as imported, then lowered to one launch and accepted
// by ptxas in f16. CPU/run-causal-attention.mlir checks its numbers.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="latency-veto=false timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// OPT-LABEL: func.func @causal_prefill(
// OPT: block.for_loop {{[0-9]+}} iterations accumulate (max, rescale by 0
// OPT: block.triangle_fill %{{.*}} dims [1, 2] diagonal 1 value 0xFFF0000000000000 imap <x = 0, y = 1> fmap 2
// OPT-NOT: kernel.
// OPT: return
// VERIFY: remark: @causal_prefill is equivalent to @causal_prefill_reference
// HOST-LABEL: func.func @causal_prefill(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: return

// Causal self-attention of a 512-token prefill, as torch-mlir emits
// scaled_dot_product_attention(is_causal=True) once the mask is fused into
// the generic that scales the scores: query i sees keys j <= i. A safe
// softmax (max subtracted) follows; K is transposed by linalg.transpose.
// Key tiles after a query row's position are masked entirely.
#m3 = affine_map<(b, i, j) -> (b, i, j)>
#r3 = affine_map<(b, i, j) -> (b, i)>
func.func @causal_prefill(%q: tensor<2x512x64xf32>, %k: tensor<2x512x64xf32>, %v: tensor<2x512x64xf32>) -> tensor<2x512x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %past = arith.constant 0 : index
  %kt0 = tensor.empty() : tensor<2x64x512xf32>
  %kt = linalg.transpose ins(%k : tensor<2x512x64xf32>) outs(%kt0 : tensor<2x64x512xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x512x512xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x512x512xf32>) -> tensor<2x512x512xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x512x64xf32>, tensor<2x64x512xf32>) outs(%sf : tensor<2x512x512xf32>) -> tensor<2x512x512xf32>
  %ss = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x512x512xf32>) outs(%s0 : tensor<2x512x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %pos = arith.addi %i, %past : index
    %future = arith.cmpi ugt, %j, %pos : index
    %scaled = arith.mulf %a, %scale : f32
    %y = arith.select %future, %ninf, %scaled : f32
    linalg.yield %y : f32
  } -> tensor<2x512x512xf32>
  %m0 = tensor.empty() : tensor<2x512xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<2x512xf32>) -> tensor<2x512xf32>
  %mx = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ss : tensor<2x512x512xf32>) outs(%mf : tensor<2x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x512xf32>
  %e = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ss, %mx : tensor<2x512x512xf32>, tensor<2x512xf32>) outs(%s0 : tensor<2x512x512xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<2x512x512xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%m0 : tensor<2x512xf32>) -> tensor<2x512xf32>
  %sum = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x512x512xf32>) outs(%zf : tensor<2x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x512xf32>
  %p = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x512x512xf32>, tensor<2x512xf32>) outs(%s0 : tensor<2x512x512xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %y = arith.divf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<2x512x512xf32>
  %o0 = tensor.empty() : tensor<2x512x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x512x64xf32>) -> tensor<2x512x64xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x512x512xf32>, tensor<2x512x64xf32>) outs(%of : tensor<2x512x64xf32>) -> tensor<2x512x64xf32>
  return %out : tensor<2x512x64xf32>
}
