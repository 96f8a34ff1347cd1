// Safe softmax over rows of 65536, longer than shared memory holds.

func.func @softmax_long(%x: tensor<8x65536xf16>) -> tensor<8x65536xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<8x65536xf16>
  %d = kernel.sub %x, %m : tensor<8x65536xf16>, tensor<8x1xf16>
  %e = kernel.exp %d : tensor<8x65536xf16>
  %l = kernel.reduce_sum %e dim 1 : tensor<8x65536xf16>
  %o = kernel.div %e, %l : tensor<8x65536xf16>, tensor<8x1xf16>
  return %o : tensor<8x65536xf16>
}
