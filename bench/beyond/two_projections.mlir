// Two projections of the same activations by weights of one shape, both
// returned (Q and K, or an MLP's gate and up before they are combined).

func.func @two_projections(%x: tensor<128x2048xf16>, %wa: tensor<2048x1024xf16>, %wb: tensor<2048x1024xf16>) -> (tensor<128x1024xf16>, tensor<128x1024xf16>) {
  %a = kernel.matmul %x, %wa : tensor<128x2048xf16>, tensor<2048x1024xf16>
  %b = kernel.matmul %x, %wb : tensor<128x2048xf16>, tensor<2048x1024xf16>
  return %a, %b : tensor<128x1024xf16>, tensor<128x1024xf16>
}
