func.func @concat_rank_mismatch(%a: tensor<8x64xf16>, %b: tensor<2x8x32xf16>) {
  %0 = kernel.concat %a, %b dim 1 : tensor<8x64xf16>, tensor<2x8x32xf16>
  return
}
