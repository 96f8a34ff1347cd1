// A matmul followed by a sum over its rows (dim 0), in f32.

func.func @matmul_colsum(%x: tensor<4096x256xf32>, %w: tensor<256x256xf32>) -> tensor<1x256xf32> {
  %m = kernel.matmul %x, %w : tensor<4096x256xf32>, tensor<256x256xf32>
  %s = kernel.reduce_sum %m dim 0 : tensor<4096x256xf32>
  return %s : tensor<1x256xf32>
}
