func.func @generic_wrong_result_element_type(%a: tensor<8x64xf16>, %b: tensor<64x8xf16>) {
  %0 = "kernel.matmul"(%a, %b) : (tensor<8x64xf16>, tensor<64x8xf16>) -> tensor<8x8xf32>
  return
}
