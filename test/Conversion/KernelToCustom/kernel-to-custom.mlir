// RUN: mlsopt-opt %s --convert-kernel-to-custom --split-input-file | FileCheck %s

// A matmul: 64x64 output tiles (x splits n, y splits m), the loop walks k in
// tiles of 32 with a sum accumulator (tiles of 64 would take 33 KiB of
// double buffers besides the 17 KiB of the f32 result, its rows padded:
// more than the pass's default 48 KiB). f16 tiles are multiplied as loaded
// and summed in f32 (a widening matmul), rounded once as they are stored.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<128x256xf16>, %[[B:.*]]: tensor<256x512xf16>)
// CHECK: %[[R:.*]] = kernel.custom(%[[A]], %[[B]]) grid <8, 2, 1> block <128, 1, 1>
// CHECK: ^bb0(%[[IN0:.*]]: tensor<128x256xf16>, %[[IN1:.*]]: tensor<256x512xf16>, %[[OUT:.*]]: tensor<128x512xf16>):
// CHECK: %[[ACC:.*]] = block.for_loop 8 iterations accumulate (sum) : tensor<64x64xf32>
// CHECK: %[[AT:.*]] = block.load %[[IN0]] imap <y = 0> fmap 1 : tensor<128x256xf16> -> tensor<64x32xf16>
// CHECK: %[[BT:.*]] = block.load %[[IN1]] imap <x = 1> fmap 0 : tensor<256x512xf16> -> tensor<32x64xf16>
// CHECK: %[[M:.*]] = block.matmul %[[AT]], %[[BT]] : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK: block.yield %[[M]]
// CHECK: block.store %[[ACC]], %[[OUT]] omap <x = 1, y = 0> : tensor<64x64xf32> into tensor<128x512xf16>
// CHECK: return %[[R]]
func.func @matmul(%a: tensor<128x256xf16>, %b: tensor<256x512xf16>) -> tensor<128x512xf16> {
  %c = kernel.matmul %a, %b : tensor<128x256xf16>, tensor<256x512xf16>
  return %c : tensor<128x512xf16>
}

// -----

// A broadcast division: the 2x256x1 operand is replicated along the grid dim
// that splits the last dim of the result.
// CHECK-LABEL: func.func @div
// CHECK: kernel.custom(%{{.*}}, %{{.*}}) grid <8, 256, 2> block <128, 1, 1>
// CHECK: block.for_loop 1 iterations accumulate (sum) : tensor<1x1x512xf16>
// CHECK: block.load %{{.*}} imap <x = 2, y = 1, z = 0> : tensor<2x256x4096xf16> -> tensor<1x1x512xf16>
// CHECK: block.load %{{.*}} imap <y = 1, z = 0> : tensor<2x256x1xf16> -> tensor<1x1x1xf16>
// CHECK: block.div
// CHECK: block.store %{{.*}}, %{{.*}} omap <x = 2, y = 1, z = 0>
func.func @div(%a: tensor<2x256x4096xf16>, %b: tensor<2x256x1xf16>) -> tensor<2x256x4096xf16> {
  %c = kernel.div %a, %b : tensor<2x256x4096xf16>, tensor<2x256x1xf16>
  return %c : tensor<2x256x4096xf16>
}

// -----

// A reduction over a middle dim: the grid splits the kept dims, the loop
// walks the reduced one, a max accumulator combines the tiles.
// CHECK-LABEL: func.func @reduce_max
// CHECK: kernel.custom(%{{.*}}) grid <64, 2, 1> block <128, 1, 1>
// CHECK: block.for_loop 1 iterations accumulate (max) : tensor<1x1x64xf32>
// CHECK: %[[T:.*]] = block.load %{{.*}} imap <x = 2, y = 0> fmap 1 : tensor<2x64x4096xf32> -> tensor<1x64x64xf32>
// CHECK: block.reduce_max %[[T]] dim 1
func.func @reduce_max(%a: tensor<2x64x4096xf32>) -> tensor<2x1x4096xf32> {
  %c = kernel.reduce_max %a dim 1 : tensor<2x64x4096xf32>
  return %c : tensor<2x1x4096xf32>
}

// -----

// rms_norm keeps the whole last dim in one tile; one row per block.
// CHECK-LABEL: func.func @rms_norm
// CHECK: kernel.custom(%{{.*}}) grid <16, 1, 1> block <128, 1, 1>
// CHECK: block.load %{{.*}} imap <x = 0> : tensor<16x4096xbf16> -> tensor<1x4096xbf16>
// CHECK: block.rms_norm %{{.*}} {epsilon = 9.99{{[0-9]*}}E-7 : f64} : tensor<1x4096xbf16>
func.func @rms_norm(%a: tensor<16x4096xbf16>) -> tensor<16x4096xbf16> {
  %c = kernel.rms_norm %a {epsilon = 1.0e-06 : f64} : tensor<16x4096xbf16>
  return %c : tensor<16x4096xbf16>
}

// -----

// A transpose has no block graph and stays: --convert-custom-kernel-to-gpu
// launches it as a copy kernel of its own. The matmul that reads it is
// wrapped.
// CHECK-LABEL: func.func @transpose_stays
// CHECK: %[[T:.*]] = kernel.transpose %{{.*}} [1, 0] : tensor<80x48xf16>
// CHECK: kernel.custom(%{{.*}}, %[[T]])
func.func @transpose_stays(%a: tensor<16x48xf16>, %b: tensor<80x48xf16>) -> tensor<16x80xf16> {
  %t = kernel.transpose %b [1, 0] : tensor<80x48xf16>
  %c = kernel.matmul %a, %t : tensor<16x48xf16>, tensor<48x80xf16>
  return %c : tensor<16x80xf16>
}

// -----

// Grid y and z take at most 65535 blocks, x 2^31 - 1. A prime count of
// tokens (65537) has no tile but the whole dim that cuts it into fewer
// blocks: on y, it stayed whole in every tile, and no block's shared memory
// held it ("has no default block graph that fits"). Past a limit, the dims
// go on the grid most blocks first, so the tokens go on x.
// CHECK-LABEL: func.func @prime_tokens_silu
// CHECK: kernel.custom(%{{.*}}) grid <65537, 8, 1> block <128, 1, 1>
// CHECK: block.load %{{.*}} imap <x = 0, y = 1> : tensor<65537x8x128xf16> -> tensor<1x1x128xf16>
func.func @prime_tokens_silu(%a: tensor<65537x8x128xf16>) -> tensor<65537x8x128xf16> {
  %c = kernel.silu %a : tensor<65537x8x128xf16>
  return %c : tensor<65537x8x128xf16>
}

// -----

// 65537 rows, a prime, take ragged tiles of 64: 1025 blocks on y, the
// last with one row. (With a power of two dividing the rows they took one
// row per block, each reloading the whole right operand.)
// CHECK-LABEL: func.func @prime_rows_matmul
// CHECK: kernel.custom(%{{.*}}, %{{.*}}) grid <1, 1025, 1>
// CHECK: block.load %{{.*}} imap <y = 0> fmap 1 : tensor<65537x64xf16> -> tensor<64x64xf16>
// CHECK: block.store %{{.*}} omap <y = 0> : tensor<64x64xf32> into tensor<65537x64xf16>
func.func @prime_rows_matmul(%a: tensor<65537x64xf16>, %b: tensor<64x64xf16>) -> tensor<65537x64xf16> {
  %c = kernel.matmul %a, %b : tensor<65537x64xf16>, tensor<64x64xf16>
  return %c : tensor<65537x64xf16>
}

// -----

// More row tiles than grid y takes (65537 of 64 rows) go on x.
// CHECK-LABEL: func.func @long_rows_matmul
// CHECK: kernel.custom(%{{.*}}, %{{.*}}) grid <65537, 1, 1>
// CHECK: block.store %{{.*}} omap <x = 0> : tensor<64x64xf32> into tensor<4194305x64xf16>
func.func @long_rows_matmul(%a: tensor<4194305x64xf16>, %b: tensor<64x64xf16>) -> tensor<4194305x64xf16> {
  %c = kernel.matmul %a, %b : tensor<4194305x64xf16>, tensor<64x64xf16>
  return %c : tensor<4194305x64xf16>
}

// -----

// GPT-2's LM head: 77 tokens and a vocabulary of 50257 = 29 * 1733, which
// no power of two divides, take ragged 64x64 tiles on a 786 x 2 grid.
// CHECK-LABEL: func.func @vocab_matmul
// CHECK: kernel.custom(%{{.*}}, %{{.*}}) grid <786, 2, 1>
// CHECK: block.load %{{.*}} imap <y = 0> fmap 1 : tensor<77x768xf16> -> tensor<64x32xf16>
// CHECK: block.load %{{.*}} imap <x = 1> fmap 0 : tensor<768x50257xf16> -> tensor<32x64xf16>
// CHECK: block.store %{{.*}} omap <x = 1, y = 0> : tensor<64x64xf32> into tensor<77x50257xf16>
func.func @vocab_matmul(%x: tensor<77x768xf16>, %w: tensor<768x50257xf16>) -> tensor<77x50257xf16> {
  %o = kernel.matmul %x, %w : tensor<77x768xf16>, tensor<768x50257xf16>
  return %o : tensor<77x50257xf16>
}

// -----

// An elementwise op over the vocabulary: ragged row tiles of 512, not 1733
// tiles of 29 (its largest divisor up to 512).
// CHECK-LABEL: func.func @vocab_exp
// CHECK: kernel.custom(%{{.*}}) grid <99, 8, 1>
// CHECK: block.load %{{.*}} imap <x = 1, y = 0> : tensor<8x50257xf16> -> tensor<1x512xf16>
// CHECK: block.store %{{.*}} omap <x = 1, y = 0> : tensor<1x512xf16> into tensor<8x50257xf16>
func.func @vocab_exp(%x: tensor<8x50257xf16>) -> tensor<8x50257xf16> {
  %e = kernel.exp %x : tensor<8x50257xf16>
  return %e : tensor<8x50257xf16>
}

// -----

// A prime dim of 1e11 elements: ragged tiles of 512 on grid x.
// CHECK-LABEL: func.func @long_prime_dim
// CHECK: kernel.custom(%{{.*}}) grid <195312501, 1, 1>
// CHECK: block.load %{{.*}} imap <x = 0> : tensor<100000000003xf32> -> tensor<512xf32>
func.func @long_prime_dim(%x: tensor<100000000003xf32>) -> tensor<100000000003xf32> {
  %0 = kernel.exp %x : tensor<100000000003xf32>
  return %0 : tensor<100000000003xf32>
}

// -----

// A batch past grid z's limit goes on x, where it stayed whole in every
// tile, its 3x7 matrices whole in each block.
// CHECK-LABEL: func.func @long_batch_matmul
// CHECK: kernel.custom(%{{.*}}, %{{.*}}) grid <65536, 1, 1>
// CHECK: block.store %{{.*}} omap <x = 0> : tensor<1x3x7xf32> into tensor<65536x3x7xf16>
func.func @long_batch_matmul(%a: tensor<65536x3x5xf16>, %b: tensor<65536x5x7xf16>) -> tensor<65536x3x7xf16> {
  %c = kernel.matmul %a, %b : tensor<65536x3x5xf16>, tensor<65536x5x7xf16>
  return %c : tensor<65536x3x7xf16>
}
