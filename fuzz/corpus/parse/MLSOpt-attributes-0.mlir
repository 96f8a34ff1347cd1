module attributes {mlsopt.target = "sm_80"} {
  func.func @reference(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = kernel.exp %x : tensor<8xf32>
    return %y : tensor<8xf32>
  }
  func.func @fused(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @reference} {
    %y = kernel.exp %x : tensor<8xf32>
    return %y : tensor<8xf32>
  }
}
