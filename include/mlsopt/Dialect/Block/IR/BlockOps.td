//===- BlockOps.td - Block dialect operations -----------------------------===//

#ifndef MLSOPT_DIALECT_BLOCK_IR_BLOCKOPS_TD
#define MLSOPT_DIALECT_BLOCK_IR_BLOCKOPS_TD

include "mlsopt/Dialect/Block/IR/BlockAttributes.td"
include "mlsopt/Dialect/Common/TensorOps.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Structure: for-loop, iterators, savers
//===----------------------------------------------------------------------===//

def Block_ForLoopOp : Block_Op<"for_loop", [
    SingleBlock, RecursiveMemoryEffects,
    HasParent<"::mlsopt::kernel::CustomOp">]> {
  let summary = "The for-loop of a block graph, with its accumulators";
  let description = [{
    Runs its body `iterations` times. In iteration `i`, every `block.load`
    in the body loads the `i`-th tile along its fmap dim. The body ends in
    `block.yield`; the `j`-th yielded value feeds the `j`-th accumulator,
    whose result, after the last iteration, is the loop's `j`-th result (see
    `#block.accumulator` for what each kind computes).

    ```mlir
    %acc:2 = block.for_loop 64 iterations accumulate (sum, sum)
        : tensor<8x96xf16>, tensor<8x1xf16> {
      %x = block.load %in0 imap <> fmap 1 : tensor<8x4096xf16> -> tensor<8x64xf16>
      ...
      block.yield %m, %s : tensor<8x96xf16>, tensor<8x1xf16>
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$iterations,
                       Block_AccumulatorArrayAttr:$accumulators);
  let results = (outs Variadic<MLSOpt_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $iterations `iterations` `accumulate` custom<Accumulators>($accumulators)
    attr-dict `:` type($results) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The accumulator of result `i`.
    AccumulatorAttr getAccumulator(unsigned i) {
      return ::llvm::cast<AccumulatorAttr>(getAccumulators()[i]);
    }
  }];
}

def Block_YieldOp : Block_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"ForLoopOp">]> {
  let summary = "Hands one iteration's values to the for-loop's accumulators";
  let arguments = (ins Variadic<MLSOpt_Tensor>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

def Block_LoadOp : Block_Op<"load", [
    Pure, ParentOneOf<["ForLoopOp", "::mlsopt::kernel::CustomOp"]>]> {
  let summary = "Input iterator: loads this block's tile of a kernel input";
  let description = [{
    Loads the tile of kernel input `source` that belongs to this thread block
    and this for-loop iteration into shared memory. `imap` splits tensor dims
    across the grid; `fmap`, when present, names the tensor dim that the
    for-loop's iterations split; without it every iteration loads the same
    tile. The result shape is the source shape divided accordingly. Along
    the fmap dim the tile may be larger than the dim divided by the
    iterations, as long as every iteration gets an element: the last
    iteration's tile then runs past the end and reads zeros there (a
    ragged loop). A matmul's k of 4097 takes 65 iterations of 64; zeros
    add nothing to its sums, where they would to a sum of exps, which the
    graph must then mask itself. A grid dim and the fmap may split the
    same dim: the grid cuts it exactly into one chunk per block, and the
    loop walks the block's chunk, so that in iteration `i` block `b` loads
    the tile at `b * tile * iterations + i * tile`; both cuts are then
    exact. Each block then reduces
    its own part of the dim (a split-K, as Mirage's attention graphs split
    the keys across blocks). Along a dim the grid splits, the
    tile may also be larger than the dim divided by the grid size, as long
    as every block gets at least one element: the last block's tile then
    runs past the end of the input (a ragged split) and reads zeros there.
    A dim of 50257 columns takes 393 tiles of 128, 197 tokens 4 tiles of
    64. A tile of another element type than the input
    converts each element as it loads it (f16 or bf16 to f32 exactly, f32 to
    f16 or bf16 rounded to nearest even): a `kernel.convert` of a
    mixed-precision program, fused into the kernel that reads it.

    A load after the for-loop, in the custom kernel's body, reads its tile
    once, for the epilogue: the bias, gain or residual that the ops after a
    matmul's accumulator combine with it. It has no fmap (the loop is over).

    With `window`, the load reads the box of `source` that starts at
    `offsets` and has shape `sizes` instead of the whole input, as if the
    input were that `tensor.extract_slice`: the imap and the fmap cut the
    window, and the tiles are offset by it. A slice of a value (the q, k
    and v of a fused projection, the halves of a gate-up product or of a
    rotary embedding) is read in place, without a copy kernel.

    ```mlir
    // A 4096x6144 weight on a grid of 96 blocks along x and a 64-iteration
    // loop: each block loads a 64x64 tile per iteration.
    %w = block.load %in1 imap <x = 1> fmap 0
        : tensor<4096x6144xf16> -> tensor<64x64xf16>
    // Split-K: 4 blocks along y each walk their 1024 rows of a 4096x64
    // input in 16 iterations of 64.
    %k = block.load %in2 imap <y = 0> fmap 0
        : tensor<4096x64xf16> -> tensor<64x64xf16>
    // After the loop: the bias of the block's 64 columns.
    %b = block.load %in3 imap <x = 0> : tensor<6144xf16> -> tensor<64xf16>
    // The second half of the columns of an 8x5632 product, 64 at a time.
    %u = block.load %in2 window [0, 2816] [8, 2816] imap <x = 1>
        : tensor<8x5632xf16> -> tensor<8x64xf16>
    ```
  }];
  let arguments = (ins MLSOpt_Readable:$source, Block_DimMapAttr:$imap,
                       OptionalAttr<I64Attr>:$fmap,
                       OptionalAttr<DenseI64ArrayAttr>:$offsets,
                       OptionalAttr<DenseI64ArrayAttr>:$sizes);
  let results = (outs MLSOpt_Readable:$tile);
  let assemblyFormat = [{
    $source (`window` $offsets^ $sizes)? `imap` $imap (`fmap` $fmap^)?
    attr-dict `:` type($source) `->` type($tile)
  }];
  let builders = [
    // A load of the whole input.
    OpBuilder<(ins "::mlir::Type":$tile, "::mlir::Value":$source,
                   "DimMapAttr":$imap, "::mlir::IntegerAttr":$fmap), [{
      build($_builder, $_state, tile, source, imap, fmap,
            ::mlir::DenseI64ArrayAttr(), ::mlir::DenseI64ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The shape the imap and the fmap cut: the window's, or the source's.
    ::llvm::SmallVector<int64_t> getWindowShape();
    /// Where the window starts in the source: zeros without a window.
    ::llvm::SmallVector<int64_t> getWindowOffsets();
    /// Where the window ends in the source: its offsets plus its sizes.
    ::llvm::SmallVector<int64_t> getWindowEnds();
    /// The dims of the window the grid or the for-loop splits raggedly, so
    /// that the last block's or the last iteration's tile runs past their
    /// end.
    ::llvm::SmallBitVector getRaggedDims();
    bool hasRaggedTiles() { return getRaggedDims().any(); }
    /// The iterations of the for-loop around the load; 1 after the loop.
    int64_t getLoopIterations();
    /// Per tile dim, how far apart neighbouring blocks' tiles start where
    /// a grid dim splits it (blockSpan): the tile, times the iterations
    /// along a dim the for-loop walks too.
    ::llvm::SmallVector<int64_t> getBlockSpans();
  }];
}

def Block_StoreOp : Block_Op<"store", [
    MemoryEffects<[MemWrite]>, HasParent<"::mlsopt::kernel::CustomOp">]> {
  let summary = "Output saver: writes this block's tile of a kernel output";
  let description = [{
    Writes `tile` to the part of kernel output `dest` that belongs to this
    thread block: `omap` places the tile along each grid dim. Every grid dim
    with more than one block must be mapped (blocks never write the same
    elements), and the tiles of all blocks must cover the output exactly
    once, each block's with at least one element. A tile larger than the
    output divided by the grid (a ragged split, see `block.load`) runs past
    the end of the output in the last block, which writes only what lies
    inside. Each output is stored exactly once, after the for-loop. An output of
    another element type than the tile converts each element as it stores it
    (a `kernel.convert` of the kernel's result, fused).

    ```mlir
    block.store %y, %out0 omap <x = 1> : tensor<8x64xf16> into tensor<8x6144xf16>
    ```
  }];
  let arguments = (ins MLSOpt_Tensor:$tile, MLSOpt_Tensor:$dest,
                       Block_DimMapAttr:$omap);
  let assemblyFormat = [{
    $tile `,` $dest `omap` $omap attr-dict `:` type($tile) `into` type($dest)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The dims of the output the grid splits raggedly, so that the last
    /// block's tile runs past their end.
    ::llvm::SmallBitVector getRaggedDims();
    bool hasRaggedTiles() { return getRaggedDims().any(); }
  }];
}

def Block_ReturnOp : Block_Op<"return", [Pure, Terminator, ReturnLike,
    HasParent<"::mlsopt::kernel::CustomOp">]> {
  let summary = "Ends a block graph";
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Compute ops on shared-memory tiles
//===----------------------------------------------------------------------===//

defm Block : MLSOpt_TensorOps<Block_Dialect, "tiles in shared memory",
                              /*widening=*/1>;

def Block_TriangleFillOp : MLSOpt_TriangleFillOp<Block_Dialect,
    "a tile in shared memory",
    (ins Block_DimMapAttr:$imap, OptionalAttr<I64Attr>:$fmap),
    "`imap` $imap (`fmap` $fmap^)?", [{

    The tile is this block's part of the masked tensor, placed as a load
    places its tile: `imap` names the tile dims that grid dims split and
    `fmap` the one the for-loop's iterations split, so element `t` of the
    tile is element `t + tile * (block index, iteration)` of the tensor
    along those dims. Only a tile inside the for-loop may have an fmap.
  }]>;

def Block_ConvertOp : MLSOpt_ConvertOp<Block_Dialect, "a tile", [{
    A kernel that computes in f32 rounds a tile it computed to f16 or bf16
    before a matmul reads it, so that the product runs on the tensor cores
    at the narrow type's rate, as the program it came from multiplies its
    f16 or bf16 values (attention's `exp(S - m)` before `P V`, a normalized
    row before its projection). The thread level fuses it into the chain
    that computes the tile (`thread.convert`).
  }], "tensor<64x128xf32> to tensor<64x128xf16>">;

def Block_WhereOp : MLSOpt_WhereOp<Block_Dialect, "tile", [{
    A kernel that reads a mask loads its tiles (one byte per element) and
    maps them here; the thread level fuses it into the chain that reads
    the tile (`thread.where`).
  }], "tensor<64x128xi1> to tensor<64x128xf32>">;

def Block_IntToFloatOp : MLSOpt_IntToFloatOp<Block_Dialect, "a tile", [{
    A kernel that reads an integer input loads its tiles as stored and
    converts them here; the thread level fuses it into the chain that
    reads the tile (`thread.int_to_float`).
  }], "tensor<1x128xi64> to tensor<1x128xf32>">;

#endif // MLSOPT_DIALECT_BLOCK_IR_BLOCKOPS_TD
