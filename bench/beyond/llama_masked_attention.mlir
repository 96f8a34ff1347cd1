// LLaMA-2-7B's attention over a 128-token prompt at batch 1 (32 heads of
// 128) with the additive causal mask Hugging Face builds (0 on and below
// the diagonal, finfo.min above it, [1, 1, s, s]). With no more keys than
// the head dim, the one-kernel μGraph divides the probabilities before
// their product by V (12 block ops with the mask's add counted, one past
// the default max-block-ops: kept as 10 launches before 2026-12-06).

func.func @llama_masked_attention(%q: tensor<1x32x128x128xf16>, %k: tensor<1x32x128x128xf16>, %v: tensor<1x32x128x128xf16>, %mask: tensor<1x1x128x128xf16>) -> tensor<1x32x128x128xf16> {
  %s0 = kernel.matmul %q, %k : tensor<1x32x128x128xf16>, tensor<1x32x128x128xf16>
  %s1 = kernel.mul_scalar %s0, 0.08838834764831845 : tensor<1x32x128x128xf16>
  %s = kernel.add %s1, %mask : tensor<1x32x128x128xf16>, tensor<1x1x128x128xf16>
  %m = kernel.reduce_max %s dim 3 : tensor<1x32x128x128xf16>
  %d = kernel.sub %s, %m : tensor<1x32x128x128xf16>, tensor<1x32x128x1xf16>
  %e = kernel.exp %d : tensor<1x32x128x128xf16>
  %l = kernel.reduce_sum %e dim 3 : tensor<1x32x128x128xf16>
  %p = kernel.div %e, %l : tensor<1x32x128x128xf16>, tensor<1x32x128x1xf16>
  %o = kernel.matmul %p, %v : tensor<1x32x128x128xf16>, tensor<1x32x128x128xf16>
  return %o : tensor<1x32x128x128xf16>
}
