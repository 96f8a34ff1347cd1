// LLaMA-2-7B's SwiGLU MLP at one token (decode), in f16, at its real size:
// (silu(x Wg) * (x Wu)) Wd with x [1, 4096], Wg and Wu [4096, 11008], Wd
// [11008, 4096]. Its weights alone are 135 million elements, which the
// full-shape check holds in memory once (docs/reliability.md).

func.func @llama_mlp_decode(%x: tensor<1x4096xf16>, %wg: tensor<4096x11008xf16>, %wu: tensor<4096x11008xf16>, %wd: tensor<11008x4096xf16>) -> tensor<1x4096xf16> {
  %g = kernel.matmul %x, %wg : tensor<1x4096xf16>, tensor<4096x11008xf16>
  %u = kernel.matmul %x, %wu : tensor<1x4096xf16>, tensor<4096x11008xf16>
  %s = kernel.silu %g : tensor<1x11008xf16>
  %h = kernel.mul %s, %u : tensor<1x11008xf16>, tensor<1x11008xf16>
  %o = kernel.matmul %h, %wd : tensor<1x11008xf16>, tensor<11008x4096xf16>
  return %o : tensor<1x4096xf16>
}
