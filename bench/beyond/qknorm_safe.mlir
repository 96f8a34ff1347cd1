// QKNorm (Chameleon-7B) with a safe softmax: Q and K normalized over the
// head dim (K stored [h, d, n], normalized over dim 1), then attention whose
// softmax subtracts the row maximum, as front ends emit it. Nine ops, seven
// counted against max-kernel-ops.

func.func @qknorm_safe(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %qn = kernel.rms_norm %q {epsilon = 1.0e-06 : f64} : tensor<2x256x64xf16>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x64x4096xf16>
  %s = kernel.matmul %qn, %kn : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %m = kernel.reduce_max %s dim 2 : tensor<2x256x4096xf16>
  %d = kernel.sub %s, %m : tensor<2x256x4096xf16>, tensor<2x256x1xf16>
  %e = kernel.exp %d : tensor<2x256x4096xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %ev = kernel.matmul %e, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  %o = kernel.div %ev, %l : tensor<2x256x64xf16>, tensor<2x256x1xf16>
  return %o : tensor<2x256x64xf16>
}
