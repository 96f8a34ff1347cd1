func.func @generic_f32_scalar(%a: tensor<8x64xf16>) {
  %0 = "kernel.add_scalar"(%a) <{scalar = 1.0 : f32}> : (tensor<8x64xf16>) -> tensor<8x64xf16>
  return
}
