func.func @block_matmul_contraction(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    %p = block.matmul %m, %m : tensor<8x64xf16>, tensor<8x64xf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}
