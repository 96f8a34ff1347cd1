func.func @matmul_batch_mismatch(%a: tensor<2x3x8x64xbf16>, %b: tensor<2x4x64x8xbf16>) {
  %0 = kernel.matmul %a, %b : tensor<2x3x8x64xbf16>, tensor<2x4x64x8xbf16>
  return
}
