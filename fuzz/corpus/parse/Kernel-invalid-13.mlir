func.func @concat_element_types(%a: tensor<8x64xf16>, %b: tensor<8x32xbf16>) {
  %0 = kernel.concat %a, %b dim 1 : tensor<8x64xf16>, tensor<8x32xbf16>
  return
}
