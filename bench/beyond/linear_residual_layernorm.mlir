// Post-LN block: a linear layer, its bias and the residual, then a LayerNorm
// (BERT).

func.func @linear_residual_layernorm(%x: tensor<128x1024xf16>, %w: tensor<1024x1024xf16>, %bias: tensor<1x1024xf16>, %res: tensor<128x1024xf16>) -> tensor<128x1024xf16> {
  %y0 = kernel.matmul %x, %w : tensor<128x1024xf16>, tensor<1024x1024xf16>
  %y1 = kernel.add %y0, %bias : tensor<128x1024xf16>, tensor<1x1024xf16>
  %h = kernel.add %y1, %res : tensor<128x1024xf16>, tensor<128x1024xf16>
  %s = kernel.reduce_sum %h dim 1 : tensor<128x1024xf16>
  %mu = kernel.mul_scalar %s, 9.765625e-04 : tensor<128x1xf16>
  %c = kernel.sub %h, %mu : tensor<128x1024xf16>, tensor<128x1xf16>
  %sq = kernel.square %c : tensor<128x1024xf16>
  %v = kernel.reduce_sum %sq dim 1 : tensor<128x1024xf16>
  %vm = kernel.mul_scalar %v, 9.765625e-04 : tensor<128x1xf16>
  %ve = kernel.add_scalar %vm, 1.0e-05 : tensor<128x1xf16>
  %rs = kernel.rsqrt %ve : tensor<128x1xf16>
  %n = kernel.mul %c, %rs : tensor<128x1024xf16>, tensor<128x1xf16>
  return %n : tensor<128x1024xf16>
}
