func.func @concat_dim_out_of_range(%a: tensor<8x64xf16>, %b: tensor<8x32xf16>) {
  %0 = kernel.concat %a, %b dim 2 : tensor<8x64xf16>, tensor<8x32xf16>
  return
}
