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
//     d, the block reduces each tile and a sum/max accumulator combines them.
//
// The graph then passes the block-graph verifier like any hand-written one.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Support/Target.h"
#include "mlsopt/Support/TileShapes.h"

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
};

/// The largest power of two up to `cap` that divides `size`.
int64_t powerOfTwoTile(int64_t size, int64_t cap) {
  return std::gcd(size, cap);
}

/// The smallest tile along a dim of `size` that leaves at most `maxParts`
/// parts.
int64_t smallestTile(int64_t size, int64_t maxParts) {
  for (int64_t t = 1; t <= size; ++t)
    if (size % t == 0 && size / t <= maxParts)
      return t;
  return size;
}

/// Assigns grid x, y, z to `dims` (output dims, innermost first). The last
/// dim of the tensor is cut into tiles of up to `lastDimTile`; other dims
/// give one index per block.
void splitAcrossGrid(DefaultSchedule &s, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> dims, int64_t lastDimTile) {
  int64_t rank = shape.size();
  unsigned g = 0;
  for (int64_t dim : dims) {
    if (g == 3)
      break;
    int64_t tile = dim == rank - 1
                       ? powerOfTwoTile(shape[dim], lastDimTile)
                       : smallestTile(shape[dim], kMaxGridSize[g]);
    if (shape[dim] / tile > kMaxGridSize[g])
      tile = smallestTile(shape[dim], kMaxGridSize[g]);
    if (shape[dim] / tile == 1)
      continue;
    s.grid[g] = shape[dim] / tile;
    s.omap[g] = dim;
    ++g;
  }
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

SmallVector<int64_t> outputTileShape(const DefaultSchedule &s,
                                     ArrayRef<int64_t> output) {
  SmallVector<int64_t> tile(output);
  for (unsigned g = 0; g < 3; ++g)
    if (s.omap[g])
      tile[*s.omap[g]] /= s.grid[g];
  return tile;
}

/// The schedule of `op`, or failure when it has no default block graph.
FailureOr<DefaultSchedule> scheduleFor(Operation *op,
                                       int64_t maxSharedMemBytes) {
  DefaultSchedule s;
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  int64_t rank = out.size();
  Type elementType =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  unsigned elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  auto allDimsInnermostFirst = [&](std::optional<int64_t> skip) {
    SmallVector<int64_t> dims;
    for (int64_t d = rank - 1; d >= 0; --d)
      if (d != skip)
        dims.push_back(d);
    return dims;
  };
  auto inputTiles = [&]() {
    SmallVector<SmallVector<int64_t>> tiles;
    for (auto [i, input] : llvm::enumerate(op->getOperands())) {
      GridToTensorDims imap;
      for (unsigned g = 0; g < 3; ++g)
        if (s.omap[g])
          imap[g] = s.outputToInputDims[i][*s.omap[g]];
      tiles.push_back(inputTileShape(shapeOf(input), imap, s.grid, s.fmaps[i],
                                     s.iterations)
                          .shape);
    }
    return tiles;
  };
  auto fits = [&]() {
    return estimateSharedBytes(inputTiles(), outputTileShape(s, out),
                               elementType) <= maxSharedMemBytes;
  };

  if (auto matmul = dyn_cast<kernel::MatmulOp>(op)) {
    // [..., m, k] x [..., k, n]: x splits n, y splits m, z the innermost
    // batch dim; the loop walks k.
    ArrayRef<int64_t> lhs = shapeOf(matmul.getLhs());
    int64_t k = lhs.back();
    int64_t tileN = powerOfTwoTile(out[rank - 1], 64);
    int64_t tileM = powerOfTwoTile(out[rank - 2], 64);
    int64_t tileK = powerOfTwoTile(k, 64);
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
      s.grid = {out[rank - 1] / tileN, out[rank - 2] / tileM, 1};
      s.omap = {};
      if (s.grid[0] > 1)
        s.omap[0] = rank - 1;
      if (s.grid[1] > 1)
        s.omap[1] = rank - 2;
      if (rank >= 3 && out[rank - 3] > 1 && out[rank - 3] <= kMaxGridSize[2]) {
        s.grid[2] = out[rank - 3];
        s.omap[2] = rank - 3;
      }
      s.iterations = k / tileK;
      if (fits())
        return s;
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
    // The loop walks the reduced dim in tiles of up to 1024 elements.
    int64_t tileD = powerOfTwoTile(in[dim], 1024);
    while (true) {
      s.iterations = in[dim] / tileD;
      SmallVector<SmallVector<int64_t>> tiles = inputTiles();
      if (tileBytes(tiles[0], elementBytes * 8) <= 16384 && fits())
        return s;
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
         !isa<kernel::CustomOp, kernel::TransposeOp>(op) &&
         op->getNumResults() == 1;
}

FailureOr<kernel::CustomOp>
mlsopt::wrapInDefaultBlockGraph(RewriterBase &rewriter, Operation *op,
                                int64_t maxSharedMemBytes) {
  if (!hasDefaultBlockGraph(op))
    return op->emitOpError("has no block-graph form yet; mlsopt cannot "
                           "generate a kernel for it");
  FailureOr<DefaultSchedule> schedule = scheduleFor(op, maxSharedMemBytes);
  if (failed(schedule))
    return failure();
  const DefaultSchedule &s = *schedule;

  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  auto custom = kernel::CustomOp::create(
      rewriter, loc, TypeRange{resultType}, op->getOperands(),
      kernel::Dim3Attr::get(ctx, s.grid[0], s.grid[1], s.grid[2]),
      kernel::Dim3Attr::get(ctx, kDefaultThreadsPerBlock, 1, 1));
  SmallVector<Type> argTypes(op->getOperandTypes());
  argTypes.push_back(resultType);
  Block *body = rewriter.createBlock(
      &custom.getBody(), {}, argTypes,
      SmallVector<Location>(argTypes.size(), loc));

  auto tileType = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, resultType.getElementType());
  };
  RankedTensorType resultTile =
      tileType(outputTileShape(s, resultType.getShape()));
  bool isMax = isa<kernel::ReduceMaxOp>(op);
  auto accumulator = block::AccumulatorAttr::get(
      ctx, isMax ? block::AccumKind::max : block::AccumKind::sum,
      std::nullopt);
  auto loop = block::ForLoopOp::create(rewriter, loc, TypeRange{resultTile},
                                       s.iterations,
                                       rewriter.getArrayAttr({accumulator}));
  rewriter.createBlock(&loop.getBody());
  SmallVector<Value> tiles;
  for (auto [i, input] : llvm::enumerate(op->getOperands())) {
    GridToTensorDims imap;
    for (unsigned g = 0; g < 3; ++g)
      if (s.omap[g])
        imap[g] = s.outputToInputDims[i][*s.omap[g]];
    ShapeOrError shape = inputTileShape(shapeOf(input), imap, s.grid,
                                        s.fmaps[i], s.iterations);
    if (!shape.ok())
      return op->emitOpError("default block graph: ") << shape.error;
    IntegerAttr fmap =
        s.fmaps[i] ? rewriter.getI64IntegerAttr(*s.fmaps[i]) : IntegerAttr();
    tiles.push_back(block::LoadOp::create(
        rewriter, loc, tileType(shape.shape), body->getArgument(i),
        block::DimMapAttr::get(ctx, imap), fmap));
  }
  // The block op of the same name does the work on the tiles.
  OperationState state(loc, ("block." + op->getName().stripDialect()).str());
  state.addOperands(tiles);
  state.addAttributes(op->getAttrs());
  state.addTypes(resultTile);
  Operation *compute = rewriter.create(state);
  block::YieldOp::create(rewriter, loc, compute->getResults());

  rewriter.setInsertionPointAfter(loop);
  block::StoreOp::create(rewriter, loc, loop.getResult(0),
                         body->getArguments().back(),
                         block::DimMapAttr::get(ctx, s.omap));
  block::ReturnOp::create(rewriter, loc);
  rewriter.replaceOp(op, custom.getResults());
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
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (op->getDialect() &&
          op->getDialect()->getNamespace() ==
              kernel::KernelDialect::getDialectNamespace() &&
          !isa<kernel::CustomOp, kernel::TransposeOp>(op) &&
          !op->getParentOfType<kernel::CustomOp>())
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (failed(wrapInDefaultBlockGraph(rewriter, op, maxSharedMemory)))
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
