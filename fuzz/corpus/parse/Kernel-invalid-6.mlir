func.func @binary_no_broadcast_rank_extension(%a: tensor<8x64xf32>, %b: tensor<2x1x32xf32>) {
  %0 = kernel.div %a, %b : tensor<8x64xf32>, tensor<2x1x32xf32>
  return
}
