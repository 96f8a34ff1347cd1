func.func @integer_scalar(%a: tensor<8x64xf16>) {
  %0 = kernel.mul_scalar %a, 2 : tensor<8x64xf16>
  return
}
