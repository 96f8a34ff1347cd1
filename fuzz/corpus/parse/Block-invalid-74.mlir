func.func @smem_overflow(%x: tensor<4294967296x4294967296xf16>) -> tensor<4294967296x4294967296xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <32, 1, 1> : (tensor<4294967296x4294967296xf16>) -> tensor<4294967296x4294967296xf16> {
  ^bb0(%in0: tensor<4294967296x4294967296xf16>, %out0: tensor<4294967296x4294967296xf16>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<4294967296x4294967296xf16> {
      %t = block.load %in0 imap <> : tensor<4294967296x4294967296xf16> -> tensor<4294967296x4294967296xf16>
      block.yield %t : tensor<4294967296x4294967296xf16>
    }
    block.store %a, %out0 omap <> : tensor<4294967296x4294967296xf16> into tensor<4294967296x4294967296xf16>
    block.return
  }
  return %o : tensor<4294967296x4294967296xf16>
}
