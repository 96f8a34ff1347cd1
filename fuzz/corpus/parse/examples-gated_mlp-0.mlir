func.func @reference(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>,
                     %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %b = kernel.matmul %x, %w2 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %s = kernel.silu %a : tensor<8x4096xf16>
  %o = kernel.mul %s, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
  return %o : tensor<8x4096xf16>
}

func.func @fused(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>,
                 %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16>
    attributes {mlsopt.equivalent_to = @reference} {
  %o = kernel.custom (%x, %w1, %w2) grid <128, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>)
        -> tensor<8x4096xf16> {
  ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x4096xf16>,
       %in2: tensor<4096x4096xf16>, %out0: tensor<8x4096xf16>):
    %acc:2 = block.for_loop 32 iterations accumulate (sum, sum)
        : tensor<8x32xf16>, tensor<8x32xf16> {
      %xt = block.load %in0 imap <> fmap 1
          : tensor<8x4096xf16> -> tensor<8x128xf16>
      %w1t = block.load %in1 imap <x = 1> fmap 0
          : tensor<4096x4096xf16> -> tensor<128x32xf16>
      %w2t = block.load %in2 imap <x = 1> fmap 0
          : tensor<4096x4096xf16> -> tensor<128x32xf16>
      %m1 = block.matmul %xt, %w1t : tensor<8x128xf16>, tensor<128x32xf16>
      %m2 = block.matmul %xt, %w2t : tensor<8x128xf16>, tensor<128x32xf16>
      block.yield %m1, %m2 : tensor<8x32xf16>, tensor<8x32xf16>
    }
    %y = thread.graph (%acc#0, %acc#1)
        : (tensor<8x32xf16>, tensor<8x32xf16>) -> tensor<8x32xf16> {
    ^bb0(%a: f16, %b: f16):
      %s = thread.unary silu %a : f16
      %p = thread.binary mul %s, %b : f16
      thread.yield %p : f16
    }
    block.store %y, %out0 omap <x = 1>
        : tensor<8x32xf16> into tensor<8x4096xf16>
    block.return
  }
  return %o : tensor<8x4096xf16>
}
