func.func @transpose_repeated_dim(%a: tensor<8x64xf16>) {
  %0 = kernel.transpose %a [1, 1] : tensor<8x64xf16>
  return
}
