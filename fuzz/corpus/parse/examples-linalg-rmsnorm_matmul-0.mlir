#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @rmsnorm_matmul(%x: tensor<8x4096xf32>, %w: tensor<4096x6144xf32>)
    -> tensor<8x6144xf32> {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 2.44140625E-4 : f32   // 1 / 4096
  %eps = arith.constant 1.0e-6 : f32

  %e0 = tensor.empty() : tensor<8xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %sumsq = linalg.generic {indexing_maps = [#id, #row],
                           iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x4096xf32>) outs(%acc0 : tensor<8xf32>) {
  ^bb0(%a: f32, %s: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %s, %sq : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>

  %e1 = tensor.empty() : tensor<8x4096xf32>
  %normed = linalg.generic {indexing_maps = [#id, #row, #id],
                            iterator_types = ["parallel", "parallel"]}
      ins(%x, %sumsq : tensor<8x4096xf32>, tensor<8xf32>)
      outs(%e1 : tensor<8x4096xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %mean = arith.mulf %s, %inv_n : f32
    %var = arith.addf %mean, %eps : f32
    %r = math.rsqrt %var : f32
    %y = arith.mulf %a, %r : f32
    linalg.yield %y : f32
  } -> tensor<8x4096xf32>

  %e2 = tensor.empty() : tensor<8x6144xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x6144xf32>) -> tensor<8x6144xf32>
  %out = linalg.matmul ins(%normed, %w : tensor<8x4096xf32>, tensor<4096x6144xf32>)
                       outs(%acc2 : tensor<8x6144xf32>) -> tensor<8x6144xf32>
  return %out : tensor<8x6144xf32>
}
