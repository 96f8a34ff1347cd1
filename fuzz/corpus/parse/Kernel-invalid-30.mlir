func.func @generic_missing_permutation(%a: tensor<8x64xf16>) {
  %0 = "kernel.transpose"(%a) : (tensor<8x64xf16>) -> tensor<64x8xf16>
  return
}
