// A LLaMA-style MLP at a small hidden size: (silu(X W1) * (X W2)) W3, five
// ops, one subprogram. The hidden state (4 x 2816) is no dim of the
// result, so the gated kernel's grid must split a dim only values between
// kernels have.

func.func @gated_mlp_down(%x: tensor<4x1024xf16>, %w1: tensor<1024x2816xf16>, %w2: tensor<1024x2816xf16>, %w3: tensor<2816x1024xf16>) -> tensor<4x1024xf16> {
  %a = kernel.matmul %x, %w1 : tensor<4x1024xf16>, tensor<1024x2816xf16>
  %b = kernel.matmul %x, %w2 : tensor<4x1024xf16>, tensor<1024x2816xf16>
  %s = kernel.silu %a : tensor<4x2816xf16>
  %g = kernel.mul %s, %b : tensor<4x2816xf16>, tensor<4x2816xf16>
  %o = kernel.matmul %g, %w3 : tensor<4x2816xf16>, tensor<2816x1024xf16>
  return %o : tensor<4x1024xf16>
}
