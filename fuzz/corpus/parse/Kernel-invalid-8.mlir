func.func @reduce_dim_out_of_range(%a: tensor<8x64xf16>) {
  %0 = kernel.reduce_sum %a dim 2 : tensor<8x64xf16>
  return
}
