func.func @generic_missing_dim(%a: tensor<8x64xf16>) {
  %0 = "kernel.reduce_sum"(%a) : (tensor<8x64xf16>) -> tensor<8x1xf16>
  return
}
