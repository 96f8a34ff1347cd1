module attributes {mlsopt.target = 90} {
  func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = kernel.exp %x : tensor<8xf32>
    return %y : tensor<8xf32>
  }
}
