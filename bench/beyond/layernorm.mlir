// LayerNorm with gain and bias over rows of 1000 (f32): the mean, the
// centred rows, their variance, the normalization, the gain and the bias.
// Eleven ops; the variance and its rsqrt are raised to an rms_norm of the
// centred rows, and the mean counts one op, so the six that remain are one
// subprogram.

func.func @layernorm(%x: tensor<64x1000xf32>, %g: tensor<1x1000xf32>, %b: tensor<1x1000xf32>) -> tensor<64x1000xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<64x1000xf32>
  %m = kernel.mul_scalar %s, 0.001 : tensor<64x1xf32>
  %c = kernel.sub %x, %m : tensor<64x1000xf32>, tensor<64x1xf32>
  %sq = kernel.square %c : tensor<64x1000xf32>
  %vs = kernel.reduce_sum %sq dim 1 : tensor<64x1000xf32>
  %v = kernel.mul_scalar %vs, 0.001 : tensor<64x1xf32>
  %ve = kernel.add_scalar %v, 1.0e-5 : tensor<64x1xf32>
  %r = kernel.rsqrt %ve : tensor<64x1xf32>
  %n = kernel.mul %c, %r : tensor<64x1000xf32>, tensor<64x1xf32>
  %ng = kernel.mul %n, %g : tensor<64x1000xf32>, tensor<1x1000xf32>
  %o = kernel.add %ng, %b : tensor<64x1000xf32>, tensor<1x1000xf32>
  return %o : tensor<64x1000xf32>
}
