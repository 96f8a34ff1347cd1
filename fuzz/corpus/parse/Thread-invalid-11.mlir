func.func @operand_of_higher_rank(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<64xf16> {
    ^bb0(%a: f16):
      thread.yield %a : f16
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}
