// BERT-base self-attention over 128 tokens at batch 8 (12 heads of 64)
// with a boolean padding mask, as torch-mlir imports
// torch.where(mask, scores, -inf) for a [b, 1, 1, s] mask of kept keys:
// the select becomes the scores plus kernel.where(mask, 0, -inf), the bias
// a float padding mask would add, which the search takes as an input and
// the kernel that reads it loads as bytes (--fuse-kernel-elementwise).

func.func @bert_bool_mask_attention(%q: tensor<8x12x128x64xf16>, %k: tensor<8x12x64x128xf16>, %v: tensor<8x12x128x64xf16>, %mask: tensor<8x1x1x128xi1>) -> tensor<8x12x128x64xf16> {
  %s0 = kernel.matmul %q, %k : tensor<8x12x128x64xf16>, tensor<8x12x64x128xf16>
  %s1 = kernel.mul_scalar %s0, 0.125 : tensor<8x12x128x128xf16>
  %b = kernel.where %mask, 0.0, 0xFFF0000000000000 : tensor<8x1x1x128xi1> to tensor<8x1x1x128xf16>
  %s = kernel.add %s1, %b : tensor<8x12x128x128xf16>, tensor<8x1x1x128xf16>
  %m = kernel.reduce_max %s dim 3 : tensor<8x12x128x128xf16>
  %d = kernel.sub %s, %m : tensor<8x12x128x128xf16>, tensor<8x12x128x1xf16>
  %e = kernel.exp %d : tensor<8x12x128x128xf16>
  %l = kernel.reduce_sum %e dim 3 : tensor<8x12x128x128xf16>
  %p = kernel.div %e, %l : tensor<8x12x128x128xf16>, tensor<8x12x128x1xf16>
  %o = kernel.matmul %p, %v : tensor<8x12x128x128xf16>, tensor<8x12x128x64xf16>
  return %o : tensor<8x12x128x64xf16>
}
