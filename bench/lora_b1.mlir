// LoRA: a linear layer with a rank-16 low-rank adapter, of GPT-3-7B-LoRA,
// batch 1 (Mirage's LoRA case).
//
//   O = X W + (X A) B
//   X: [16, 256]   W: [256, 4096]   A: [256, 16]   B: [16, 4096]   O: [16, 4096]
//
// Written the way torch-mlir emits x @ W + (x @ A) @ B: three matmuls into
// zero fills, the sum as an elementwise generic.

#id = affine_map<(i, j) -> (i, j)>

func.func @lora(%x: tensor<16x256xf16>, %w: tensor<256x4096xf16>, %a: tensor<256x16xf16>, %b: tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  %zero = arith.constant 0.000000e+00 : f16

  // X W
  %e0 = tensor.empty() : tensor<16x4096xf16>
  %z0 = linalg.fill ins(%zero : f16) outs(%e0 : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %xw = linalg.matmul ins(%x, %w : tensor<16x256xf16>, tensor<256x4096xf16>)
                      outs(%z0 : tensor<16x4096xf16>) -> tensor<16x4096xf16>

  // (X A) B
  %e1 = tensor.empty() : tensor<16x16xf16>
  %z1 = linalg.fill ins(%zero : f16) outs(%e1 : tensor<16x16xf16>) -> tensor<16x16xf16>
  %xa = linalg.matmul ins(%x, %a : tensor<16x256xf16>, tensor<256x16xf16>)
                      outs(%z1 : tensor<16x16xf16>) -> tensor<16x16xf16>
  %e2 = tensor.empty() : tensor<16x4096xf16>
  %z2 = linalg.fill ins(%zero : f16) outs(%e2 : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %xab = linalg.matmul ins(%xa, %b : tensor<16x16xf16>, tensor<16x4096xf16>)
                       outs(%z2 : tensor<16x4096xf16>) -> tensor<16x4096xf16>

  // X W + (X A) B
  %e3 = tensor.empty() : tensor<16x4096xf16>
  %out = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%xw, %xab : tensor<16x4096xf16>, tensor<16x4096xf16>) outs(%e3 : tensor<16x4096xf16>) {
  ^bb0(%p: f16, %q: f16, %o: f16):
    %r = arith.addf %p, %q : f16
    linalg.yield %r : f16
  } -> tensor<16x4096xf16>
  return %out : tensor<16x4096xf16>
}
