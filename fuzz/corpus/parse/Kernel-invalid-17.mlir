func.func @transpose_dim_out_of_range(%a: tensor<2x8x64xf16>) {
  %0 = kernel.transpose %a [0, 3, 1] : tensor<2x8x64xf16>
  return
}
