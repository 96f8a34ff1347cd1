// RMSNorm followed by a linear layer, as at the input of a LLaMA attention or
// MLP block:
//
//   O = rms_norm(X) W        X: 8x4096 (8 tokens), W: 4096x6144, O: 8x6144
//
// rms_norm scales each row r of X by 1 / rms[r], where
// rms[r] = sqrt(mean_k X[r,k]^2 + eps), eps = 1e-6 as in LLaMA. A per-row
// scale commutes with the matmul:
//
//   rms_norm(X) W = diag(1/rms) X W,  i.e.  O[r,c] = (X W)[r,c] / rms[r]
//
// so one kernel can compute X W and the row sums of squares in the same loop
// over k, and apply the scale once at the end. The unfused program needs two
// kernels and writes the normalized X to device memory in between.

// The unfused program: two pre-defined kernels.
func.func @reference(%x: tensor<8x4096xf16>, %w: tensor<4096x6144xf16>)
    -> tensor<8x6144xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x4096xf16>
  %o = kernel.matmul %n, %w : tensor<8x4096xf16>, tensor<4096x6144xf16>
  return %o : tensor<8x6144xf16>
}

// The μGraph: one custom kernel.
func.func @fused(%x: tensor<8x4096xf16>, %w: tensor<4096x6144xf16>)
    -> tensor<8x6144xf16> attributes {mlsopt.equivalent_to = @reference} {
  // Grid: 96 blocks along x, each owning 6144 / 96 = 64 columns of O (and of
  // W). 96 blocks keep most of an H200's 132 SMs busy streaming W, which is
  // what this memory-bound (8-row) product is limited by. 128 threads = 4
  // warps per block.
  %o = kernel.custom (%x, %w) grid <96, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>, tensor<4096x6144xf16>) -> tensor<8x6144xf16> {
  ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x6144xf16>,
       %out0: tensor<8x6144xf16>):
    // The loop walks the contraction dim k = 4096 in 64 steps of 64.
    // Accumulator 0 (sum): X W restricted to this block's 64 columns.
    // Accumulator 1 (sum): the sum over all k of X[r,k]^2, one per row.
    %acc:2 = block.for_loop 64 iterations accumulate (sum, sum)
        : tensor<8x64xf16>, tensor<8x1xf16> {
      // X: imap <> because every block needs all 8 rows and, over the loop,
      // all of k (the normalization of a row needs the whole row). fmap 1:
      // iteration i loads columns [64i, 64i+64) of X. Tile: 8x64.
      %xt = block.load %in0 imap <> fmap 1
          : tensor<8x4096xf16> -> tensor<8x64xf16>
      // W: imap <x = 1> gives block b columns [64b, 64b+64); fmap 0 gives
      // iteration i rows [64i, 64i+64), the same k range as the X tile.
      // Tile: 64x64 (8 KiB).
      %wt = block.load %in1 imap <x = 1> fmap 0
          : tensor<4096x6144xf16> -> tensor<64x64xf16>
      // This iteration's contribution to X W: sum over its 64 values of k.
      %m = block.matmul %xt, %wt : tensor<8x64xf16>, tensor<64x64xf16>
      // This iteration's contribution to the sum of squares of each row.
      // Every block recomputes it for all 8 rows: redundant, but X is tiny
      // next to W, and it saves a second kernel.
      %sq = block.square %xt : tensor<8x64xf16>
      %s = block.reduce_sum %sq dim 1 : tensor<8x64xf16>
      block.yield %m, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // Epilogue in registers: O = (X W) / sqrt(sumsq / 4096 + eps). The 8x1
    // operand broadcasts along the 64 columns.
    %y = thread.graph (%acc#0, %acc#1)
        : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16> {
    ^bb0(%xw: f16, %sumsq: f16):
      %ms = thread.mul_scalar %sumsq, 2.44140625E-4 : f16   // 1/4096: mean
      %mse = thread.add_scalar %ms, 1.0e-06 : f16           // + eps
      %rms = thread.unary sqrt %mse : f16
      %o1 = thread.binary div %xw, %rms : f16
      thread.yield %o1 : f16
    }
    // omap <x = 1>: block b writes columns [64b, 64b+64) of O, the columns
    // whose W tiles it loaded. 96 tiles of 8x64 cover the 8x6144 output.
    block.store %y, %out0 omap <x = 1>
        : tensor<8x64xf16> into tensor<8x6144xf16>
    block.return
  }
  return %o : tensor<8x6144xf16>
}
