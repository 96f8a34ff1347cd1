// A two-layer MLP with GELU between the matmuls (bf16): the second matmul
// needs every column of the first's result.

func.func @gelu_mlp(%x: tensor<32x1024xbf16>, %w1: tensor<1024x2048xbf16>, %w2: tensor<2048x1024xbf16>) -> tensor<32x1024xbf16> {
  %h = kernel.matmul %x, %w1 : tensor<32x1024xbf16>, tensor<1024x2048xbf16>
  %g = kernel.gelu %h : tensor<32x2048xbf16>
  %o = kernel.matmul %g, %w2 : tensor<32x2048xbf16>, tensor<2048x1024xbf16>
  return %o : tensor<32x1024xbf16>
}
