func.func @transpose_wrong_length(%a: tensor<8x64xf16>) {
  %0 = kernel.transpose %a [0, 1, 2] : tensor<8x64xf16>
  return
}
