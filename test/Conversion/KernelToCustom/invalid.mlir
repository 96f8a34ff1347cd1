// RUN: mlsopt-opt %s --convert-kernel-to-custom --split-input-file -verify-diagnostics

// A concat keeps the dim it joins whole in every block. (An rms_norm over
// rows this long is computed by the ops it stands for: run-long-rows.mlir.)
func.func @too_wide(%a: tensor<2x32768xf32>, %b: tensor<2x32768xf32>) -> tensor<2x65536xf32> {
  // expected-error @+1 {{has no default block graph that fits in 49152 bytes of shared memory}}
  %n = kernel.concat %a, %b dim 1 : tensor<2x32768xf32>, tensor<2x32768xf32>
  return %n : tensor<2x65536xf32>
}

// -----

// A prime dim has no tile but itself, which no block holds. The divisors
// are found in sqrt(size) steps, so a dim this long is refused at once.
func.func @prime_dim(%x: tensor<100000000003xf32>) -> tensor<100000000003xf32> {
  // expected-error @+1 {{has no default block graph that fits in 49152 bytes of shared memory}}
  %0 = kernel.exp %x : tensor<100000000003xf32>
  return %0 : tensor<100000000003xf32>
}
