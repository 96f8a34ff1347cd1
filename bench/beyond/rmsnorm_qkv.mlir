// RMSNorm with a gain (spelled out) before the Q, K and V projections of a
// grouped-query attention layer (K and V narrower than Q), all returned.

func.func @rmsnorm_qkv(%x: tensor<32x2048xf16>, %g: tensor<1x2048xf16>, %wq: tensor<2048x2048xf16>, %wk: tensor<2048x512xf16>, %wv: tensor<2048x512xf16>) -> (tensor<32x2048xf16>, tensor<32x512xf16>, tensor<32x512xf16>) {
  %sq = kernel.square %x : tensor<32x2048xf16>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<32x2048xf16>
  %ms = kernel.mul_scalar %ss, 4.8828125e-04 : tensor<32x1xf16>
  %me = kernel.add_scalar %ms, 1.0e-06 : tensor<32x1xf16>
  %r = kernel.rsqrt %me : tensor<32x1xf16>
  %n = kernel.mul %x, %r : tensor<32x2048xf16>, tensor<32x1xf16>
  %ng = kernel.mul %n, %g : tensor<32x2048xf16>, tensor<1x2048xf16>
  %q = kernel.matmul %ng, %wq : tensor<32x2048xf16>, tensor<2048x2048xf16>
  %k = kernel.matmul %ng, %wk : tensor<32x2048xf16>, tensor<2048x512xf16>
  %v = kernel.matmul %ng, %wv : tensor<32x2048xf16>, tensor<2048x512xf16>
  return %q, %k, %v : tensor<32x2048xf16>, tensor<32x512xf16>, tensor<32x512xf16>
}
