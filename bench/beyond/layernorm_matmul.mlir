// LayerNorm (mean-centred, variance over the last dim, no affine) before a
// matmul, spelled out in kernel ops.

func.func @layernorm_matmul(%x: tensor<16x1024xf16>, %w: tensor<1024x1024xf16>) -> tensor<16x1024xf16> {
  %s = kernel.reduce_sum %x dim 1 : tensor<16x1024xf16>
  %mu = kernel.mul_scalar %s, 9.765625e-04 : tensor<16x1xf16>
  %c = kernel.sub %x, %mu : tensor<16x1024xf16>, tensor<16x1xf16>
  %sq = kernel.square %c : tensor<16x1024xf16>
  %v = kernel.reduce_sum %sq dim 1 : tensor<16x1024xf16>
  %vm = kernel.mul_scalar %v, 9.765625e-04 : tensor<16x1xf16>
  %ve = kernel.add_scalar %vm, 1.0e-05 : tensor<16x1xf16>
  %r = kernel.rsqrt %ve : tensor<16x1xf16>
  %n = kernel.mul %c, %r : tensor<16x1024xf16>, tensor<16x1xf16>
  %o = kernel.matmul %n, %w : tensor<16x1024xf16>, tensor<1024x1024xf16>
  return %o : tensor<16x1024xf16>
}
