// An rms_norm over rows too long for a block's shared memory (65536 f32
// values, 256 KiB): run-long-rows.mlir runs it as the ops it computes.
func.func @long_norm(%x: tensor<2x65536xf32>) -> tensor<2x65536xf32> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<2x65536xf32>
  return %n : tensor<2x65536xf32>
}
