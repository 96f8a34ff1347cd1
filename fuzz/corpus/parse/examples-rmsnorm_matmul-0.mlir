func.func @reference(%x: tensor<8x4096xf16>, %w: tensor<4096x6144xf16>)
    -> tensor<8x6144xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x4096xf16>
  %o = kernel.matmul %n, %w : tensor<8x4096xf16>, tensor<4096x6144xf16>
  return %o : tensor<8x6144xf16>
}

func.func @fused(%x: tensor<8x4096xf16>, %w: tensor<4096x6144xf16>)
    -> tensor<8x6144xf16> attributes {mlsopt.equivalent_to = @reference} {
  %o = kernel.custom (%x, %w) grid <96, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>, tensor<4096x6144xf16>) -> tensor<8x6144xf16> {
  ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x6144xf16>,
       %out0: tensor<8x6144xf16>):
    %acc:2 = block.for_loop 64 iterations accumulate (sum, sum)
        : tensor<8x64xf16>, tensor<8x1xf16> {
      %xt = block.load %in0 imap <> fmap 1
          : tensor<8x4096xf16> -> tensor<8x64xf16>
      %wt = block.load %in1 imap <x = 1> fmap 0
          : tensor<4096x6144xf16> -> tensor<64x64xf16>
      %m = block.matmul %xt, %wt : tensor<8x64xf16>, tensor<64x64xf16>
      %sq = block.square %xt : tensor<8x64xf16>
      %s = block.reduce_sum %sq dim 1 : tensor<8x64xf16>
      block.yield %m, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%acc#0, %acc#1)
        : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16> {
    ^bb0(%xw: f16, %sumsq: f16):
      %ms = thread.mul_scalar %sumsq, 2.44140625E-4 : f16   // 1/4096: mean
      %mse = thread.add_scalar %ms, 1.0e-06 : f16           // + eps
      %rms = thread.unary sqrt %mse : f16
      %o1 = thread.binary div %xw, %rms : f16
      thread.yield %o1 : f16
    }
    block.store %y, %out0 omap <x = 1>
        : tensor<8x64xf16> into tensor<8x6144xf16>
    block.return
  }
  return %o : tensor<8x6144xf16>
}
