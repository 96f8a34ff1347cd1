// RMSNorm: RMS normalization followed by a linear layer, of LLaMA-2-7B,
// batch 1 (Mirage's RMSNorm case).
//
//   rms_norm(x) = x * rsqrt(mean(x^2 over the last dim) + 1e-6)
//   O = rms_norm(X) W
//   X: [2, 4096]   W: [4096, 6144]   O: [2, 6144]
//
// Written the way IREE emits it (as examples/linalg/rmsnorm_matmul.mlir): the
// square fused into the reduction, the row sum with the reduced dim dropped
// and broadcast back through (i), the mean as a multiplication by 1/4096,
// constants in the payload, the matmul accumulating into a zero fill.

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @rmsnorm(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %zero = arith.constant 0.000000e+00 : f16

  // sum_j x[i, j]^2
  %e0 = tensor.empty() : tensor<2xf16>
  %z0 = linalg.fill ins(%zero : f16) outs(%e0 : tensor<2xf16>) -> tensor<2xf16>
  %sumsq = linalg.generic {indexing_maps = [#id, #row],
                           iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x4096xf16>) outs(%z0 : tensor<2xf16>) {
  ^bb0(%a: f16, %s: f16):
    %sq = arith.mulf %a, %a : f16
    %r = arith.addf %s, %sq : f16
    linalg.yield %r : f16
  } -> tensor<2xf16>

  // x[i, j] * rsqrt(sumsq[i] / 4096 + eps)
  %e1 = tensor.empty() : tensor<2x4096xf16>
  %normed = linalg.generic {indexing_maps = [#id, #row, #id],
                            iterator_types = ["parallel", "parallel"]}
      ins(%x, %sumsq : tensor<2x4096xf16>, tensor<2xf16>) outs(%e1 : tensor<2x4096xf16>) {
  ^bb0(%a: f16, %s: f16, %o: f16):
    %inv_n = arith.constant 2.441406e-04 : f16
    %eps = arith.constant 1.000000e-06 : f16
    %mean = arith.mulf %s, %inv_n : f16
    %var = arith.addf %mean, %eps : f16
    %rstd = math.rsqrt %var : f16
    %y = arith.mulf %a, %rstd : f16
    linalg.yield %y : f16
  } -> tensor<2x4096xf16>

  // O = rms_norm(X) W
  %e2 = tensor.empty() : tensor<2x6144xf16>
  %z2 = linalg.fill ins(%zero : f16) outs(%e2 : tensor<2x6144xf16>) -> tensor<2x6144xf16>
  %out = linalg.matmul ins(%normed, %w : tensor<2x4096xf16>, tensor<4096x6144xf16>)
                       outs(%z2 : tensor<2x6144xf16>) -> tensor<2x6144xf16>
  return %out : tensor<2x6144xf16>
}
