func.func @integer_element_type(%a: tensor<8x64xi32>) {
  %0 = kernel.relu %a : tensor<8x64xi32>
  return
}
