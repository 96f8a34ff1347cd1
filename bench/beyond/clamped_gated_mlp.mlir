// A gated MLP whose gate is clamped (Mirage's clamp, torch.clamp as some
// models bound activations): silu(clamp(X W1, -8, 8)) * (X W2).

func.func @clamped_gated_mlp(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %lo = kernel.max_scalar %a, -8.0 : tensor<8x4096xf16>
  %c = kernel.min_scalar %lo, 8.0 : tensor<8x4096xf16>
  %g = kernel.silu %c : tensor<8x4096xf16>
  %b = kernel.matmul %x, %w2 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %o = kernel.mul %g, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
  return %o : tensor<8x4096xf16>
}
