func.func @rescale_max_larger_than_value(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %r, %s = block.for_loop 1 iterations accumulate (max, rescale by 0) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %mx = block.reduce_sum %t dim 1 : tensor<8x64xf16>
      block.yield %t, %mx : tensor<8x64xf16>, tensor<8x1xf16>
    }
    block.store %r, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}
