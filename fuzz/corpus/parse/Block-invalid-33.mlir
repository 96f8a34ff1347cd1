module attributes {mlsopt.target = "sm_86"} {
  func.func @shared_memory_over_sm86(%x: tensor<100x128xf16>) -> tensor<100x128xf16> {
    %o = kernel.custom (%x) grid <1, 1, 1> block <1024, 1, 1>
        : (tensor<100x128xf16>) -> tensor<100x128xf16> {
    ^bb0(%in0: tensor<100x128xf16>, %out0: tensor<100x128xf16>):
      %a = block.for_loop 1 iterations accumulate (sum) : tensor<100x128xf16> {
        %t = block.load %in0 imap <> : tensor<100x128xf16> -> tensor<100x128xf16>
        %e = block.exp %t : tensor<100x128xf16>
        block.yield %e : tensor<100x128xf16>
      }
      %s = block.sigmoid %a : tensor<100x128xf16>
      block.store %s, %out0 omap <> : tensor<100x128xf16> into tensor<100x128xf16>
      block.return
    }
    return %o : tensor<100x128xf16>
  }
}
