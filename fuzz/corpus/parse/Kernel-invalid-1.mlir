func.func @matmul_rank1(%a: tensor<64xf16>, %b: tensor<64x8xf16>) {
  %0 = kernel.matmul %a, %b : tensor<64xf16>, tensor<64x8xf16>
  return
}
