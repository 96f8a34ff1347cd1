func.func @grid_split_does_not_divide(%x: tensor<8x100xf16>) -> tensor<8x100xf16> {
  %o = kernel.custom (%x) grid <3, 1, 1> block <128, 1, 1> : (tensor<8x100xf16>) -> tensor<8x100xf16> {
  ^bb0(%in0: tensor<8x100xf16>, %out0: tensor<8x100xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x33xf16> {
      %t = block.load %in0 imap <x = 1> : tensor<8x100xf16> -> tensor<8x33xf16>
      block.yield %t : tensor<8x33xf16>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x33xf16> into tensor<8x100xf16>
    block.return
  }
  return %o : tensor<8x100xf16>
}
