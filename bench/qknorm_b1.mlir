// QKNorm: attention with RMS-normalized queries and keys, of Chameleon-7B,
// batch 1 (Mirage's QKNorm case). Queries and keys are normalized over the
// head dim (64): dim 2 of Q, dim 1 of K (K is stored transposed, [h, d, n]).
//
//   rms_norm(x) = x * rsqrt(mean(x^2 over the head dim) + 1e-6)
//   O = softmax(rms_norm(Q) rms_norm(K)) V,  softmax(S) = exp(S) / sum_j exp(S)[..., j]
//
// with no max subtraction (as in Mirage), the sum over the last dim.
//   Q: [2, 256, 64]   K: [2, 64, 4096]   V: [2, 4096, 64]   O: [2, 256, 64]
//
// Written as a front end emits mean(x^2, d, keepdim=True) after fusing the
// square into the reduction: the sums of squares keep the reduced dim as
// size 1 and are read back through a constant 0 index, and the mean is a
// division by the head dim, a constant captured by the payload.

#id = affine_map<(h, i, j) -> (h, i, j)>
#keep2 = affine_map<(h, i, j) -> (h, i, 0)>
#keep1 = affine_map<(h, i, j) -> (h, 0, j)>

func.func @qknorm(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %n = arith.constant 6.400000e+01 : f16
  %eps = arith.constant 1.000000e-06 : f16

  // rms_norm(Q) over dim 2
  %eq1 = tensor.empty() : tensor<2x256x1xf16>
  %zq1 = linalg.fill ins(%zero : f16) outs(%eq1 : tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
  %ssq = linalg.generic {indexing_maps = [#id, #keep2],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q : tensor<2x256x64xf16>) outs(%zq1 : tensor<2x256x1xf16>) {
  ^bb0(%a: f16, %acc: f16):
    %sq = arith.mulf %a, %a : f16
    %r = arith.addf %sq, %acc : f16
    linalg.yield %r : f16
  } -> tensor<2x256x1xf16>
  %eq = tensor.empty() : tensor<2x256x64xf16>
  %qn = linalg.generic {indexing_maps = [#id, #keep2, #id],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %ssq : tensor<2x256x64xf16>, tensor<2x256x1xf16>) outs(%eq : tensor<2x256x64xf16>) {
  ^bb0(%a: f16, %s: f16, %o: f16):
    %mean = arith.divf %s, %n : f16
    %var = arith.addf %mean, %eps : f16
    %rstd = math.rsqrt %var : f16
    %r = arith.mulf %a, %rstd : f16
    linalg.yield %r : f16
  } -> tensor<2x256x64xf16>

  // rms_norm(K) over dim 1
  %ek1 = tensor.empty() : tensor<2x1x4096xf16>
  %zk1 = linalg.fill ins(%zero : f16) outs(%ek1 : tensor<2x1x4096xf16>) -> tensor<2x1x4096xf16>
  %ksq = linalg.generic {indexing_maps = [#id, #keep1],
                         iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%k : tensor<2x64x4096xf16>) outs(%zk1 : tensor<2x1x4096xf16>) {
  ^bb0(%a: f16, %acc: f16):
    %sq = arith.mulf %a, %a : f16
    %r = arith.addf %sq, %acc : f16
    linalg.yield %r : f16
  } -> tensor<2x1x4096xf16>
  %ek = tensor.empty() : tensor<2x64x4096xf16>
  %kn = linalg.generic {indexing_maps = [#id, #keep1, #id],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k, %ksq : tensor<2x64x4096xf16>, tensor<2x1x4096xf16>) outs(%ek : tensor<2x64x4096xf16>) {
  ^bb0(%a: f16, %s: f16, %o: f16):
    %mean = arith.divf %s, %n : f16
    %var = arith.addf %mean, %eps : f16
    %rstd = math.rsqrt %var : f16
    %r = arith.mulf %a, %rstd : f16
    linalg.yield %r : f16
  } -> tensor<2x64x4096xf16>

  // S = rms_norm(Q) rms_norm(K)
  %e0 = tensor.empty() : tensor<2x256x4096xf16>
  %z0 = linalg.fill ins(%zero : f16) outs(%e0 : tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %s = linalg.batch_matmul ins(%qn, %kn : tensor<2x256x64xf16>, tensor<2x64x4096xf16>)
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
  %sum = linalg.generic {indexing_maps = [#id, #keep2],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x256x4096xf16>) outs(%z2 : tensor<2x256x1xf16>) {
  ^bb0(%a: f16, %acc: f16):
    %r = arith.addf %a, %acc : f16
    linalg.yield %r : f16
  } -> tensor<2x256x1xf16>

  // P = exp(S) / sum
  %e3 = tensor.empty() : tensor<2x256x4096xf16>
  %p = linalg.generic {indexing_maps = [#id, #keep2, #id],
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
