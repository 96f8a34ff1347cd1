// A gated MLP with a residual on its input: x + silu(x W1) * (x W2). x is
// read as [m, k] by both products and as [m, n] by the residual, two
// tilings of one tensor.

func.func @residual_gated_mlp(%x: tensor<8x1024xf16>, %w1: tensor<1024x1024xf16>, %w2: tensor<1024x1024xf16>) -> tensor<8x1024xf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x1024xf16>, tensor<1024x1024xf16>
  %b = kernel.matmul %x, %w2 : tensor<8x1024xf16>, tensor<1024x1024xf16>
  %s = kernel.silu %a : tensor<8x1024xf16>
  %m = kernel.mul %s, %b : tensor<8x1024xf16>, tensor<8x1024xf16>
  %o = kernel.add %m, %x : tensor<8x1024xf16>, tensor<8x1024xf16>
  return %o : tensor<8x1024xf16>
}
