// RUN: mlsopt-opt %s --convert-kernel-to-custom --split-input-file -verify-diagnostics

// A concat keeps the dim it joins whole in every block. Where that fits no
// block, it joins views that split the dim by the inputs' greatest common
// size (run-long-rows.mlir); 40000 and 30001 have none. (An rms_norm over
// rows this long is computed by the ops it stands for.)
func.func @too_wide(%a: tensor<2x40000xf32>, %b: tensor<2x30001xf32>) -> tensor<2x70001xf32> {
  // expected-error @+1 {{joins a dim of 70001 elements, whose tiles fit no block's shared memory, and the inputs' sizes along it have no common factor to split it by}}
  %n = kernel.concat %a, %b dim 1 : tensor<2x40000xf32>, tensor<2x30001xf32>
  return %n : tensor<2x70001xf32>
}

// -----

// 40000 and 30002 share a factor of 2 only: the views' joined dim, 35001
// rows of 2, still fits no block.
func.func @too_wide_after_factoring(%a: tensor<2x40000xf32>, %b: tensor<2x30002xf32>) -> tensor<2x70002xf32> {
  // expected-error @+1 {{has no default block graph that fits in 49152 bytes of shared memory}}
  %n = kernel.concat %a, %b dim 1 : tensor<2x40000xf32>, tensor<2x30002xf32>
  return %n : tensor<2x70002xf32>
}

// -----

// A dim whose ragged tiles of 512 need more blocks than grid x has (2^31 -
// 1), and which no divisor cuts into fewer, has no tile but itself, which
// no block holds. The divisors are found in sqrt(size) steps, so a dim
// this long is refused at once. (A prime dim of 1e11 elements takes ragged
// tiles of 512: kernel-to-custom.mlir.)
func.func @prime_dim(%x: tensor<2000000000003xf32>) -> tensor<2000000000003xf32> {
  // expected-error @+1 {{has no default block graph that fits in 49152 bytes of shared memory}}
  %0 = kernel.exp %x : tensor<2000000000003xf32>
  return %0 : tensor<2000000000003xf32>
}
