func.func @concat_other_dim_mismatch(%a: tensor<8x64xf16>, %b: tensor<8x32xf16>) {
  %0 = kernel.concat %a, %b dim 0 : tensor<8x64xf16>, tensor<8x32xf16>
  return
}
