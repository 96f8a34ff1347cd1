func.func @transpose_negative_dim(%a: tensor<8x64xf16>) {
  %0 = kernel.transpose %a [-1, 0] : tensor<8x64xf16>
  return
}
