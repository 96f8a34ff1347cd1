// The gated MLP (SwiGLU) of LLaMA, up to the down projection:
//
//   O = silu(X W1) * (X W2)    X: 8x4096, W1, W2: 4096x4096, O: 8x4096
//
// Both products contract over the same k and read the same X tiles, and the
// gate is elementwise, so one kernel can run both matmuls in one loop and
// apply silu(.) * (.) to the two accumulators before a single store. The
// unfused program writes X W1 and X W2 to device memory and reads them back.

// The unfused program: four pre-defined kernels.
func.func @reference(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>,
                     %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %b = kernel.matmul %x, %w2 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %s = kernel.silu %a : tensor<8x4096xf16>
  %o = kernel.mul %s, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
  return %o : tensor<8x4096xf16>
}

// The μGraph: one custom kernel.
func.func @fused(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>,
                 %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16>
    attributes {mlsopt.equivalent_to = @reference} {
  // Grid: 128 blocks along x, each owning 4096 / 128 = 32 columns of O. A
  // block needs the same 32 columns of both W1 and W2 (the gate pairs
  // column c of X W1 with column c of X W2), so it streams 2 x 32 weight
  // columns; 128 blocks nearly fill an H200's 132 SMs for this memory-bound
  // product. 128 threads = 4 warps per block.
  %o = kernel.custom (%x, %w1, %w2) grid <128, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>)
        -> tensor<8x4096xf16> {
  ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x4096xf16>,
       %in2: tensor<4096x4096xf16>, %out0: tensor<8x4096xf16>):
    // The loop walks the contraction dim k = 4096 in 32 steps of 128.
    // Accumulator 0 (sum): X W1 for this block's 32 columns.
    // Accumulator 1 (sum): X W2 for the same 32 columns.
    // silu is not linear, so it must wait until the sums are complete: it
    // is applied after the loop, not per iteration.
    %acc:2 = block.for_loop 32 iterations accumulate (sum, sum)
        : tensor<8x32xf16>, tensor<8x32xf16> {
      // X: imap <> (every block needs all rows and all of k); fmap 1:
      // iteration i loads columns [128i, 128i+128). Tile: 8x128, shared by
      // both matmuls.
      %xt = block.load %in0 imap <> fmap 1
          : tensor<8x4096xf16> -> tensor<8x128xf16>
      // W1, W2: imap <x = 1> gives block b columns [32b, 32b+32); fmap 0
      // gives iteration i rows [128i, 128i+128), the k range of the X tile.
      // Tiles: 128x32 (8 KiB each).
      %w1t = block.load %in1 imap <x = 1> fmap 0
          : tensor<4096x4096xf16> -> tensor<128x32xf16>
      %w2t = block.load %in2 imap <x = 1> fmap 0
          : tensor<4096x4096xf16> -> tensor<128x32xf16>
      // This iteration's partial products over its 128 values of k.
      %m1 = block.matmul %xt, %w1t : tensor<8x128xf16>, tensor<128x32xf16>
      %m2 = block.matmul %xt, %w2t : tensor<8x128xf16>, tensor<128x32xf16>
      block.yield %m1, %m2 : tensor<8x32xf16>, tensor<8x32xf16>
    }
    // Epilogue in registers: silu(X W1) * (X W2), elementwise on the two
    // complete 8x32 accumulators.
    %y = thread.graph (%acc#0, %acc#1)
        : (tensor<8x32xf16>, tensor<8x32xf16>) -> tensor<8x32xf16> {
    ^bb0(%a: f16, %b: f16):
      %s = thread.unary silu %a : f16
      %p = thread.binary mul %s, %b : f16
      thread.yield %p : f16
    }
    // omap <x = 1>: block b writes columns [32b, 32b+32) of O, the columns
    // of W1 and W2 it loaded. 128 tiles of 8x32 cover the 8x4096 output.
    block.store %y, %out0 omap <x = 1>
        : tensor<8x32xf16> into tensor<8x4096xf16>
    block.return
  }
  return %o : tensor<8x4096xf16>
}
