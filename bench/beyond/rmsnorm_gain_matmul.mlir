// RMSNorm with its learned gain, then a matmul (Mirage's RMSNorm + Linear
// tutorial).

func.func @rmsnorm_gain_matmul(%x: tensor<4x2048xf16>, %g: tensor<1x2048xf16>, %w: tensor<2048x2048xf16>) -> tensor<4x2048xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-05 : f64} : tensor<4x2048xf16>
  %s = kernel.mul %n, %g : tensor<4x2048xf16>, tensor<1x2048xf16>
  %o = kernel.matmul %s, %w : tensor<4x2048xf16>, tensor<2048x2048xf16>
  return %o : tensor<4x2048xf16>
}
