func.func @binary_no_broadcast(%a: tensor<8x64xf16>, %b: tensor<4x64xf16>) {
  %0 = kernel.add %a, %b : tensor<8x64xf16>, tensor<4x64xf16>
  return
}
