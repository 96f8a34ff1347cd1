// Attention with a scale and a safe softmax, as torch's
// scaled_dot_product_attention decomposes it: S = (Q K) / 8,
// P = exp(S - max_j S) / sum_j exp(S - max_j S), O = P V. Eight ops, six
// counted against max-kernel-ops (the maximum and its subtraction count
// nothing).

func.func @attention_max_scaled(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %s0 = kernel.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %s = kernel.mul_scalar %s0, 0.125 : tensor<2x256x4096xf16>
  %m = kernel.reduce_max %s dim 2 : tensor<2x256x4096xf16>
  %d = kernel.sub %s, %m : tensor<2x256x4096xf16>, tensor<2x256x1xf16>
  %e = kernel.exp %d : tensor<2x256x4096xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %ev = kernel.matmul %e, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  %o = kernel.div %ev, %l : tensor<2x256x64xf16>, tensor<2x256x1xf16>
  return %o : tensor<2x256x64xf16>
}
