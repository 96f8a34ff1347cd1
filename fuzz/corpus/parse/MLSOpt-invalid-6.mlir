module attributes {mlsopt.equivalent_to = @m} {
  func.func @m(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = kernel.exp %x : tensor<8xf32>
    return %y : tensor<8xf32>
  }
}
