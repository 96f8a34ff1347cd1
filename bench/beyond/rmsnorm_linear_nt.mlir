// RMSNorm before a linear layer whose weight is stored [out, in] (LLaMA's
// q/k/v projection as PyTorch keeps it): rms_norm(X) W^T.

func.func @rmsnorm_linear_nt(%x: tensor<8x4096xf16>, %w: tensor<6144x4096xf16>) -> tensor<8x6144xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x4096xf16>
  %wt = kernel.transpose %w [1, 0] : tensor<6144x4096xf16>
  %o = kernel.matmul %n, %wt : tensor<8x4096xf16>, tensor<4096x6144xf16>
  return %o : tensor<8x6144xf16>
}
