func.func @prologue(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %in1: tensor<64x32xf32>, %out0: tensor<8x32xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf32> {
      %xt = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      %wt = block.load %in1 imap <> : tensor<64x32xf32> -> tensor<64x32xf32>
      %e = block.exp %xt : tensor<8x64xf32>
      %n = block.neg %e : tensor<8x64xf32>
      %r = block.reduce_sum %n dim 1 : tensor<8x64xf32>
      %d = block.div %n, %r : tensor<8x64xf32>, tensor<8x1xf32>
      %m = block.matmul %d, %wt : tensor<8x64xf32>, tensor<64x32xf32>
      block.yield %m : tensor<8x32xf32>
    }
    block.store %acc, %out0 omap <> : tensor<8x32xf32> into tensor<8x32xf32>
    block.return
  }
  return %o : tensor<8x32xf32>
}
