// A base linear layer with two LoRA adapters of rank 16:
// X W + (X A_1) B_1 + (X A_2) B_2.

func.func @lora_two_adapters(%x: tensor<64x2048xf16>, %w: tensor<2048x2048xf16>, %a1: tensor<2048x16xf16>, %b1: tensor<16x2048xf16>, %a2: tensor<2048x16xf16>, %b2: tensor<16x2048xf16>) -> tensor<64x2048xf16> {
  %xw = kernel.matmul %x, %w : tensor<64x2048xf16>, tensor<2048x2048xf16>
  %xa1 = kernel.matmul %x, %a1 : tensor<64x2048xf16>, tensor<2048x16xf16>
  %d1 = kernel.matmul %xa1, %b1 : tensor<64x16xf16>, tensor<16x2048xf16>
  %xa2 = kernel.matmul %x, %a2 : tensor<64x2048xf16>, tensor<2048x16xf16>
  %d2 = kernel.matmul %xa2, %b2 : tensor<64x16xf16>, tensor<16x2048xf16>
  %o1 = kernel.add %xw, %d1 : tensor<64x2048xf16>, tensor<64x2048xf16>
  %o = kernel.add %o1, %d2 : tensor<64x2048xf16>, tensor<64x2048xf16>
  return %o : tensor<64x2048xf16>
}
