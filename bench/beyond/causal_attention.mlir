// Causal self-attention of a prefill, LLaMA-style heads of 64 over 1024
// tokens, written as torch's scaled_dot_product_attention(is_causal=True)
// decomposes it: S = (Q K) / 8 with the future masked to -inf (key j > query
// i), P = exp(S - max_j S) / sum_j exp(S - max_j S), O = P V. The mask
// (kernel.triangle_fill, imported from a select on linalg.index values)
// counts nothing against max-kernel-ops.

func.func @causal_attention(%q: tensor<8x1024x64xf16>, %k: tensor<8x64x1024xf16>, %v: tensor<8x1024x64xf16>) -> tensor<8x1024x64xf16> {
  %s0 = kernel.matmul %q, %k : tensor<8x1024x64xf16>, tensor<8x64x1024xf16>
  %s1 = kernel.mul_scalar %s0, 0.125 : tensor<8x1024x1024xf16>
  %s = kernel.triangle_fill %s1 dims [1, 2] diagonal 1 value 0xFFF0000000000000 : tensor<8x1024x1024xf16>
  %m = kernel.reduce_max %s dim 2 : tensor<8x1024x1024xf16>
  %d = kernel.sub %s, %m : tensor<8x1024x1024xf16>, tensor<8x1024x1xf16>
  %e = kernel.exp %d : tensor<8x1024x1024xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<8x1024x1024xf16>
  %ev = kernel.matmul %e, %v : tensor<8x1024x1024xf16>, tensor<8x1024x64xf16>
  %o = kernel.div %ev, %l : tensor<8x1024x64xf16>, tensor<8x1024x1xf16>
  return %o : tensor<8x1024x64xf16>
}
