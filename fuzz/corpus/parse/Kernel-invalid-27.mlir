func.func @generic_integer_operand(%a: tensor<8x64xi32>) {
  %0 = "kernel.neg"(%a) : (tensor<8x64xi32>) -> tensor<8x64xi32>
  return
}
