func.func @self(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @self} {
  %y = kernel.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
