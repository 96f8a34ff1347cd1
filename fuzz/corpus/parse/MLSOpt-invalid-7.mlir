func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.chip = "sm_90"} {
  %y = kernel.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
