func.func @for_loop_outside_custom(%x: tensor<8x64xf16>) {
  %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
    %t = block.exp %x : tensor<8x64xf16>
    block.yield %t : tensor<8x64xf16>
  }
  return
}
