func.func @integer_output(%x: tensor<8x64xf16>) -> tensor<8x64xi32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> tensor<8x64xi32> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xi32>):
    block.return
  }
  return %o : tensor<8x64xi32>
}
