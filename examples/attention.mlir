// Attention in the style of FlashAttention, for 2 heads (or batches) of 256
// queries attending to 4096 keys, head dim 64:
//
//   S = Q K                       Q: 2x256x64, K: 2x64x4096 (already
//   O = (exp(S) V) / rowsum(exp(S))              transposed), V: 2x4096x64
//
// This is softmax(S) V with the softmax written without subtracting the row
// maximum, as in Mirage; the 1/sqrt(64) scale is assumed folded into Q or K.
// The unfused program materializes the 2x256x4096 score matrix S and exp(S)
// in device memory. Both fused versions below never leave the 64x64 tile of
// scores a block works on: they stream K and V in tiles of 64 keys and keep
// running sums.
//
// @fused follows the formula above directly. @fused_online_softmax is the
// numerically safe form of FlashAttention: it subtracts a running maximum
// before exp and uses the `max` and `rescale` accumulators to bring the
// partial sums to a common maximum. In exact arithmetic the maximum cancels
// between numerator and denominator, so it equals @reference too.

// The unfused program: five pre-defined kernels.
func.func @reference(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>,
                     %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %s = kernel.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %e = kernel.exp %s : tensor<2x256x4096xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %ev = kernel.matmul %e, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  %o = kernel.div %ev, %l : tensor<2x256x64xf16>, tensor<2x256x1xf16>
  return %o : tensor<2x256x64xf16>
}

// The μGraph: one custom kernel, plain sums.
func.func @fused(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>,
                 %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
    attributes {mlsopt.equivalent_to = @reference} {
  // Grid: x = 2 picks the batch (dim 0 of Q, K, V and O); y = 4 splits the
  // 256 queries into 4 tiles of 64 rows. 64 query rows per 4-warp block
  // (16 rows per warp) is FlashAttention-2's tile for head dim 64.
  %o = kernel.custom (%q, %k, %v) grid <2, 4, 1> block <128, 1, 1>
      : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>)
        -> tensor<2x256x64xf16> {
  ^bb0(%in0: tensor<2x256x64xf16>, %in1: tensor<2x64x4096xf16>,
       %in2: tensor<2x4096x64xf16>, %out0: tensor<2x256x64xf16>):
    // The loop walks the 4096 keys in 64 tiles of 64.
    // Accumulator 0 (sum): exp(S) V for this block's 64 queries.
    // Accumulator 1 (sum): rowsum(exp(S)) for the same queries.
    // Both are sums over the keys, so summing per-tile partials is exact.
    %acc:2 = block.for_loop 64 iterations accumulate (sum, sum)
        : tensor<1x64x64xf16>, tensor<1x64x1xf16> {
      // Q: imap <x = 0, y = 1> gives block (b, t) batch b and query rows
      // [64t, 64t+64). No fmap: the same tile in every iteration (it could
      // stay in shared memory or registers). Tile: 1x64x64.
      %qt = block.load %in0 imap <x = 0, y = 1>
          : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
      // K: imap <x = 0> picks the batch; y is not mapped, so all 4 query
      // tiles of a batch see every key. fmap 2: iteration i loads keys
      // [64i, 64i+64) (K is transposed: keys are its dim 2). Tile: 1x64x64.
      %kt = block.load %in1 imap <x = 0> fmap 2
          : tensor<2x64x4096xf16> -> tensor<1x64x64xf16>
      // V: the same keys, which are V's dim 1. Tile: 1x64x64.
      %vt = block.load %in2 imap <x = 0> fmap 1
          : tensor<2x4096x64xf16> -> tensor<1x64x64xf16>
      // Scores of 64 queries against this iteration's 64 keys.
      %s = block.matmul %qt, %kt : tensor<1x64x64xf16>, tensor<1x64x64xf16>
      %e = block.exp %s : tensor<1x64x64xf16>
      // This tile's share of the softmax denominator...
      %l = block.reduce_sum %e dim 2 : tensor<1x64x64xf16>
      // ...and of the numerator: contracts over the 64 keys of the tile.
      %ev = block.matmul %e, %vt : tensor<1x64x64xf16>, tensor<1x64x64xf16>
      block.yield %ev, %l : tensor<1x64x64xf16>, tensor<1x64x1xf16>
    }
    // Normalize once, after all keys are seen; 1x64x1 broadcasts over the
    // head dim. (A one-op thread.graph would do the same in registers.)
    %y = block.div %acc#0, %acc#1 : tensor<1x64x64xf16>, tensor<1x64x1xf16>
    // omap <x = 0, y = 1>: block (b, t) writes batch b, query rows
    // [64t, 64t+64), as its Q tile. 2 x 4 tiles of 1x64x64 cover 2x256x64.
    block.store %y, %out0 omap <x = 0, y = 1>
        : tensor<1x64x64xf16> into tensor<2x256x64xf16>
    block.return
  }
  return %o : tensor<2x256x64xf16>
}

// The μGraph with online softmax: same grid and tiles as @fused.
//
// Iteration i computes, for its tile of scores S_i (1x64x64):
//   m_i = rowmax(S_i),  P_i = exp(S_i - m_i),  l_i = rowsum(P_i),  P_i V_i
// With M = max_i m_i, the accumulators produce
//   (max)          M
//   (rescale by 0) L = sum_i l_i     * exp(m_i - M) = rowsum(exp(S - M))
//   (rescale by 0) N = sum_i P_i V_i * exp(m_i - M) = exp(S - M) V
// and N / L = exp(S) V / rowsum(exp(S)), since the factor exp(-M) cancels.
// exp never sees a positive argument, so it cannot overflow.
func.func @fused_online_softmax(%q: tensor<2x256x64xf16>,
                                %k: tensor<2x64x4096xf16>,
                                %v: tensor<2x4096x64xf16>)
    -> tensor<2x256x64xf16> attributes {mlsopt.equivalent_to = @reference} {
  %o = kernel.custom (%q, %k, %v) grid <2, 4, 1> block <128, 1, 1>
      : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>)
        -> tensor<2x256x64xf16> {
  ^bb0(%in0: tensor<2x256x64xf16>, %in1: tensor<2x64x4096xf16>,
       %in2: tensor<2x4096x64xf16>, %out0: tensor<2x256x64xf16>):
    // Accumulator 0 (max): the running row maximum M, 1x64x1. Both rescale
    // accumulators name it ("by 0"); its 1x64x1 shape broadcasts to theirs.
    // Accumulator 1 (rescale by 0): the denominator L, 1x64x1.
    // Accumulator 2 (rescale by 0): the numerator N, 1x64x64.
    %acc:3 = block.for_loop 64 iterations
        accumulate (max, rescale by 0, rescale by 0)
        : tensor<1x64x1xf16>, tensor<1x64x1xf16>, tensor<1x64x64xf16> {
      // Loads as in @fused: this block's fixed Q tile, and the i-th tile of
      // 64 keys from K (dim 2) and V (dim 1).
      %qt = block.load %in0 imap <x = 0, y = 1>
          : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
      %kt = block.load %in1 imap <x = 0> fmap 2
          : tensor<2x64x4096xf16> -> tensor<1x64x64xf16>
      %vt = block.load %in2 imap <x = 0> fmap 1
          : tensor<2x4096x64xf16> -> tensor<1x64x64xf16>
      %s = block.matmul %qt, %kt : tensor<1x64x64xf16>, tensor<1x64x64xf16>
      // m_i: this tile's row maximum.
      %m = block.reduce_max %s dim 2 : tensor<1x64x64xf16>
      // P_i = exp(S_i - m_i), fused in registers; m_i broadcasts along the
      // 64 keys of each row.
      %p = thread.graph (%s, %m)
          : (tensor<1x64x64xf16>, tensor<1x64x1xf16>) -> tensor<1x64x64xf16> {
      ^bb0(%se: f16, %me: f16):
        %d = thread.binary sub %se, %me : f16
        %pe = thread.unary exp %d : f16
        thread.yield %pe : f16
      }
      // l_i and P_i V_i, both relative to m_i; the accumulators rescale them.
      %l = block.reduce_sum %p dim 2 : tensor<1x64x64xf16>
      %pv = block.matmul %p, %vt : tensor<1x64x64xf16>, tensor<1x64x64xf16>
      block.yield %m, %l, %pv
          : tensor<1x64x1xf16>, tensor<1x64x1xf16>, tensor<1x64x64xf16>
    }
    // O = N / L. M (%acc#0) is not needed after the loop: it only serves
    // the rescale accumulators.
    %y = thread.graph (%acc#2, %acc#1)
        : (tensor<1x64x64xf16>, tensor<1x64x1xf16>) -> tensor<1x64x64xf16> {
    ^bb0(%n: f16, %den: f16):
      %r = thread.binary div %n, %den : f16
      thread.yield %r : f16
    }
    // Same placement as @fused: batch b, query rows [64t, 64t+64).
    block.store %y, %out0 omap <x = 0, y = 1>
        : tensor<1x64x64xf16> into tensor<2x256x64xf16>
    block.return
  }
  return %o : tensor<2x256x64xf16>
}
