func.func @reduce_dim_negative(%a: tensor<8x64xf16>) {
  %0 = kernel.reduce_max %a dim -1 : tensor<8x64xf16>
  return
}
