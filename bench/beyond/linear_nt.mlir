// A lone linear layer as PyTorch stores it: the weight [out, in], read
// transposed (X W^T). The search keeps the matmul as a library kernel; the
// kernel it becomes loads the weight as stored.

func.func @linear_nt(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %wt = kernel.transpose %w [1, 0] : tensor<4096x4096xf16>
  %o = kernel.matmul %x, %wt : tensor<8x4096xf16>, tensor<4096x4096xf16>
  return %o : tensor<8x4096xf16>
}
