func.func @generic_wrong_result_shape(%a: tensor<8x64xf16>) {
  %0 = "kernel.exp"(%a) : (tensor<8x64xf16>) -> tensor<8x32xf16>
  return
}
