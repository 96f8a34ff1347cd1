func.func @matmul_element_types(%a: tensor<8x64xf16>, %b: tensor<64x8xf32>) {
  %0 = kernel.matmul %a, %b : tensor<8x64xf16>, tensor<64x8xf32>
  return
}
