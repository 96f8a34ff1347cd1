func.func @shared_memory_over_sm90(%x: tensor<227x129xf16>) -> tensor<227x129xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <1024, 1, 1>
      : (tensor<227x129xf16>) -> tensor<227x129xf16> {
  ^bb0(%in0: tensor<227x129xf16>, %out0: tensor<227x129xf16>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<227x129xf16> {
      %t = block.load %in0 imap <> : tensor<227x129xf16> -> tensor<227x129xf16>
      %e = block.exp %t : tensor<227x129xf16>
      block.yield %e : tensor<227x129xf16>
    }
    %s = block.sigmoid %a : tensor<227x129xf16>
    block.store %s, %out0 omap <> : tensor<227x129xf16> into tensor<227x129xf16>
    block.return
  }
  return %o : tensor<227x129xf16>
}
