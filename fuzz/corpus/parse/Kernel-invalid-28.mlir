func.func @generic_integer_result(%a: tensor<8x64xf16>) {
  %0 = "kernel.exp"(%a) : (tensor<8x64xf16>) -> tensor<8x64xi32>
  return
}
