// nTrans: the normalized-Transformer residual update of nGPT-1B, batch 8
// (Mirage's nTrans case).
//
//   rms_norm(x) = x * rsqrt(mean(x^2 over the last dim) + 1e-6)
//   O = rms_norm(X + A * (rms_norm(Y) - X))
//   X, Y, A: [64, 4096]   O: [64, 4096]
//
// Written the way IREE emits it after elementwise fusion: each sum of squares
// fused into its reduction (the reduced dim dropped, broadcast back through
// (i)), and the normalization of Y fused with the residual update into one
// generic, constants in the payloads.

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @ntrans(%x: tensor<64x4096xf16>, %y: tensor<64x4096xf16>, %a: tensor<64x4096xf16>) -> tensor<64x4096xf16> {
  %zero = arith.constant 0.000000e+00 : f16

  // sum_j y[i, j]^2
  %e0 = tensor.empty() : tensor<64xf16>
  %z0 = linalg.fill ins(%zero : f16) outs(%e0 : tensor<64xf16>) -> tensor<64xf16>
  %ysq = linalg.generic {indexing_maps = [#id, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<64x4096xf16>) outs(%z0 : tensor<64xf16>) {
  ^bb0(%v: f16, %s: f16):
    %sq = arith.mulf %v, %v : f16
    %r = arith.addf %s, %sq : f16
    linalg.yield %r : f16
  } -> tensor<64xf16>

  // H = X + A * (rms_norm(Y) - X)
  %e1 = tensor.empty() : tensor<64x4096xf16>
  %h = linalg.generic {indexing_maps = [#id, #id, #id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %y, %a, %ysq : tensor<64x4096xf16>, tensor<64x4096xf16>, tensor<64x4096xf16>, tensor<64xf16>) outs(%e1 : tensor<64x4096xf16>) {
  ^bb0(%xv: f16, %yv: f16, %av: f16, %s: f16, %o: f16):
    %inv_n = arith.constant 2.441406e-04 : f16
    %eps = arith.constant 1.000000e-06 : f16
    %mean = arith.mulf %s, %inv_n : f16
    %var = arith.addf %mean, %eps : f16
    %rstd = math.rsqrt %var : f16
    %yn = arith.mulf %yv, %rstd : f16
    %d = arith.subf %yn, %xv : f16
    %t = arith.mulf %av, %d : f16
    %r = arith.addf %xv, %t : f16
    linalg.yield %r : f16
  } -> tensor<64x4096xf16>

  // sum_j h[i, j]^2
  %e2 = tensor.empty() : tensor<64xf16>
  %z2 = linalg.fill ins(%zero : f16) outs(%e2 : tensor<64xf16>) -> tensor<64xf16>
  %hsq = linalg.generic {indexing_maps = [#id, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<64x4096xf16>) outs(%z2 : tensor<64xf16>) {
  ^bb0(%v: f16, %s: f16):
    %sq = arith.mulf %v, %v : f16
    %r = arith.addf %s, %sq : f16
    linalg.yield %r : f16
  } -> tensor<64xf16>

  // O = rms_norm(H)
  %e3 = tensor.empty() : tensor<64x4096xf16>
  %out = linalg.generic {indexing_maps = [#id, #row, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%h, %hsq : tensor<64x4096xf16>, tensor<64xf16>) outs(%e3 : tensor<64x4096xf16>) {
  ^bb0(%v: f16, %s: f16, %o: f16):
    %inv_n = arith.constant 2.441406e-04 : f16
    %eps = arith.constant 1.000000e-06 : f16
    %mean = arith.mulf %s, %inv_n : f16
    %var = arith.addf %mean, %eps : f16
    %rstd = math.rsqrt %var : f16
    %r = arith.mulf %v, %rstd : f16
    linalg.yield %r : f16
  } -> tensor<64x4096xf16>
  return %out : tensor<64x4096xf16>
}
