func.func @body_output_type(%x: tensor<8x64xf16>, %y: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x, %y) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<8x64xf16>, %out0: tensor<8x32xf16>):
    block.return
  }
  return %o : tensor<8x64xf16>
}
