// Pre-LN block: LayerNorm with gain and bias (mean and variance spelled out)
// before a linear layer with a bias, as GPT-2 and ViT write it.

func.func @layernorm_affine_linear(%x: tensor<64x2048xf16>, %g: tensor<2048xf16>, %b: tensor<2048xf16>, %w: tensor<2048x2048xf16>, %bias: tensor<2048xf16>) -> tensor<64x2048xf16> {
  %s = kernel.reduce_sum %x dim 1 : tensor<64x2048xf16>
  %mu = kernel.mul_scalar %s, 4.8828125e-04 : tensor<64x1xf16>
  %c = kernel.sub %x, %mu : tensor<64x2048xf16>, tensor<64x1xf16>
  %sq = kernel.square %c : tensor<64x2048xf16>
  %v = kernel.reduce_sum %sq dim 1 : tensor<64x2048xf16>
  %vm = kernel.mul_scalar %v, 4.8828125e-04 : tensor<64x1xf16>
  %ve = kernel.add_scalar %vm, 1.0e-05 : tensor<64x1xf16>
  %r = kernel.rsqrt %ve : tensor<64x1xf16>
  %n = kernel.mul %c, %r : tensor<64x2048xf16>, tensor<64x1xf16>
  %ng = kernel.mul %n, %g : tensor<64x2048xf16>, tensor<2048xf16>
  %nb = kernel.add %ng, %b : tensor<64x2048xf16>, tensor<2048xf16>
  %o = kernel.matmul %nb, %w : tensor<64x2048xf16>, tensor<2048x2048xf16>
  %ob = kernel.add %o, %bias : tensor<64x2048xf16>, tensor<2048xf16>
  return %ob : tensor<64x2048xf16>
}
