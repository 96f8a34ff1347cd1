//===- KernelToCustom.cpp - Pre-defined kernel ops as block graphs --------===//
//
// The default block graph of a kernel op splits its output across the grid and
// runs one for-loop:
//
//   elementwise, rms_norm, concat: the grid splits the output (the last dim
//     into tiles of up to 512, fewer where the tile holds a whole earlier
//     dim, the dims before it one row per block; never the dim rms_norm
//     normalizes or concat joins along), one
//     iteration, inputs read through the matching imaps (broadcast dims are
//     replicated);
//   matmul: 64x64 output tiles (x splits n, y splits m, z the batch), the loop
//     walks k in tiles of up to 64, a sum accumulator;
//   reduce_sum/max over dim d: the grid splits the other dims, the loop walks
//     d, the block reduces each tile and a sum/max accumulator combines them;
//   either, when its blocks are too few to keep a GPU busy and the loop is
//     long (a Gram matrix X^T X, column sums), two kernels instead: the
//     first splits the reduced dim across the grid, the second combines the
//     partial results (splitReduction below).
//
// The graph then passes the block-graph verifier like any hand-written one.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Block/IR/SharedMemoryPlan.h"
#include "mlsopt/Support/Target.h"
#include "mlsopt/Support/TileShapes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

namespace mlsopt {
#define GEN_PASS_DEF_CONVERTKERNELTOCUSTOM
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

namespace {

/// What the default schedule of one op is: the grid, which output dim each
/// grid dim splits, and the for-loop.
struct DefaultSchedule {
  std::array<int64_t, 3> grid = {1, 1, 1};
  GridToTensorDims omap;
  int64_t iterations = 1;
  /// Per input: the dim the loop splits, if any.
  SmallVector<std::optional<int64_t>> fmaps;
  /// Per input: for each output dim, the input dim that follows it (split by
  /// the same grid dim), if any.
  SmallVector<SmallVector<std::optional<int64_t>>> outputToInputDims;
  /// A split reduction (a split-k matmul): grid z walks `chunks` chunks of
  /// the reduced dim, dim `splitDims[i]` of input i, one chunk per block with
  /// no for-loop; each block stores its partial result beside the others
  /// along output dim `chunkDim`, and a second kernel combines them.
  int64_t chunks = 1;
  int64_t chunkDim = 0;
  SmallVector<int64_t> splitDims;
  /// Per grid dim: the tile along the output dim it splits where that is
  /// larger than the dim over the grid size, rounded up (a ragged split,
  /// see isGridTile); 0 elsewhere.
  std::array<int64_t, 3> tiles = {0, 0, 0};
  /// The tile along the loop's dim where the loop walks it raggedly (the
  /// last iteration's tile runs past the end, reading zeros), 0 where the
  /// iterations divide it. Only sums whose terms are 0 where an operand is
  /// (a matmul's k, a plain reduce_sum) walk a dim raggedly.
  int64_t loopTile = 0;
};

/// Fewer output tiles than this leave most SMs of every supported chip idle
/// (82 to 132 SMs), so such a matmul or reduction splits the reduced dim as
/// well.
constexpr int64_t kSplitBelowBlocks = 16;
/// The blocks a split aims at: about half the SMs of the smallest chip.
constexpr int64_t kSplitTargetBlocks = 64;
/// The fewest for-loop iterations worth splitting: a shorter reduced dim is
/// not where the time goes.
constexpr int64_t kSplitMinIterations = 4;
/// The shortest chunk a block takes (a tensor-core matmul's k).
constexpr int64_t kSplitMinChunk = 16;
/// The narrowest last-dim tile taken while a wider divisor exists: a
/// quarter of a warp's elements, below which loads stop coalescing.
constexpr int64_t kMinLastDimTile = 8;

/// The largest power of two up to `cap` that divides `size`.
int64_t powerOfTwoTile(int64_t size, int64_t cap) {
  return std::gcd(size, cap);
}

/// The tile along a matmul's m or n of `size`: the largest power of two up
/// to `cap` that divides it while that is 16 or more (or the whole dim);
/// else `cap`, with the last block's tile ragged, or the whole dim where
/// that is shorter. 4097 rows, 77 tokens or a vocabulary of 50257 had no
/// such power of two and took tiles of one row or column, a block each
/// reloading the whole other operand.
int64_t matmulTileFor(int64_t size, int64_t cap) {
  int64_t tile = powerOfTwoTile(size, cap);
  if (tile >= std::min<int64_t>(16, cap) || tile == size)
    return tile;
  return std::min(size, cap);
}

/// The smallest tile along a dim of `size` that leaves at most `maxParts`
/// parts: `size` over its largest divisor up to `maxParts`. Divisors come in
/// pairs around the square root, so the walk takes sqrt(size) steps, not
/// size (a dim of 1e11 elements would take minutes one tile at a time).
int64_t smallestTile(int64_t size, int64_t maxParts) {
  int64_t parts = 1;
  for (int64_t d = 1; d <= size / d; ++d) {
    if (size % d != 0)
      continue;
    if (d <= maxParts)
      parts = std::max(parts, d);
    if (size / d <= maxParts)
      parts = std::max(parts, size / d);
  }
  return size / parts;
}

/// The tile along a last dim of `size`: the largest power of two up to
/// `cap` that divides it, unless that is under kMinLastDimTile (a dim of
/// 27 or 4097 has no factor of two and got tiles of one element, a block
/// each); then the largest divisor up to `cap`.
int64_t lastDimTileFor(int64_t size, int64_t cap) {
  int64_t tile = powerOfTwoTile(size, cap);
  if (tile >= kMinLastDimTile || tile == size)
    return tile;
  for (int64_t d = std::min(size, cap); d > tile; --d)
    if (size % d == 0)
      return d;
  return tile;
}

/// lastDimTileFor, or `cap` with the last block's tile ragged where no
/// divisor comes within a quarter of it: a vocabulary of 50257 = 29 * 1733
/// columns takes 99 tiles of 512, not 1733 of 29.
int64_t lastDimRaggedTileFor(int64_t size, int64_t cap) {
  int64_t tile = lastDimTileFor(size, cap);
  return size > cap && tile * 4 < cap ? cap : tile;
}

/// The blocks tiles of `tile` take along a dim of `size`.
int64_t blocksOf(int64_t size, int64_t tile) {
  return llvm::divideCeil(size, tile);
}

/// Records in `s.tiles` the tile `tileOf(dim)` of each output dim of
/// `shape` that the grid of `s` splits raggedly.
void recordRaggedTiles(DefaultSchedule &s, ArrayRef<int64_t> shape,
                       function_ref<int64_t(int64_t dim)> tileOf) {
  s.tiles = {};
  for (unsigned g = 0; g < 3; ++g)
    if (s.omap[g]) {
      int64_t dim = *s.omap[g];
      if (int64_t tile = tileOf(dim);
          tile && isRaggedTile(tile, shape[dim], s.grid[g]))
        s.tiles[g] = tile;
    }
}

/// Puts `extents` (an output dim and its blocks, more than one) on grid x,
/// y and z in the order given, or, when that would pass a grid dim's limit
/// (y and z take 65535 blocks, x 2^31 - 1), most blocks first: a prime
/// count of 65537 rows, which no tile but the whole dim cuts into fewer
/// blocks, then goes on x, where on y it stayed whole in every tile and
/// no block's shared memory held it. `retile` gives a dim's blocks under a
/// grid dim's limit; a dim left with one block stays whole in every tile.
void placeOnGrid(DefaultSchedule &s,
                 SmallVector<std::pair<int64_t, int64_t>> extents,
                 function_ref<int64_t(int64_t dim, int64_t maxBlocks)> retile) {
  bool fitsInOrder = true;
  for (auto [g, extent] : llvm::enumerate(extents))
    if (g < 3 && extent.second > kMaxGridSize[g])
      fitsInOrder = false;
  if (!fitsInOrder)
    llvm::stable_sort(extents, [](const auto &a, const auto &b) {
      return a.second > b.second;
    });
  unsigned g = 0;
  for (auto [dim, blocks] : extents) {
    if (g == 3)
      break;
    if (blocks > kMaxGridSize[g])
      blocks = retile(dim, kMaxGridSize[g]);
    if (blocks <= 1)
      continue;
    s.grid[g] = blocks;
    s.omap[g] = dim;
    ++g;
  }
}

/// Assigns grid x, y, z to `dims` (output dims, innermost first). The last
/// dim of the tensor is cut into tiles of up to `lastDimTile`; other dims
/// give one index per block.
void splitAcrossGrid(DefaultSchedule &s, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> allDims, int64_t lastDimTile) {
  int64_t rank = shape.size();
  // With more dims to split than grid dims, the longest go on the grid and
  // the rest stay whole in every tile: a [38, 2, 2, 1024] tensor split
  // innermost first kept all 38 rows in each block, past any shared memory.
  SmallVector<int64_t> dims;
  for (int64_t dim : allDims)
    if (shape[dim] >
        (dim == rank - 1 ? lastDimRaggedTileFor(shape[dim], lastDimTile) : 1))
      dims.push_back(dim);
  if (dims.size() > 3) {
    SmallVector<int64_t> byLength(dims);
    llvm::stable_sort(byLength, [&](int64_t a, int64_t b) {
      if ((a == rank - 1) != (b == rank - 1))
        return a == rank - 1;
      return shape[a] > shape[b];
    });
    byLength.resize(3);
    llvm::erase_if(
        dims, [&](int64_t dim) { return !llvm::is_contained(byLength, dim); });
  }
  // The tile each dim gets, by its blocks.
  DenseMap<int64_t, int64_t> tiles;
  auto blocksUnder = [&](int64_t dim, int64_t maxBlocks) {
    int64_t tile = dim == rank - 1
                       ? lastDimRaggedTileFor(shape[dim], lastDimTile)
                       : smallestTile(shape[dim], maxBlocks);
    if (blocksOf(shape[dim], tile) > maxBlocks)
      tile = smallestTile(shape[dim], maxBlocks);
    tiles[dim] = tile;
    return blocksOf(shape[dim], tile);
  };
  SmallVector<std::pair<int64_t, int64_t>> extents;
  for (int64_t dim : dims)
    if (int64_t blocks = blocksUnder(dim, kMaxGridSize[0]); blocks > 1)
      extents.emplace_back(dim, blocks);
  placeOnGrid(s, extents, blocksUnder);
  recordRaggedTiles(s, shape, [&](int64_t dim) { return tiles.lookup(dim); });
}

/// The input dims that correspond to each output dim under numpy
/// broadcasting: aligned on the right, equal sizes only.
SmallVector<std::optional<int64_t>>
broadcastCorrespondence(ArrayRef<int64_t> input, ArrayRef<int64_t> output) {
  SmallVector<std::optional<int64_t>> dims(output.size());
  int64_t shift = output.size() - input.size();
  for (int64_t d = 0; d < static_cast<int64_t>(output.size()); ++d)
    if (d - shift >= 0 && input[d - shift] == output[d])
      dims[d] = d - shift;
  return dims;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Bytes of shared memory a block of the default graph uses: every input
/// tile, the result tile and its f32 accumulator (the GPU lowering's layout).
int64_t estimateSharedBytes(ArrayRef<SmallVector<int64_t>> inputTiles,
                            ArrayRef<int64_t> resultTile, Type elementType) {
  unsigned bits = elementType.getIntOrFloatBitWidth();
  int64_t total = 0;
  for (const SmallVector<int64_t> &tile : inputTiles)
    total += tileBytes(tile, bits);
  total += tileBytes(resultTile, bits);
  total += tileBytes(resultTile, 32);
  return total;
}

/// The shape the first kernel of `s` stores: `output`, or for a split
/// reduction the partial results side by side along the chunk dim.
SmallVector<int64_t> storedShape(const DefaultSchedule &s,
                                 ArrayRef<int64_t> output) {
  SmallVector<int64_t> shape(output);
  shape[s.chunkDim] *= s.chunks;
  return shape;
}

/// The imap of input `i`: each grid dim splits the input dim that follows
/// the output dim it splits; a split reduction's grid z splits the reduced
/// dim.
GridToTensorDims getImap(const DefaultSchedule &s, unsigned i) {
  GridToTensorDims imap;
  for (unsigned g = 0; g < 3; ++g)
    if (g == 2 && s.chunks > 1)
      imap[g] = s.splitDims[i];
    else if (s.omap[g])
      imap[g] = s.outputToInputDims[i][*s.omap[g]];
  return imap;
}

/// `tile` with the ragged tiles of `tiles` (DefaultSchedule::tiles) along
/// the dims `map` places by the grid, and `loopTile` (if not 0) along the
/// dim `fmap` the loop walks.
SmallVector<int64_t> withRaggedTiles(SmallVector<int64_t> tile,
                                     const GridToTensorDims &map,
                                     std::array<int64_t, 3> tiles,
                                     std::optional<int64_t> fmap = std::nullopt,
                                     int64_t loopTile = 0) {
  for (unsigned g = 0; g < 3; ++g)
    if (map[g] && tiles[g])
      tile[*map[g]] = tiles[g];
  if (fmap && loopTile)
    tile[*fmap] = loopTile;
  return tile;
}

/// The tile each block of `grid` stores, through `omap`, into a tensor of
/// shape `output`.
SmallVector<int64_t> outputTileShape(ArrayRef<int64_t> output,
                                     std::array<int64_t, 3> grid,
                                     const GridToTensorDims &omap,
                                     std::array<int64_t, 3> tiles) {
  SmallVector<int64_t> tile(output);
  for (unsigned g = 0; g < 3; ++g)
    if (omap[g])
      tile[*omap[g]] = gridTileSize(tile[*omap[g]], grid[g]);
  return withRaggedTiles(tile, omap, tiles);
}

/// Turns the schedule `s` of a reduction of `extent` elements per output
/// element (a matmul's k) into a split one where its output tiles are too
/// few (see kSplitBelowBlocks) and the for-loop is long: grid z takes chunks
/// of the reduced dim (dim `splitDims[i]` of input i), as many as bring the
/// blocks to about kSplitTargetBlocks, and each block holds its whole chunk
/// (a dim is split once, by the grid or by the loop). The partial results
/// go side by side along output dim `chunkDim`, which the grid must not
/// split. Only while grid z is free, and where the chunk's tiles `fit`; `s`
/// stays as it is otherwise.
void splitReduction(DefaultSchedule &s, int64_t extent,
                    ArrayRef<int64_t> splitDims, int64_t chunkDim,
                    function_ref<bool()> fit) {
  int64_t blocks = s.grid[0] * s.grid[1] * s.grid[2];
  if (s.grid[2] != 1 || blocks >= kSplitBelowBlocks ||
      s.iterations < kSplitMinIterations ||
      llvm::is_contained(s.omap, chunkDim))
    return;
  DefaultSchedule split = s;
  split.chunkDim = chunkDim;
  split.splitDims.assign(splitDims.begin(), splitDims.end());
  split.iterations = 1;
  split.loopTile = 0;
  split.fmaps.assign(s.fmaps.size(), std::nullopt);
  split.omap[2] = chunkDim;
  split.tiles[2] = 0;
  int64_t wanted = llvm::divideCeil(kSplitTargetBlocks, blocks);
  for (int64_t chunks = std::max<int64_t>(2, wanted);
       chunks <= std::min(extent, kMaxGridSize[2]); ++chunks) {
    if (extent % chunks != 0)
      continue;
    if (extent / chunks < kSplitMinChunk)
      return;
    split.chunks = split.grid[2] = chunks;
    std::swap(s, split);
    if (fit())
      return;
    std::swap(s, split);
  }
}

/// The grid of the kernel that combines the partial results of a split
/// reduction with output `out`, the chunks side by side along `chunkDim`
/// (which its loop walks, so the grid cannot split it), and its omap. Each
/// chunk's partial is small, so the output is split as finely as the other
/// dims allow, innermost first, up to kSplitTargetBlocks blocks, keeping
/// last-dim tiles of 8 elements or more for coalesced loads: the first
/// kernel's grid would leave a Gram matrix's 64 partial 64x64 tiles to one
/// block.
std::array<int64_t, 3> combineGrid(ArrayRef<int64_t> out, int64_t chunkDim,
                                   GridToTensorDims &omap) {
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t rank = out.size(), left = kSplitTargetBlocks;
  unsigned g = 0;
  for (int64_t d = rank - 1; d >= 0 && g < 3; --d) {
    if (d == chunkDim)
      continue;
    int64_t minTile = d == rank - 1 ? std::min<int64_t>(out[d], 8) : 1;
    int64_t parts = 1;
    for (int64_t p = 1; p <= std::min(left, kMaxGridSize[g]); ++p)
      if (out[d] % p == 0 && out[d] / p >= minTile)
        parts = p;
    if (parts == 1)
      continue;
    grid[g] = parts;
    omap[g] = d;
    left /= parts;
    ++g;
  }
  return grid;
}

/// The kernels of `op`'s default block graph under schedule `s`, built at
/// the rewriter's insertion point: one, or for a split reduction the one
/// that computes the partial results and the one that combines them.
FailureOr<SmallVector<kernel::CustomOp, 2>>
buildDefaultKernels(RewriterBase &rewriter, Operation *op,
                    const DefaultSchedule &s);

/// Whether the shared memory the GPU lowering gives the kernels of `s` (the
/// SharedMemoryPlan, double buffers and all) is at most `maxBytes`. The
/// estimate leaves out the second buffers of loads a loop prefetches, so a
/// batched f16 matmul whose estimate fit sm_80 needed 204800 bytes of its
/// 166912. The kernels are built in a scratch block and erased.
bool planFits(Operation *op, const DefaultSchedule &s, int64_t maxBytes) {
  Block scratch;
  IRRewriter rewriter(op->getContext());
  rewriter.setInsertionPointToStart(&scratch);
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  FailureOr<SmallVector<kernel::CustomOp, 2>> kernels =
      buildDefaultKernels(rewriter, op, s);
  bool fits =
      succeeded(kernels) && llvm::all_of(*kernels, [&](kernel::CustomOp k) {
        // Padded rows included: the default tiles leave room for them.
        return block::SharedMemoryPlan(k).getTotalBytes() <= maxBytes;
      });
  while (!scratch.empty()) {
    scratch.back().dropAllUses();
    scratch.back().erase();
  }
  return fits;
}

/// The schedule of `op`, or failure when it has no default block graph.
FailureOr<DefaultSchedule> scheduleFor(Operation *op, int64_t maxSharedMemBytes,
                                       bool allowSplit) {
  DefaultSchedule s;
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  int64_t rank = out.size();
  Type elementType =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  auto allDimsInnermostFirst = [&](std::optional<int64_t> skip) {
    SmallVector<int64_t> dims;
    for (int64_t d = rank - 1; d >= 0; --d)
      if (d != skip)
        dims.push_back(d);
    return dims;
  };
  auto inputTiles = [&]() {
    SmallVector<SmallVector<int64_t>> tiles;
    for (auto [i, input] : llvm::enumerate(op->getOperands()))
      tiles.push_back(
          withRaggedTiles(inputTileShape(shapeOf(input), getImap(s, i), s.grid,
                                         s.fmaps[i], s.iterations)
                              .shape,
                          getImap(s, i), s.tiles, s.fmaps[i], s.loopTile));
    return tiles;
  };
  // A split reduction's first kernel computes on f32 tiles (its partials
  // stay f32; see wrapInDefaultBlockGraph).
  auto tileType = [&]() -> Type {
    return s.chunks > 1 ? Float32Type::get(op->getContext()) : elementType;
  };
  // The estimate rules out most schedules cheaply; the plan of the kernels
  // then decides.
  auto fits = [&]() {
    return estimateSharedBytes(
               inputTiles(),
               outputTileShape(storedShape(s, out), s.grid, s.omap, s.tiles),
               tileType()) <= maxSharedMemBytes &&
           planFits(op, s, maxSharedMemBytes);
  };

  if (auto matmul = dyn_cast<kernel::MatmulOp>(op)) {
    // [..., m, k] x [..., k, n]: x splits n, y splits m, z the innermost
    // batch dim; the loop walks k.
    ArrayRef<int64_t> lhs = shapeOf(matmul.getLhs());
    int64_t k = lhs.back();
    int64_t tileN = matmulTileFor(out[rank - 1], 64);
    int64_t tileM = matmulTileFor(out[rank - 2], 64);
    // A k that no power of two of 16 or more divides (4097, or 197
    // tokens of P @ V) is walked raggedly in tiles of 64: zeros past its
    // end add nothing to the products' sums. Tiles of one k-value had
    // taken 4097 iterations off the tensor cores.
    int64_t tileK = matmulTileFor(k, 64);
    for (unsigned i = 0; i < 2; ++i) {
      SmallVector<std::optional<int64_t>> dims(rank);
      for (int64_t d = 0; d < rank - 2; ++d)
        dims[d] = d;
      if (i == 0)
        dims[rank - 2] = rank - 2; // m
      else
        dims[rank - 1] = rank - 1; // n
      s.outputToInputDims.push_back(dims);
    }
    s.fmaps = {rank - 1, rank - 2};
    // Shrink k first (more iterations), then the output tile, until the
    // tiles fit the shared memory of every target.
    while (true) {
      s.grid = {blocksOf(out[rank - 1], tileN), blocksOf(out[rank - 2], tileM),
                1};
      s.omap = {};
      if (s.grid[0] > 1)
        s.omap[0] = rank - 1;
      if (s.grid[1] > 1)
        s.omap[1] = rank - 2;
      if (rank >= 3 && out[rank - 3] > 1 && out[rank - 3] <= kMaxGridSize[2]) {
        s.grid[2] = out[rank - 3];
        s.omap[2] = rank - 3;
      }
      // Grid dims that n, m or the innermost batch dim left free take the
      // other batch dims, innermost first: kept whole in each tile, a
      // [5, 2, 64, 64] batch put five matrices in every block.
      for (int64_t d = rank - 3; d >= 0; --d) {
        if (out[d] == 1 || llvm::is_contained(s.omap, d))
          continue;
        for (unsigned g = 0; g < 3; ++g)
          if (s.grid[g] == 1 && out[d] <= kMaxGridSize[g]) {
            s.grid[g] = out[d];
            s.omap[g] = d;
            break;
          }
      }
      // More row tiles than grid y takes (65537 rows, a prime, one per
      // tile), or a batch past grid z: n, m and the batch dims go on the
      // grid most blocks first.
      bool batchLeftWhole = false;
      for (int64_t d = 0; d + 2 < rank; ++d)
        batchLeftWhole |= out[d] > 1 && !llvm::is_contained(s.omap, d) &&
                          out[d] > kMaxGridSize[2];
      if (s.grid[1] > kMaxGridSize[1] || batchLeftWhole) {
        SmallVector<std::pair<int64_t, int64_t>> extents;
        for (auto [dim, blocks] :
             {std::pair(rank - 1, blocksOf(out[rank - 1], tileN)),
              std::pair(rank - 2, blocksOf(out[rank - 2], tileM))})
          if (blocks > 1)
            extents.emplace_back(dim, blocks);
        for (int64_t d = rank - 3; d >= 0; --d)
          if (out[d] > 1)
            extents.emplace_back(d, out[d]);
        s.grid = {1, 1, 1};
        s.omap = {};
        // A dim past every free grid dim's limit stays whole in each tile.
        placeOnGrid(s, extents, [](int64_t, int64_t) { return int64_t(1); });
      }
      // Tiles of m and n that the grid splits raggedly (batch dims are
      // split one matrix per block).
      recordRaggedTiles(s, out, [&](int64_t dim) -> int64_t {
        return dim == rank - 1 ? tileN : dim == rank - 2 ? tileM : 0;
      });
      s.iterations = llvm::divideCeil(k, tileK);
      s.loopTile = k % tileK ? tileK : 0;
      if (fits()) {
        // Partials along a dim the grid does not split, n (the last dim)
        // unless it does: k is dim 1 of the left operand and dim 0 of the
        // right one.
        if (allowSplit && rank == 2)
          splitReduction(s, k, {1, 0},
                         llvm::is_contained(s.omap, int64_t(1)) ? 0 : 1, fits);
        return s;
      }
      if (tileK > 16)
        tileK /= 2;
      else if (tileM > 16)
        tileM /= 2;
      else if (tileN > 8)
        tileN /= 2;
      else
        break;
    }
    return op->emitOpError("has no default block graph that fits in ")
           << maxSharedMemBytes << " bytes of shared memory";
  }

  if (isa<kernel::ReduceSumOp, kernel::ReduceMaxOp>(op)) {
    int64_t dim = op->getAttrOfType<IntegerAttr>("dim").getInt();
    ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
    splitAcrossGrid(s, out, allDimsInnermostFirst(dim), 64);
    SmallVector<std::optional<int64_t>> dims(rank);
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim)
        dims[d] = d;
    s.outputToInputDims.push_back(dims);
    s.fmaps = {dim};
    // The loop walks the reduced dim in tiles of up to 1024 elements; a
    // sum raggedly where no power of two of 16 or more divides the dim
    // (zeros past the end add nothing), a maximum exactly (a zero would
    // join it).
    bool sum = isa<kernel::ReduceSumOp>(op);
    int64_t tileD =
        sum ? matmulTileFor(in[dim], 1024) : powerOfTwoTile(in[dim], 1024);
    auto fitsInTile = [&] {
      return tileBytes(inputTiles()[0], tileType().getIntOrFloatBitWidth()) <=
                 16384 &&
             fits();
    };
    while (true) {
      s.iterations = llvm::divideCeil(in[dim], tileD);
      s.loopTile = in[dim] % tileD ? tileD : 0;
      if (fitsInTile()) {
        // Partials along the reduced dim, which the result keeps with
        // size 1.
        if (allowSplit)
          splitReduction(s, in[dim], {dim}, dim, fitsInTile);
        return s;
      }
      if (tileD == 1)
        break;
      tileD /= 2;
    }
    return op->emitOpError("has no default block graph that fits in ")
           << maxSharedMemBytes << " bytes of shared memory";
  }

  std::optional<int64_t> wholeDim;
  if (auto norm = dyn_cast<kernel::RmsNormOp>(op))
    wholeDim = norm.getNormalizedDim(); // normalizes over that whole dim
  if (auto concat = dyn_cast<kernel::ConcatOp>(op))
    wholeDim = concat.getDim();
  for (Value input : op->getOperands()) {
    s.outputToInputDims.push_back(
        wholeDim ? SmallVector<std::optional<int64_t>>(
                       llvm::map_range(llvm::seq<int64_t>(0, rank),
                                       [&](int64_t d) -> std::optional<int64_t> {
                                         if (d == *wholeDim)
                                           return std::nullopt;
                                         return d;
                                       }))
                 : broadcastCorrespondence(shapeOf(input), out));
    s.fmaps.push_back(std::nullopt);
  }
  // Last-dim tiles of up to 512; when a whole dim before the last stays in
  // every tile (an rms_norm over dim 1 of [h, d, n], say), narrower ones
  // until the tiles fit.
  for (int64_t lastDimTile = 512; lastDimTile >= 1; lastDimTile /= 2) {
    s.grid = {1, 1, 1};
    s.omap = {};
    splitAcrossGrid(s, out, allDimsInnermostFirst(wholeDim), lastDimTile);
    if (fits())
      return s;
    if (!wholeDim || *wholeDim == rank - 1)
      break;
  }
  return op->emitOpError("has no default block graph that fits in ")
         << maxSharedMemBytes << " bytes of shared memory";
}

} // namespace

bool mlsopt::hasDefaultBlockGraph(Operation *op) {
  return op->getDialect() &&
         op->getDialect()->getNamespace() ==
             kernel::KernelDialect::getDialectNamespace() &&
         !isa<kernel::CustomOp, kernel::TransposeOp, kernel::ConvertOp>(op) &&
         op->getNumResults() == 1;
}

namespace {

/// One input of a default kernel: the tensor, and how the grid and the
/// for-loop split it.
struct KernelInput {
  Value value;
  GridToTensorDims imap;
  std::optional<int64_t> fmap;
};

/// A kernel.custom at the rewriter's insertion point whose blocks load `inputs`
/// over `iterations` for-loop iterations, combine what `compute` makes of the
/// tiles with `accumulator`, and store the result into a tensor of `resultType`
/// through `omap` (the tiles along the dims it splits raggedly: `raggedTiles`,
/// as DefaultSchedule::tiles; along the loop's dims, `loopTile` where not
/// 0, as DefaultSchedule::loopTile); failure, with a diagnostic on `op`, if a
/// tile does not exist. Tiles hold `tileElementType` (default: the result's),
/// converted as they are loaded and stored; loaded tiles `loadElementType` if
/// given (the f16 operands of a widening matmul).
FailureOr<kernel::CustomOp> createDefaultKernel(
    RewriterBase &rewriter, Operation *op, ArrayRef<KernelInput> inputs,
    RankedTensorType resultType, std::array<int64_t, 3> grid,
    const GridToTensorDims &omap, std::array<int64_t, 3> raggedTiles,
    int64_t iterations, int64_t loopTile, block::AccumKind accumulator,
    function_ref<Value(ValueRange tiles, RankedTensorType tile)> compute,
    Type tileElementType = {}, Type loadElementType = {}) {
  if (!tileElementType)
    tileElementType = resultType.getElementType();
  if (!loadElementType)
    loadElementType = tileElementType;
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  SmallVector<Value> values;
  SmallVector<Type> argTypes;
  for (const KernelInput &input : inputs) {
    values.push_back(input.value);
    argTypes.push_back(input.value.getType());
  }
  argTypes.push_back(resultType);
  auto tileType = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, tileElementType);
  };
  // Every tile first, so that a failure leaves nothing behind.
  SmallVector<RankedTensorType> tileTypes;
  for (const KernelInput &input : inputs) {
    ShapeOrError shape = inputTileShape(shapeOf(input.value), input.imap, grid,
                                        input.fmap, iterations);
    if (!shape.ok())
      return op->emitOpError("default block graph: ") << shape.error;
    // A mask or integers (where's and int_to_float's operand) are loaded
    // as stored.
    tileTypes.push_back(RankedTensorType::get(
        withRaggedTiles(shape.shape, input.imap, raggedTiles, input.fmap,
                        loopTile),
        block::getLoadedElementType(getElementTypeOrSelf(input.value.getType()),
                                    loadElementType)));
  }
  RankedTensorType resultTile =
      tileType(outputTileShape(resultType.getShape(), grid, omap, raggedTiles));

  OpBuilder::InsertionGuard guard(rewriter);
  auto custom = kernel::CustomOp::create(
      rewriter, loc, TypeRange{resultType}, values,
      kernel::Dim3Attr::get(ctx, grid[0], grid[1], grid[2]),
      kernel::Dim3Attr::get(ctx, kDefaultThreadsPerBlock, 1, 1));
  Block *body =
      rewriter.createBlock(&custom.getBody(), {}, argTypes,
                           SmallVector<Location>(argTypes.size(), loc));
  auto loop = block::ForLoopOp::create(
      rewriter, loc, TypeRange{resultTile}, iterations,
      rewriter.getArrayAttr(
          {block::AccumulatorAttr::get(ctx, accumulator, std::nullopt)}));
  rewriter.createBlock(&loop.getBody());
  SmallVector<Value> tiles;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    IntegerAttr fmap =
        input.fmap ? rewriter.getI64IntegerAttr(*input.fmap) : IntegerAttr();
    tiles.push_back(
        block::LoadOp::create(rewriter, loc, tileTypes[i], body->getArgument(i),
                              block::DimMapAttr::get(ctx, input.imap), fmap));
  }
  block::YieldOp::create(rewriter, loc, compute(tiles, resultTile));
  rewriter.setInsertionPointAfter(loop);
  block::StoreOp::create(rewriter, loc, loop.getResult(0),
                         body->getArguments().back(),
                         block::DimMapAttr::get(ctx, omap));
  block::ReturnOp::create(rewriter, loc);
  return custom;
}

} // namespace

Value mlsopt::createTileOp(RewriterBase &rewriter, Operation *op,
                           ValueRange tiles, RankedTensorType tileType,
                           block::DimMapAttr imap, IntegerAttr fmap) {
  OperationState state(op->getLoc(),
                       ("block." + op->getName().stripDialect()).str());
  state.addOperands(tiles);
  state.addAttributes(op->getAttrs());
  if (isa<kernel::TriangleFillOp>(op)) {
    state.addAttribute("imap", imap);
    if (fmap)
      state.addAttribute("fmap", fmap);
  }
  state.addTypes(tileType);
  return rewriter.create(state)->getResult(0);
}

static bool isRankZero(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0;
}

bool mlsopt::hasRankZeroTensor(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isRankZero) ||
         llvm::any_of(op->getResultTypes(), isRankZero);
}

/// `op` computed on size-1 vectors in place of its rank-0 operands and
/// result: block graphs map grid dims and loop iterations to tensor dims, and
/// a rank-0 tensor has none. The rank-0 values are views of the same buffer
/// (tensor.expand_shape / collapse_shape), which the GPU host lowering
/// launches nothing for. Returns `op` itself when it has no rank-0 tensor.
static Operation *expandRankZero(RewriterBase &rewriter, Operation *op) {
  if (!hasRankZeroTensor(op))
    return op;
  auto vectorOf = [](Type type) {
    return RankedTensorType::get({1},
                                 cast<RankedTensorType>(type).getElementType());
  };
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(isRankZero(operand.getType())
                           ? tensor::ExpandShapeOp::create(
                                 rewriter, loc, vectorOf(operand.getType()),
                                 operand, ArrayRef<ReassociationIndices>{})
                                 .getResult()
                           : operand);
  // Elementwise ops broadcast: a rank-0 result had only rank-0 operands, so
  // the op on their vectors yields a vector.
  SmallVector<Type> resultTypes =
      llvm::map_to_vector(op->getResultTypes(), [&](Type type) {
        return isRankZero(type) ? vectorOf(type) : type;
      });
  Operation *expanded = mlir::clone(rewriter, op, resultTypes, operands);
  SmallVector<Value> results;
  for (auto [old, now] : llvm::zip(op->getResults(), expanded->getResults()))
    results.push_back(isRankZero(old.getType())
                          ? Value(tensor::CollapseShapeOp::create(
                                rewriter, loc, old.getType(), now,
                                ArrayRef<ReassociationIndices>{}))
                          : Value(now));
  rewriter.replaceOp(op, results);
  return expanded;
}

bool mlsopt::canWrapInDefaultBlockGraph(Operation *op,
                                        int64_t maxSharedMemBytes) {
  if (!hasDefaultBlockGraph(op) || hasRankZeroTensor(op))
    return false;
  // scheduleFor says why it fails; the caller only asks.
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  return succeeded(scheduleFor(op, maxSharedMemBytes, /*allowSplit=*/true));
}

namespace {
FailureOr<SmallVector<kernel::CustomOp, 2>>
buildDefaultKernels(RewriterBase &rewriter, Operation *op,
                    const DefaultSchedule &s) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<KernelInput> inputs;
  for (auto [i, input] : llvm::enumerate(op->getOperands()))
    inputs.push_back({input, getImap(s, i), s.fmaps[i]});
  // The block op of the same name does the work on the tiles, which sit
  // where the block stores them.
  auto sameOp = [&](ValueRange tiles, RankedTensorType tile) {
    return createTileOp(rewriter, op, tiles, tile,
                        block::DimMapAttr::get(op->getContext(), s.omap));
  };
  // f16 and bf16 matmuls and sums accumulate in f32 and round once, as the
  // kernel ops do: their tiles are f32, and each iteration's product or
  // sum joins the accumulator unrounded (rounded to f16, a tile's product
  // of 32 k-values near 60 was past 65504). A matmul multiplies its f16 or
  // bf16 tiles as loaded (a widening block.matmul, on the tensor cores at
  // their rate); a sum's tiles are converted as loaded, as every tile of a
  // split reduction's first kernel is (f16 and bf16 values are exact in
  // f32). A split reduction's partial results stay f32 from the first
  // kernel's accumulators to the second's, which rounds once. (Rounded to
  // 16 bits, a bf16 [1, 4096] x [4096, 256] split 16 ways had 5 times the
  // error.)
  Type elementType = resultType.getElementType();
  Type f32 = Float32Type::get(op->getContext());
  bool narrow = elementType.getIntOrFloatBitWidth() < 32;
  Type tileType, loadType;
  if (narrow &&
      (s.chunks > 1 || isa<kernel::MatmulOp, kernel::ReduceSumOp>(op))) {
    tileType = f32;
    if (isa<kernel::MatmulOp>(op))
      loadType = elementType;
  }
  Type partialType = narrow && s.chunks > 1 ? f32 : elementType;
  auto stored =
      RankedTensorType::get(storedShape(s, resultType.getShape()), partialType);
  block::AccumKind accumulator = isa<kernel::ReduceMaxOp>(op)
                                     ? block::AccumKind::max
                                     : block::AccumKind::sum;
  FailureOr<kernel::CustomOp> custom = createDefaultKernel(
      rewriter, op, inputs, stored, s.grid, s.omap, s.tiles, s.iterations,
      s.loopTile, accumulator, sameOp, tileType, loadType);
  if (failed(custom))
    return failure();
  SmallVector<kernel::CustomOp, 2> kernels = {*custom};
  if (s.chunks > 1) {
    // The second kernel of a split reduction: a for-loop over the chunks
    // that combines the partial results as the first kernel's accumulator
    // would have, on a grid of its own (combineGrid).
    GridToTensorDims omap;
    std::array<int64_t, 3> grid =
        combineGrid(resultType.getShape(), s.chunkDim, omap);
    KernelInput partial{custom->getResult(0), omap, s.chunkDim};
    custom = createDefaultKernel(
        rewriter, op, partial, resultType, grid, omap,
        /*raggedTiles=*/{0, 0, 0}, s.chunks, /*loopTile=*/0, accumulator,
        [](ValueRange tiles, RankedTensorType) { return tiles.front(); },
        partialType);
    if (failed(custom))
      return failure();
    kernels.push_back(*custom);
  }
  return kernels;
}
} // namespace

FailureOr<kernel::CustomOp>
mlsopt::wrapInDefaultBlockGraph(RewriterBase &rewriter, Operation *op,
                                int64_t maxSharedMemBytes, bool allowSplit) {
  if (!hasDefaultBlockGraph(op))
    return op->emitOpError("has no block-graph form yet; mlsopt cannot "
                           "generate a kernel for it");
  op = expandRankZero(rewriter, op);
  FailureOr<DefaultSchedule> schedule =
      scheduleFor(op, maxSharedMemBytes, allowSplit);
  if (failed(schedule))
    return failure();
  rewriter.setInsertionPoint(op);
  FailureOr<SmallVector<kernel::CustomOp, 2>> kernels =
      buildDefaultKernels(rewriter, op, *schedule);
  if (failed(kernels))
    return failure();
  kernel::CustomOp custom = kernels->back();
  rewriter.replaceOp(op, custom->getResults());
  return custom;
}

namespace {

struct WrapKernelOp : RewritePattern {
  WrapKernelOp(MLIRContext *ctx, int64_t maxSharedMemBytes)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        maxSharedMemBytes(maxSharedMemBytes) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->getDialect() || op->getDialect()->getNamespace() !=
                                 kernel::KernelDialect::getDialectNamespace())
      return failure();
    if (isa<kernel::CustomOp>(op) || op->getParentOfType<kernel::CustomOp>())
      return failure();
    if (failed(wrapInDefaultBlockGraph(rewriter, op, maxSharedMemBytes)))
      return failure();
    return success();
  }

  int64_t maxSharedMemBytes;
};

} // namespace

bool mlsopt::hasRowTooLongForABlock(Operation *op, int64_t maxSharedMemBytes) {
  if (!isa<kernel::RmsNormOp, kernel::ConcatOp>(op) || hasRankZeroTensor(op))
    return false;
  // scheduleFor says why it fails; the caller only asks.
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  return failed(scheduleFor(op, maxSharedMemBytes, /*allowSplit=*/false));
}

FailureOr<Value> mlsopt::concatAlongFactoredDim(RewriterBase &rewriter,
                                                kernel::ConcatOp concat) {
  int64_t dim = concat.getDim();
  // The joined dim of every input is [n_i / g, g] with g their greatest
  // common factor: joining the outer dims joins the rows of g elements in
  // the same order, and each block gets a [sum n_i / g, tile of g] piece.
  int64_t factor = 0;
  for (Value input : concat.getInputs())
    factor = std::gcd(factor, shapeOf(input)[dim]);
  if (factor <= 1)
    return concat.emitOpError("joins a dim of ")
           << shapeOf(concat.getResult())[dim]
           << " elements, whose tiles fit no block's shared memory, and the "
              "inputs' sizes along it have no common factor to split it by";
  SmallVector<ReassociationIndices> groups;
  int64_t rank = static_cast<int64_t>(shapeOf(concat.getResult()).size());
  for (int64_t d = 0, e = 0; d < rank; ++d, ++e)
    groups.push_back(d == dim ? ReassociationIndices{e, ++e}
                              : ReassociationIndices{e});
  auto factored = [&](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] /= factor;
    shape.insert(shape.begin() + dim + 1, factor);
    return type.clone(shape);
  };
  Location loc = concat.getLoc();
  SmallVector<Value> inputs;
  for (Value input : concat.getInputs())
    inputs.push_back(tensor::ExpandShapeOp::create(
        rewriter, loc, factored(input), input, groups));
  Value joined = kernel::ConcatOp::create(rewriter, loc, inputs, dim);
  return tensor::CollapseShapeOp::create(
             rewriter, loc, concat.getResult().getType(), joined, groups)
      .getResult();
}

Value mlsopt::decomposeRmsNorm(RewriterBase &rewriter, kernel::RmsNormOp norm) {
  Location loc = norm.getLoc();
  Value x = norm.getInput();
  auto type = cast<RankedTensorType>(x.getType());
  Type f32 = rewriter.getF32Type();
  Value wide = x;
  if (type.getElementType() != f32)
    wide = kernel::ConvertOp::create(rewriter, loc, type.clone(f32), x);
  int64_t dim = norm.getNormalizedDim();
  double n = static_cast<double>(type.getDimSize(dim));
  Value squares = kernel::SquareOp::create(rewriter, loc, wide);
  Value sum = kernel::ReduceSumOp::create(rewriter, loc, squares, dim);
  Value meanSquare = kernel::MulScalarOp::create(
      rewriter, loc, sum, rewriter.getF64FloatAttr(1.0 / n));
  if (double epsilon = norm.getEpsilon().convertToDouble(); epsilon != 0)
    meanSquare = kernel::AddScalarOp::create(rewriter, loc, meanSquare,
                                             rewriter.getF64FloatAttr(epsilon));
  Value scale = kernel::RsqrtOp::create(rewriter, loc, meanSquare);
  Value result = kernel::MulOp::create(rewriter, loc, wide, scale);
  if (type.getElementType() != f32)
    result = kernel::ConvertOp::create(rewriter, loc, type, result);
  return result;
}

LogicalResult mlsopt::lowerToDefaultBlockGraphs(RewriterBase &rewriter,
                                                Operation *op,
                                                int64_t maxSharedMemBytes) {
  if (!hasRowTooLongForABlock(op, maxSharedMemBytes))
    return wrapInDefaultBlockGraph(rewriter, op, maxSharedMemBytes);
  // An rms_norm or concat that keeps a dim whole in each block, too long
  // for a block's shared memory, becomes the ops it computes, which have
  // block graphs that fit. They are built right before it.
  Operation *before = op->getPrevNode();
  rewriter.setInsertionPoint(op);
  FailureOr<Value> result =
      isa<kernel::RmsNormOp>(op)
          ? FailureOr<Value>(
                decomposeRmsNorm(rewriter, cast<kernel::RmsNormOp>(op)))
          : concatAlongFactoredDim(rewriter, cast<kernel::ConcatOp>(op));
  if (failed(result))
    return failure();
  SmallVector<Operation *> computed;
  for (Operation *it = before ? before->getNextNode()
                              : &op->getBlock()->front();
       it != op; it = it->getNextNode())
    computed.push_back(it);
  rewriter.replaceOp(op, *result);
  bool ok = true;
  for (Operation *it : computed)
    if (isa<kernel::KernelDialect>(it->getDialect()) &&
        !isa<kernel::ConvertOp>(it) &&
        failed(wrapInDefaultBlockGraph(rewriter, it, maxSharedMemBytes)))
      ok = false;
  return success(ok);
}

namespace {

struct ConvertKernelToCustomPass
    : mlsopt::impl::ConvertKernelToCustomBase<ConvertKernelToCustomPass> {
  using Base::Base;

  void runOnOperation() override {
    // Every op is wrapped or reported: a kernel op without a block graph
    // stops the pass, since the GPU lowering after it could not use it.
    // Transposes stay: --convert-custom-kernel-to-gpu launches each as a
    // copy kernel of its own.
    bool failedOne = false;
    IRRewriter rewriter(&getContext());
    // Kernels nothing reads are not launched; a chain of them goes at once,
    // readers before what they read.
    getOperation()->walk([&](func::FuncOp func) {
      llvm::SmallPtrSet<Operation *, 8> dead = getDeadKernelOps(func.getBody());
      for (Block &block : func.getBody())
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
          if (dead.contains(&op))
            rewriter.eraseOp(&op);
    });
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (op->getDialect() &&
          op->getDialect()->getNamespace() ==
              kernel::KernelDialect::getDialectNamespace() &&
          !isa<kernel::CustomOp, kernel::TransposeOp, kernel::ConvertOp>(op) &&
          !op->getParentOfType<kernel::CustomOp>())
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (failed(lowerToDefaultBlockGraphs(rewriter, op, maxSharedMemory)))
        failedOne = true;
    if (failedOne)
      signalPassFailure();
  }
};

} // namespace

void mlsopt::populateKernelToCustomPatterns(RewritePatternSet &patterns,
                                            int64_t maxSharedMemBytes) {
  patterns.add<WrapKernelOp>(patterns.getContext(), maxSharedMemBytes);
}
