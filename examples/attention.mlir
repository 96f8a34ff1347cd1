// Attention in the style of FlashAttention, for 2 heads (or batches) of 256
// queries attending to 4096 keys, head dim 64:
//
//   S = Q K                       Q: 2x256x64, K: 2x64x4096 (already
//   O = (exp(S) V) / rowsum(exp(S))              transposed), V: 2x4096x64
//
// This is softmax(S) V with the softmax written without subtracting the row
// maximum, as in Mirage; the 1/sqrt(64) scale is assumed folded into Q or K.
// The unfused program materializes the 2x256x4096 score matrix S and exp(S)
// in device memory. The μGraphs below never leave the tile of scores a
// block works on: @fused and @fused_online_softmax stream K and V in tiles
// of 64 keys and keep running sums; @flash_decoding gives each block one
// chunk of 256 keys.
//
// @fused follows the formula above directly. @fused_online_softmax is the
// numerically safe form of FlashAttention: it subtracts a running maximum
// before exp and uses the `max` and `rescale` accumulators to bring the
// partial sums to a common maximum. In exact arithmetic the maximum cancels
// between numerator and denominator, so it equals @reference too.
//
// @flash_decoding is what the search finds for these shapes: a first kernel
// splits the keys into 16 chunks across the grid and stores partial sums per
// chunk, a second one adds the chunks and divides.
//
// Which wins: @fused when the query tiles alone fill the GPU (many heads or
// long prompts): one launch, and only O is written. @flash_decoding when few
// query tiles would otherwise each walk all keys alone (decoding, or here 8
// tiles for 100+ SMs): more blocks share the work and the L2's bandwidth,
// for a second launch and a round trip of the partials through device
// memory. @fused_online_softmax costs a little more compute than @fused and
// wins whenever scores may be large enough for exp to overflow.

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

// The μGraph the search finds when there are few query tiles: flash-decoding,
// two custom kernels. @fused has 2 x 4 = 8 blocks, each walking all 4096
// keys alone; on a GPU of 100+ SMs most SMs idle and each block draws only
// its share of the L2's bandwidth. Splitting the keys across the grid gives
// 128 blocks, at the price of a second launch and a round trip of the
// partial results (1 MiB) through device memory.
//
// Block (b, t, c) computes, for its 64 queries and its chunk c of 256 keys,
//   N_c = exp(S_c) V_c (1x64x64)  and  L_c = rowsum(exp(S_c)) (1x64x1),
// and O = (sum_c N_c) / (sum_c L_c). The partials are plain sums over
// disjoint keys, so adding them is exact; without the row maximum there is
// nothing to rescale (an online-softmax split would also store each chunk's
// maximum).
func.func @flash_decoding(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>,
                          %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
    attributes {mlsopt.equivalent_to = @reference} {
  // Grid: x = 2 and y = 4 as in @fused (batch, query tile of 64 rows);
  // z = 16 splits the 4096 keys into chunks of 256, one per block.
  // Outputs: the 16 chunks' partials side by side along the last dim, so
  // that the combining kernel reads chunk i with an fmap on that dim:
  // N in 2x256x(16*64) and L in 2x256x(16*1).
  %partial:2 = kernel.custom (%q, %k, %v) grid <2, 4, 16> block <128, 1, 1>
      : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>)
        -> (tensor<2x256x1024xf16>, tensor<2x256x16xf16>) {
  ^bb0(%in0: tensor<2x256x64xf16>, %in1: tensor<2x64x4096xf16>,
       %in2: tensor<2x4096x64xf16>, %out0: tensor<2x256x1024xf16>,
       %out1: tensor<2x256x16xf16>):
    // One iteration: a block's chunk of 256 keys is a single tile, so the
    // sums over it happen inside the matmul and the reduce_sum; the sum
    // over chunks is the second kernel's loop.
    %acc:2 = block.for_loop 1 iterations accumulate (sum, sum)
        : tensor<1x64x64xf16>, tensor<1x64x1xf16> {
      // Q: as in @fused. z is not mapped: all 16 chunks of a query tile
      // load the same Q tile.
      %qt = block.load %in0 imap <x = 0, y = 1>
          : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
      // K: imap <x = 0, z = 2>: block (b, t, c) loads keys
      // [256c, 256c+256) (K's dim 2); y is not mapped, so the 4 query tiles
      // share each chunk, read from device memory once for all 4. No fmap:
      // the grid, not the loop, walks the keys. Tile: 1x64x256.
      %kt = block.load %in1 imap <x = 0, z = 2>
          : tensor<2x64x4096xf16> -> tensor<1x64x256xf16>
      // V: the same keys, V's dim 1. Tile: 1x256x64.
      %vt = block.load %in2 imap <x = 0, z = 1>
          : tensor<2x4096x64xf16> -> tensor<1x256x64xf16>
      %s = block.matmul %qt, %kt : tensor<1x64x64xf16>, tensor<1x64x256xf16>
      %e = thread.graph (%s) : (tensor<1x64x256xf16>) -> tensor<1x64x256xf16> {
      ^bb0(%se: f16):
        %ee = thread.unary exp %se : f16
        thread.yield %ee : f16
      }
      // N_c: contracts over this chunk's 256 keys.
      %ev = block.matmul %e, %vt : tensor<1x64x256xf16>, tensor<1x256x64xf16>
      // L_c.
      %l = block.reduce_sum %e dim 2 : tensor<1x64x256xf16>
      block.yield %ev, %l : tensor<1x64x64xf16>, tensor<1x64x1xf16>
    }
    // No division here: N_c / L_c of one chunk is not a share of O. The
    // omaps put chunk c (grid z) at N's columns [64c, 64c+64) and at L's
    // column c, next to the query rows of block (b, t): 2 x 4 x 16 tiles
    // of 1x64x64 cover 2x256x1024, and of 1x64x1 cover 2x256x16.
    block.store %acc#0, %out0 omap <x = 0, y = 1, z = 2>
        : tensor<1x64x64xf16> into tensor<2x256x1024xf16>
    block.store %acc#1, %out1 omap <x = 0, y = 1, z = 2>
        : tensor<1x64x1xf16> into tensor<2x256x16xf16>
    block.return
  }
  // The combining kernel reads 1 MiB of partials and does 16 adds per
  // output element: it is bound by memory, so it wants many blocks more
  // than big tiles: x = 2 batches, y = 32 tiles of 8 query rows, 64 blocks.
  %o = kernel.custom (%partial#0, %partial#1) grid <2, 32, 1>
      block <128, 1, 1>
      : (tensor<2x256x1024xf16>, tensor<2x256x16xf16>) -> tensor<2x256x64xf16> {
  ^bb0(%in0: tensor<2x256x1024xf16>, %in1: tensor<2x256x16xf16>,
       %out0: tensor<2x256x64xf16>):
    // The loop walks the 16 chunks: fmap 2 on both inputs makes iteration i
    // read chunk i (N's columns [64i, 64i+64), L's column i) of this
    // block's 8 rows. The sum accumulators add the chunks' partials.
    %acc:2 = block.for_loop 16 iterations accumulate (sum, sum)
        : tensor<1x8x64xf16>, tensor<1x8x1xf16> {
      %n = block.load %in0 imap <x = 0, y = 1> fmap 2
          : tensor<2x256x1024xf16> -> tensor<1x8x64xf16>
      %l = block.load %in1 imap <x = 0, y = 1> fmap 2
          : tensor<2x256x16xf16> -> tensor<1x8x1xf16>
      block.yield %n, %l : tensor<1x8x64xf16>, tensor<1x8x1xf16>
    }
    // O = N / L once all chunks are in; 1x8x1 broadcasts over the head dim.
    %y = thread.graph (%acc#0, %acc#1)
        : (tensor<1x8x64xf16>, tensor<1x8x1xf16>) -> tensor<1x8x64xf16> {
    ^bb0(%ne: f16, %le: f16):
      %r = thread.binary div %ne, %le : f16
      thread.yield %r : f16
    }
    // omap <x = 0, y = 1>: 2 x 32 tiles of 1x8x64 cover 2x256x64.
    block.store %y, %out0 omap <x = 0, y = 1>
        : tensor<1x8x64xf16> into tensor<2x256x64xf16>
    block.return
  }
  return %o : tensor<2x256x64xf16>
}
