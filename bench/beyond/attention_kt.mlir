// Decode attention with K as PyTorch keeps it, [b, n, d], transposed for
// Q K^T (torch-mlir's SDPA), the scores scaled by 1/sqrt(64).

func.func @attention_kt(%q: tensor<2x256x64xf16>, %k: tensor<2x4096x64xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %kt = kernel.transpose %k [0, 2, 1] : tensor<2x4096x64xf16>
  %s = kernel.matmul %q, %kt : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %ss = kernel.mul_scalar %s, 0.125 : tensor<2x256x4096xf16>
  %e = kernel.exp %ss : tensor<2x256x4096xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %ev = kernel.matmul %e, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  %o = kernel.div %ev, %l : tensor<2x256x64xf16>, tensor<2x256x1xf16>
  return %o : tensor<2x256x64xf16>
}
