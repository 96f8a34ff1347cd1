// Safe softmax over rows of 4096.

func.func @softmax(%x: tensor<64x4096xf16>) -> tensor<64x4096xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<64x4096xf16>
  %d = kernel.sub %x, %m : tensor<64x4096xf16>, tensor<64x1xf16>
  %e = kernel.exp %d : tensor<64x4096xf16>
  %l = kernel.reduce_sum %e dim 1 : tensor<64x4096xf16>
  %o = kernel.div %e, %l : tensor<64x4096xf16>, tensor<64x1xf16>
  return %o : tensor<64x4096xf16>
}
