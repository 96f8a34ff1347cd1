func.func @kernel_level(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %e = kernel.exp %x : tensor<8x64xf16>
  return %e : tensor<8x64xf16>
}
