func.func @generic_dynamic_operand(%a: tensor<?x64xf16>) {
  %0 = "kernel.exp"(%a) : (tensor<?x64xf16>) -> tensor<8x64xf16>
  return
}
