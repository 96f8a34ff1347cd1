// Multi-head attention in bf16 (8 heads, 128 queries, 1024 keys, head dim
// 128), Mirage-style softmax without max.

func.func @mha_bf16(%q: tensor<8x128x128xbf16>, %k: tensor<8x128x1024xbf16>, %v: tensor<8x1024x128xbf16>) -> tensor<8x128x128xbf16> {
  %s = kernel.matmul %q, %k : tensor<8x128x128xbf16>, tensor<8x128x1024xbf16>
  %e = kernel.exp %s : tensor<8x128x1024xbf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<8x128x1024xbf16>
  %ev = kernel.matmul %e, %v : tensor<8x128x1024xbf16>, tensor<8x1024x128xbf16>
  %o = kernel.div %ev, %l : tensor<8x128x128xbf16>, tensor<8x128x1xbf16>
  return %o : tensor<8x128x128xbf16>
}
