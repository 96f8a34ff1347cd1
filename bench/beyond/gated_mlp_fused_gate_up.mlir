// A gated MLP whose gate and up projections are one matmul, split in two
// by slices, as Phi-3 (gate_up_proj, then chunk(2, dim=-1)) writes it, at
// Phi-3-mini's sizes and 8 tokens. The kernel after the product reads both
// halves in place (block.load windows): no copy kernels.

func.func @gated_mlp_fused_gate_up(%x: tensor<8x3072xf16>, %wgu: tensor<3072x16384xf16>, %wd: tensor<8192x3072xf16>) -> tensor<8x3072xf16> {
  %h = kernel.matmul %x, %wgu : tensor<8x3072xf16>, tensor<3072x16384xf16>
  %g = tensor.extract_slice %h[0, 0] [8, 8192] [1, 1] : tensor<8x16384xf16> to tensor<8x8192xf16>
  %u = tensor.extract_slice %h[0, 8192] [8, 8192] [1, 1] : tensor<8x16384xf16> to tensor<8x8192xf16>
  %s = kernel.silu %g : tensor<8x8192xf16>
  %m = kernel.mul %s, %u : tensor<8x8192xf16>, tensor<8x8192xf16>
  %o = kernel.matmul %m, %wd : tensor<8x8192xf16>, tensor<8192x3072xf16>
  return %o : tensor<8x3072xf16>
}
