// A gated MLP in f32 with ReLU as the gate: relu(X W1) * (X W2).

func.func @relu_gated_f32(%x: tensor<64x512xf32>, %w1: tensor<512x512xf32>, %w2: tensor<512x512xf32>) -> tensor<64x512xf32> {
  %a = kernel.matmul %x, %w1 : tensor<64x512xf32>, tensor<512x512xf32>
  %b = kernel.matmul %x, %w2 : tensor<64x512xf32>, tensor<512x512xf32>
  %r = kernel.relu %a : tensor<64x512xf32>
  %o = kernel.mul %r, %b : tensor<64x512xf32>, tensor<64x512xf32>
  return %o : tensor<64x512xf32>
}
