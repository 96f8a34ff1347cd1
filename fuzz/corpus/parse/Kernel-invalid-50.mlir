func.func @block_overflow(%x: tensor<8xf32>) -> tensor<8xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <4294967296, 4294967296, 1> : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%in0: tensor<8xf32>, %out0: tensor<8xf32>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<8xf32> {
      %t = block.load %in0 imap <> : tensor<8xf32> -> tensor<8xf32>
      block.yield %t : tensor<8xf32>
    }
    block.store %a, %out0 omap <> : tensor<8xf32> into tensor<8xf32>
    block.return
  }
  return %o : tensor<8xf32>
}
