// The statistics of a safe softmax over rows of 128K elements: the row maximum
// and the sum of exp(x - max).

func.func @softmax_stats(%x: tensor<64x131072xf16>) -> (tensor<64x1xf16>, tensor<64x1xf16>) {
  %m = kernel.reduce_max %x dim 1 : tensor<64x131072xf16>
  %d = kernel.sub %x, %m : tensor<64x131072xf16>, tensor<64x1xf16>
  %e = kernel.exp %d : tensor<64x131072xf16>
  %l = kernel.reduce_sum %e dim 1 : tensor<64x131072xf16>
  return %m, %l : tensor<64x1xf16>, tensor<64x1xf16>
}
