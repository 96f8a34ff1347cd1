// GQA: grouped-query attention of LLaMA-3-70B at decode, batch 1
// (Mirage's GQA case): the 256 query rows of each of the 2 groups (2 per
// batch element) attend to the group's 4096 cached keys and values.
//
//   O = softmax(Q K) V,  softmax(S) = exp(S) / sum_j exp(S)[..., j]
//
// with no max subtraction (as in Mirage), the sum over the last dim.
//   Q: [2, 256, 64]   K: [2, 64, 4096]   V: [2, 4096, 64]   O: [2, 256, 64]
//
// Written the way torch-mlir emits torch.matmul / torch.exp /
// sum(-1, keepdim=True) / div: batch matmuls into zero fills, and the row sum
// kept as a size-1 dim that the division reads back through (h, i, 0).

#id = affine_map<(h, i, j) -> (h, i, j)>
#keep = affine_map<(h, i, j) -> (h, i, 0)>

func.func @gqa(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %zero = arith.constant 0.000000e+00 : f16

  // S = Q K
  %e0 = tensor.empty() : tensor<2x256x4096xf16>
  %z0 = linalg.fill ins(%zero : f16) outs(%e0 : tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %s = linalg.batch_matmul ins(%q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>)
                           outs(%z0 : tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>

  // exp(S)
  %e1 = tensor.empty() : tensor<2x256x4096xf16>
  %ex = linalg.generic {indexing_maps = [#id, #id],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x256x4096xf16>) outs(%e1 : tensor<2x256x4096xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = math.exp %a : f16
    linalg.yield %r : f16
  } -> tensor<2x256x4096xf16>

  // sum_j exp(S)[h, i, j], keepdim
  %e2 = tensor.empty() : tensor<2x256x1xf16>
  %z2 = linalg.fill ins(%zero : f16) outs(%e2 : tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
  %sum = linalg.generic {indexing_maps = [#id, #keep],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x256x4096xf16>) outs(%z2 : tensor<2x256x1xf16>) {
  ^bb0(%a: f16, %acc: f16):
    %r = arith.addf %a, %acc : f16
    linalg.yield %r : f16
  } -> tensor<2x256x1xf16>

  // P = exp(S) / sum
  %e3 = tensor.empty() : tensor<2x256x4096xf16>
  %p = linalg.generic {indexing_maps = [#id, #keep, #id],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x256x4096xf16>, tensor<2x256x1xf16>) outs(%e3 : tensor<2x256x4096xf16>) {
  ^bb0(%a: f16, %d: f16, %o: f16):
    %r = arith.divf %a, %d : f16
    linalg.yield %r : f16
  } -> tensor<2x256x4096xf16>

  // O = P V
  %e4 = tensor.empty() : tensor<2x256x64xf16>
  %z4 = linalg.fill ins(%zero : f16) outs(%e4 : tensor<2x256x64xf16>) -> tensor<2x256x64xf16>
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>)
                             outs(%z4 : tensor<2x256x64xf16>) -> tensor<2x256x64xf16>
  return %out : tensor<2x256x64xf16>
}
