func.func @integer_epsilon(%a: tensor<8x64xf16>) {
  %0 = kernel.rms_norm %a {epsilon = 1} : tensor<8x64xf16>
  return
}
