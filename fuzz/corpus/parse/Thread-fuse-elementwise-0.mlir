func.func @epilogue(%x: tensor<8x64xf16>, %w1: tensor<64x64xf16>, %w2: tensor<64x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x, %w1, %w2) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<64x64xf16>, %in2: tensor<64x64xf16>, %out0: tensor<8x64xf16>):
    %acc:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<8x64xf16>, tensor<8x64xf16> {
      %xt = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %w1t = block.load %in1 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %w2t = block.load %in2 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %a = block.matmul %xt, %w1t : tensor<8x64xf16>, tensor<64x64xf16>
      %b = block.matmul %xt, %w2t : tensor<8x64xf16>, tensor<64x64xf16>
      block.yield %a, %b : tensor<8x64xf16>, tensor<8x64xf16>
    }
    %s = block.silu %acc#0 : tensor<8x64xf16>
    %m = block.mul %s, %acc#1 : tensor<8x64xf16>, tensor<8x64xf16>
    %n = block.mul_scalar %m, 0.5 : tensor<8x64xf16>
    %q = block.add %n, %s : tensor<8x64xf16>, tensor<8x64xf16>
    block.store %q, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}
