// SwiGLU: (X W1) * silu(X W2), the gate on the second operand.

func.func @swiglu(%x: tensor<8x2048xf16>, %w1: tensor<2048x2048xf16>, %w2: tensor<2048x2048xf16>) -> tensor<8x2048xf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x2048xf16>, tensor<2048x2048xf16>
  %b = kernel.matmul %x, %w2 : tensor<8x2048xf16>, tensor<2048x2048xf16>
  %s = kernel.silu %b : tensor<8x2048xf16>
  %o = kernel.mul %a, %s : tensor<8x2048xf16>, tensor<8x2048xf16>
  return %o : tensor<8x2048xf16>
}
