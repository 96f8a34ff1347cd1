module attributes {mlsopt.target = "sm_80"} {
  func.func @too_many_threads_sm80(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
    %o = kernel.custom (%x) grid <1, 1, 1> block <32, 32, 2>
        : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
      block.return
    }
    return %o : tensor<8x64xf16>
  }
}
