func.func @binary_element_types(%a: tensor<8x64xbf16>, %b: tensor<8x64xf16>) {
  %0 = kernel.sub %a, %b : tensor<8x64xbf16>, tensor<8x64xf16>
  return
}
