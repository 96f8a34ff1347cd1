func.func @zero(%x: tensor<0x8xf32>, %y: tensor<0x8xf32>) -> tensor<0x8xf32> {
  %e = kernel.exp %x : tensor<0x8xf32>
  %m = kernel.mul %e, %y : tensor<0x8xf32>, tensor<0x8xf32>
  return %m : tensor<0x8xf32>
}

// -----

func.func @integer(%x: tensor<8x16xi32>, %y: tensor<8x16xi32>) -> tensor<8x16xi32> {
  %a = kernel.add %x, %y : tensor<8x16xi32>, tensor<8x16xi32>
  return %a : tensor<8x16xi32>
}

// -----

func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %e = kernel.exp %x : tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}
