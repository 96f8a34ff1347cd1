func.func @body_not_a_block_graph(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    llvm.unreachable
  }
  return %o : tensor<8x64xf16>
}
