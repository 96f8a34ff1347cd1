// Kernels that read slices: the halves of a gate-up product, rows of a
// kernel's result, and a box at odd offsets (3 and 5 f32 values: rows no
// 16-byte copy can start). run-slices.mlir runs them as windows.
func.func @slices(%h: tensor<8x64xf32>, %w: tensor<32x16xf32>) -> tensor<4x16xf32> {
  %g = tensor.extract_slice %h[0, 0] [8, 32] [1, 1] : tensor<8x64xf32> to tensor<8x32xf32>
  %u = tensor.extract_slice %h[0, 32] [8, 32] [1, 1] : tensor<8x64xf32> to tensor<8x32xf32>
  %s = kernel.silu %g : tensor<8x32xf32>
  %m = kernel.mul %s, %u : tensor<8x32xf32>, tensor<8x32xf32>
  %r = tensor.extract_slice %m[2, 0] [4, 32] [1, 1] : tensor<8x32xf32> to tensor<4x32xf32>
  %o = kernel.matmul %r, %w : tensor<4x32xf32>, tensor<32x16xf32>
  %c = tensor.extract_slice %h[3, 5] [4, 16] [1, 1] : tensor<8x64xf32> to tensor<4x16xf32>
  %y = kernel.add %o, %c : tensor<4x16xf32>, tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
