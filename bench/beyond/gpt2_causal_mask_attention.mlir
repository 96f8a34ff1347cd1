// GPT-2 small's self-attention over 128 tokens at batch 8 (12 heads of 64)
// as Hugging Face writes it: torch.where(causal_mask, attn_weights,
// torch.finfo(dtype).min), the mask a boolean [1, 1, s, s] slice of the
// model's buffer. A finite fill imports as max(scores + where(m, 0, -inf),
// where(m, -inf, c)); the search sees the pair as the add alone and the
// kernel it finds takes the max back (ScoreChains.h).

func.func @gpt2_causal_mask_attention(%q: tensor<8x12x128x64xf16>, %k: tensor<8x12x64x128xf16>, %v: tensor<8x12x128x64xf16>, %causal: tensor<1x1x128x128xi1>) -> tensor<8x12x128x64xf16> {
  %s0 = kernel.matmul %q, %k : tensor<8x12x128x64xf16>, tensor<8x12x64x128xf16>
  %s1 = kernel.mul_scalar %s0, 0.125 : tensor<8x12x128x128xf16>
  %keep = kernel.where %causal, 0.0, 0xFFF0000000000000 : tensor<1x1x128x128xi1> to tensor<1x1x128x128xf16>
  %kept = kernel.add %s1, %keep : tensor<8x12x128x128xf16>, tensor<1x1x128x128xf16>
  %fill = kernel.where %causal, 0xFFF0000000000000, -65504.0 : tensor<1x1x128x128xi1> to tensor<1x1x128x128xf16>
  %s = kernel.max %kept, %fill : tensor<8x12x128x128xf16>, tensor<1x1x128x128xf16>
  %m = kernel.reduce_max %s dim 3 : tensor<8x12x128x128xf16>
  %d = kernel.sub %s, %m : tensor<8x12x128x128xf16>, tensor<8x12x128x1xf16>
  %e = kernel.exp %d : tensor<8x12x128x128xf16>
  %l = kernel.reduce_sum %e dim 3 : tensor<8x12x128x128xf16>
  %p = kernel.div %e, %l : tensor<8x12x128x128xf16>, tensor<8x12x128x1xf16>
  %o = kernel.matmul %p, %v : tensor<8x12x128x128xf16>, tensor<8x12x128x64xf16>
  return %o : tensor<8x12x128x64xf16>
}
