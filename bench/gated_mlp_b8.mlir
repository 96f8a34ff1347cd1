// GatedMLP: the gated linear units of Falcon-7B's MLP, batch 8 (Mirage's
// GatedMLP case).
//
//   O = silu(X W1) * (X W2),  silu(x) = x * sigmoid(x) = x / (1 + exp(-x))
//   X: [64, 4096]   W1, W2: [4096, 4096]   O: [64, 4096]
//
// Written the way torch-mlir emits F.silu(x @ W1) * (x @ W2) after
// elementwise fusion: two matmuls into zero fills, then one generic with
// sigmoid spelled 1 / (1 + exp(-x)) and the gate product.

#id = affine_map<(i, j) -> (i, j)>

func.func @gated_mlp(%x: tensor<64x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<64x4096xf16> {
  %zero = arith.constant 0.000000e+00 : f16

  // X W1, X W2
  %e0 = tensor.empty() : tensor<64x4096xf16>
  %z0 = linalg.fill ins(%zero : f16) outs(%e0 : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  %g = linalg.matmul ins(%x, %w1 : tensor<64x4096xf16>, tensor<4096x4096xf16>)
                     outs(%z0 : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  %e1 = tensor.empty() : tensor<64x4096xf16>
  %z1 = linalg.fill ins(%zero : f16) outs(%e1 : tensor<64x4096xf16>) -> tensor<64x4096xf16>
  %u = linalg.matmul ins(%x, %w2 : tensor<64x4096xf16>, tensor<4096x4096xf16>)
                     outs(%z1 : tensor<64x4096xf16>) -> tensor<64x4096xf16>

  // silu(X W1) * (X W2)
  %e2 = tensor.empty() : tensor<64x4096xf16>
  %out = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<64x4096xf16>, tensor<64x4096xf16>) outs(%e2 : tensor<64x4096xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %one = arith.constant 1.000000e+00 : f16
    %neg = arith.negf %a : f16
    %ex = math.exp %neg : f16
    %den = arith.addf %ex, %one : f16
    %sig = arith.divf %one, %den : f16
    %silu = arith.mulf %a, %sig : f16
    %r = arith.mulf %silu, %c : f16
    linalg.yield %r : f16
  } -> tensor<64x4096xf16>
  return %out : tensor<64x4096xf16>
}
