// LoRA with rank 8 at other shapes than bench/lora: X W + (X A) B.

func.func @lora_r8(%x: tensor<32x1024xf16>, %w: tensor<1024x1024xf16>, %a: tensor<1024x8xf16>, %b: tensor<8x1024xf16>) -> tensor<32x1024xf16> {
  %xw = kernel.matmul %x, %w : tensor<32x1024xf16>, tensor<1024x1024xf16>
  %xa = kernel.matmul %x, %a : tensor<32x1024xf16>, tensor<1024x8xf16>
  %xab = kernel.matmul %xa, %b : tensor<32x8xf16>, tensor<8x1024xf16>
  %o = kernel.add %xw, %xab : tensor<32x1024xf16>, tensor<32x1024xf16>
  return %o : tensor<32x1024xf16>
}
