func.func @matmul_rank_mismatch(%a: tensor<2x8x64xf16>, %b: tensor<64x8xf16>) {
  %0 = kernel.matmul %a, %b : tensor<2x8x64xf16>, tensor<64x8xf16>
  return
}
