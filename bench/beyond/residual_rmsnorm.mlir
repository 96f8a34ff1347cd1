// The residual add and RMSNorm between LLaMA layers, fused in vLLM's
// fused_add_rms_norm: the new residual stream h = x + r and the next layer's
// input rms_norm(h) * w, both returned, over 16 tokens of 4096 in bf16.

func.func @residual_rmsnorm(%x: tensor<16x4096xbf16>, %r: tensor<16x4096xbf16>, %w: tensor<1x4096xbf16>) -> (tensor<16x4096xbf16>, tensor<16x4096xbf16>) {
  %h = kernel.add %x, %r : tensor<16x4096xbf16>, tensor<16x4096xbf16>
  %n = kernel.rms_norm %h {epsilon = 1.0e-06 : f64} : tensor<16x4096xbf16>
  %o = kernel.mul %n, %w : tensor<16x4096xbf16>, tensor<1x4096xbf16>
  return %h, %o : tensor<16x4096xbf16>, tensor<16x4096xbf16>
}
