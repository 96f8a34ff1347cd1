func.func @graph_outside_block_graph(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %y = thread.graph (%x) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%a: f16):
    thread.yield %a : f16
  }
  return %y : tensor<8x64xf16>
}
