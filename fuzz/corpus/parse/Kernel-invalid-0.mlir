func.func @matmul_contraction(%a: tensor<8x64xf16>, %b: tensor<32x64xf16>) {
  %0 = kernel.matmul %a, %b : tensor<8x64xf16>, tensor<32x64xf16>
  return
}
