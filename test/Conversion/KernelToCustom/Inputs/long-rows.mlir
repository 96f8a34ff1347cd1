// An rms_norm over rows too long for a block's shared memory (65536 f32
// values, 256 KiB): run-long-rows.mlir runs it as the ops it computes.
func.func @long_norm(%x: tensor<2x65536xf32>) -> tensor<2x65536xf32> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<2x65536xf32>
  return %n : tensor<2x65536xf32>
}

// A concat along rows of 30000 + 20000 f32 values (200 KB): its default
// block graph would keep the joined dim whole in each block, so it joins
// [3, 10000] and [2, 10000] views of them and each block a [5, tile] piece.
func.func @long_concat(%a: tensor<2x30000xf32>, %b: tensor<2x20000xf32>) -> tensor<2x50000xf32> {
  %c = kernel.concat %a, %b dim 1 : tensor<2x30000xf32>, tensor<2x20000xf32>
  return %c : tensor<2x50000xf32>
}
