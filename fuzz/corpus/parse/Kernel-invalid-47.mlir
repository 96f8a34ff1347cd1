func.func @zero_sized(%a: tensor<0x64xf16>) {
  %b = kernel.reduce_max %a dim 0 : tensor<0x64xf16>
  return
}
