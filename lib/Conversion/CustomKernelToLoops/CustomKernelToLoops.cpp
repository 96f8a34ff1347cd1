//===- CustomKernelToLoops.cpp - Custom kernels to loops ------------------===//
//
// Each kernel.custom becomes the loops its block graph describes, on tensors:
//
//   scf.for over grid x, y, z (the outputs are loop-carried)
//     scf.for over the for-loop's iterations (the accumulators are carried)
//       tensor.extract_slice per block.load, at the offsets of its imap/fmap
//       the block compute ops, unchanged
//       the accumulators' update
//     the accumulators' finalization, the post-loop ops
//     tensor.insert_slice per block.store, at the offsets of its omap
//
// Nothing is simplified: a wrong imap or offset in the graph reads or writes
// the wrong tile here too, so CPU runs catch schedule bugs.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/CustomKernelToLoops/CustomKernelToLoops.h"
#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Support/TileShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/ScopeExit.h"

namespace mlsopt {
#define GEN_PASS_DEF_CONVERTCUSTOMKERNELTOLOOPS
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

namespace {

/// The grid position of the block being emitted: an index per grid dim.
using GridIndex = std::array<Value, 3>;

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Offsets of this block's tile along each tensor dim: the grid index times
/// the block's span (blockSpan: the tile, times `iterations` where the loop
/// walks the dim too) along dims a grid dim splits, plus the iteration times
/// the tile size along the fmap dim, 0 elsewhere.
SmallVector<OpFoldResult> tileOffsets(OpBuilder &b, Location loc,
                                      ArrayRef<int64_t> tile,
                                      block::DimMapAttr map,
                                      const GridIndex &grid,
                                      std::optional<int64_t> loopDim,
                                      Value iteration, int64_t iterations = 1) {
  SmallVector<OpFoldResult> offsets(tile.size(), b.getIndexAttr(0));
  auto place = [&](int64_t dim, Value index, int64_t step) {
    Value at =
        arith::MulIOp::create(b, loc, index, indexConstant(b, loc, step));
    if (auto placed = dyn_cast<Value>(offsets[dim]))
      at = arith::AddIOp::create(b, loc, placed, at);
    offsets[dim] = at;
  };
  for (unsigned g = 0; g < 3; ++g)
    if (std::optional<int64_t> dim = map.getTensorDim(g))
      place(*dim, grid[g], blockSpan(tile[*dim], *dim, loopDim, iterations));
  if (loopDim)
    place(*loopDim, iteration, tile[*loopDim]);
  return offsets;
}

SmallVector<OpFoldResult> staticSizes(OpBuilder &b, ArrayRef<int64_t> shape) {
  return llvm::map_to_vector(
      shape, [&](int64_t s) -> OpFoldResult { return b.getIndexAttr(s); });
}

/// `into` with the box of `sizes` at `intoOffsets` replaced by the box of
/// `from` at `fromOffsets`: the part of a ragged split's last tile that
/// lies inside the tensor, moved between the tile and the tensor.
Value copyBox(OpBuilder &b, Location loc, Value from,
              ArrayRef<OpFoldResult> fromOffsets, Value into,
              ArrayRef<OpFoldResult> intoOffsets,
              ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  Value box =
      tensor::ExtractSliceOp::create(b, loc, from, fromOffsets, sizes, strides);
  return tensor::InsertSliceOp::create(b, loc, box, into, intoOffsets, sizes,
                                       strides);
}

/// The sizes of the part of a tile of `shape` at `offsets` that lies before
/// `limits`: min(tile, limit - offset) along each dim the tile may run past
/// (the last block's tile of a ragged grid split), the tile's elsewhere.
SmallVector<OpFoldResult> sizesBefore(OpBuilder &b, Location loc,
                                      ArrayRef<int64_t> shape,
                                      ArrayRef<OpFoldResult> offsets,
                                      ArrayRef<int64_t> limits) {
  SmallVector<OpFoldResult> sizes = staticSizes(b, shape);
  for (auto [size, tile, offset, limit] :
       llvm::zip_equal(sizes, shape, offsets, limits)) {
    std::optional<int64_t> at = getConstantIntValue(offset);
    if (at && *at + tile <= limit)
      continue;
    Value left =
        arith::SubIOp::create(b, loc, indexConstant(b, loc, limit),
                              getValueOrCreateConstantIndexOp(b, loc, offset));
    size = arith::MinSIOp::create(b, loc, left, indexConstant(b, loc, tile))
               .getResult();
  }
  return sizes;
}

/// f16 and bf16 accumulators run in f32 (see #block.accumulator).
RankedTensorType accumulatorType(Type tile) {
  auto type = cast<RankedTensorType>(tile);
  return type.clone(getAccumulatorElementType(type.getElementType()));
}

/// A thread graph computes its chain on every element of its result shape.
SmallVector<Value> lowerThreadGraph(OpBuilder &b, thread::GraphOp graph,
                                    ValueRange operands) {
  Block &body = graph.getBody().front();
  auto yield = cast<thread::YieldOp>(body.getTerminator());
  SmallVector<Value> results;
  // One generic per result keeps each linalg op single-output; the chain is
  // recomputed per result, which only matters for multi-result graphs.
  for (auto [i, type] : llvm::enumerate(graph.getOutputs().getTypes())) {
    results.push_back(buildElementwiseGeneric(
        b, graph.getLoc(), cast<RankedTensorType>(type), operands,
        [&](OpBuilder &nb, Location, ValueRange elements) -> Value {
          IRMapping scalars;
          scalars.map(body.getArguments(), elements);
          for (Operation &op : body.without_terminator()) {
            SmallVector<Value> args = llvm::map_to_vector(
                op.getOperands(),
                [&](Value v) { return scalars.lookup(v); });
            scalars.map(op.getResult(0),
                        *emitElementwise(nb, &op, args));
          }
          return scalars.lookup(yield.getValues()[i]);
        }));
  }
  return results;
}

/// Emits one iteration's update of every accumulator of `loop`.
SmallVector<Value> updateAccumulators(OpBuilder &b, Location loc,
                                      block::ForLoopOp loop,
                                      ValueRange running, ValueRange yielded) {
  SmallVector<Value> next(running.size());
  // Max accumulators first: rescale accumulators need their old and new value.
  auto update = [&](unsigned i) {
    block::AccumulatorAttr acc = loop.getAccumulator(i);
    auto type = cast<RankedTensorType>(running[i].getType());
    Type f = type.getElementType();
    auto widen = [&](OpBuilder &nb, Location l, Value v) {
      return buildScalarExtension(nb, l, v, f);
    };
    switch (acc.getKind()) {
    case block::AccumKind::sum:
    case block::AccumKind::mean:
      return buildElementwiseGeneric(
          b, loc, type, {running[i], yielded[i]},
          [&](OpBuilder &nb, Location l, ValueRange e) -> Value {
            return arith::AddFOp::create(nb, l, e[0], widen(nb, l, e[1]));
          });
    case block::AccumKind::rms:
      return buildElementwiseGeneric(
          b, loc, type, {running[i], yielded[i]},
          [&](OpBuilder &nb, Location l, ValueRange e) -> Value {
            Value v = widen(nb, l, e[1]);
            return arith::AddFOp::create(nb, l, e[0],
                                         arith::MulFOp::create(nb, l, v, v));
          });
    case block::AccumKind::max:
      return buildElementwiseGeneric(
          b, loc, type, {running[i], yielded[i]},
          [&](OpBuilder &nb, Location l, ValueRange e) -> Value {
            return arith::MaximumFOp::create(nb, l, e[0], widen(nb, l, e[1]));
          });
    case block::AccumKind::rescale: {
      // acc * exp(M_old - M_new) + v * exp(m_i - M_new): brings the running
      // sum and this iteration's value to the new common maximum.
      unsigned k = *acc.getScaleBy();
      return buildElementwiseGeneric(
          b, loc, type,
          {running[i], yielded[i], running[k], next[k], yielded[k]},
          [&](OpBuilder &nb, Location l, ValueRange e) -> Value {
            Value value = widen(nb, l, e[1]);
            Value valueMax = widen(nb, l, e[4]);
            return emitRescaleUpdate(nb, l, e[0], value, e[2], e[3], valueMax);
          });
    }
    }
    llvm_unreachable("unknown accumulator kind");
  };
  for (unsigned i = 0; i < running.size(); ++i)
    if (loop.getAccumulator(i).getKind() == block::AccumKind::max)
      next[i] = update(i);
  for (unsigned i = 0; i < running.size(); ++i)
    if (!next[i])
      next[i] = update(i);
  return next;
}

/// The accumulator's result once the loop is done, in the tile type.
Value finalizeAccumulator(OpBuilder &b, Location loc, block::AccumulatorAttr acc,
                          Value running, Type tileType, int64_t iterations) {
  auto type = cast<RankedTensorType>(running.getType());
  double inverse = 1.0 / static_cast<double>(iterations);
  Value result = running;
  if (acc.getKind() == block::AccumKind::mean ||
      acc.getKind() == block::AccumKind::rms) {
    bool rms = acc.getKind() == block::AccumKind::rms;
    result = buildElementwiseGeneric(
        b, loc, type, running,
        [&](OpBuilder &nb, Location l, ValueRange e) -> Value {
          Value mean = arith::MulFOp::create(
              nb, l, e[0],
              arith::ConstantOp::create(
                  nb, l, nb.getFloatAttr(type.getElementType(), inverse)));
          return rms ? math::SqrtOp::create(nb, l, mean).getResult() : mean;
        });
  }
  return buildElementCast(b, loc, result,
                          cast<RankedTensorType>(tileType).getElementType());
}

/// Emits the ops of a block-graph region (the kernel body or the loop body)
/// in order, with `mapping` binding block values to emitted ones.
class BlockGraphEmitter {
public:
  BlockGraphEmitter(OpBuilder &b, kernel::CustomOp custom, GridIndex grid)
      : b(b), custom(custom), grid(grid) {}

  /// Emits the kernel body for one block; returns the updated outputs.
  SmallVector<Value> emitKernelBody(ValueRange inputs, ValueRange outputs) {
    for (auto [i, input] : llvm::enumerate(inputs))
      mapping.map(custom.getInputArgument(i), input);
    for (auto [i, output] : llvm::enumerate(outputs))
      mapping.map(custom.getOutputArgument(i), output);
    for (Operation &op : custom.getBody().front()) {
      if (auto loop = dyn_cast<block::ForLoopOp>(op))
        emitForLoop(loop);
      else if (auto store = dyn_cast<block::StoreOp>(op))
        emitStore(store);
      else if (auto load = dyn_cast<block::LoadOp>(op))
        emitLoad(load, Value());
      else if (!isa<block::ReturnOp>(op))
        emitCompute(op);
    }
    return llvm::map_to_vector(
        llvm::seq<unsigned>(0, outputs.size()),
        [&](unsigned i) { return mapping.lookup(custom.getOutputArgument(i)); });
  }

private:
  void emitCompute(Operation &op) {
    if (auto graph = dyn_cast<thread::GraphOp>(op)) {
      SmallVector<Value> operands = llvm::map_to_vector(
          graph.getInputs(), [&](Value v) { return mapping.lookup(v); });
      mapping.map(graph.getResults(), lowerThreadGraph(b, graph, operands));
      return;
    }
    if (auto fill = dyn_cast<block::TriangleFillOp>(op)) {
      emitTriangleFill(fill);
      return;
    }
    b.clone(op, mapping);
  }

  /// The mask needs the tile's place in the masked tensor, which the imap
  /// and the fmap give as they give a load's.
  void emitTriangleFill(block::TriangleFillOp fill) {
    Location loc = fill.getLoc();
    auto tile = cast<RankedTensorType>(fill.getInput().getType());
    SmallVector<OpFoldResult> offsets =
        tileOffsets(b, loc, tile.getShape(), fill.getImap(), grid,
                    fill.getFmap(), iteration);
    ArrayRef<int64_t> dims = fill.getDims();
    mapping.map(fill.getResult(),
                buildTriangleFill(
                    b, loc, mapping.lookup(fill.getInput()), dims,
                    fill.getDiagonal(), fill.getValue().convertToDouble(),
                    getValueOrCreateConstantIndexOp(b, loc, offsets[dims[0]]),
                    getValueOrCreateConstantIndexOp(b, loc, offsets[dims[1]])));
  }

  void emitForLoop(block::ForLoopOp loop) {
    Location loc = loop.getLoc();
    SmallVector<Value> inits;
    for (unsigned i = 0; i < loop.getNumResults(); ++i) {
      bool isMax = loop.getAccumulator(i).getKind() == block::AccumKind::max;
      RankedTensorType type = accumulatorType(loop.getResult(i).getType());
      inits.push_back(buildFilledTensor(b, loc, type.getShape(),
                                        type.getElementType(),
                                        isMax ? -INFINITY : 0.0));
    }
    Block &body = loop.getBody().front();
    auto yield = cast<block::YieldOp>(body.getTerminator());
    auto forOp = scf::ForOp::create(
        b, loc, indexConstant(b, loc, 0),
        indexConstant(b, loc, loop.getIterations()), indexConstant(b, loc, 1),
        inits, [&](OpBuilder &nb, Location l, Value iteration,
                   ValueRange running) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          this->iteration = iteration;
          llvm::scope_exit leaveLoop([&] { this->iteration = {}; });
          for (Operation &op : body.without_terminator()) {
            if (auto load = dyn_cast<block::LoadOp>(op))
              emitLoad(load, iteration);
            else
              emitCompute(op);
          }
          SmallVector<Value> yielded = llvm::map_to_vector(
              yield.getValues(), [&](Value v) { return mapping.lookup(v); });
          scf::YieldOp::create(
              b, l, updateAccumulators(b, l, loop, running, yielded));
        });
    for (unsigned i = 0; i < loop.getNumResults(); ++i)
      mapping.map(loop.getResult(i),
                  finalizeAccumulator(b, loc, loop.getAccumulator(i),
                                      forOp.getResult(i),
                                      loop.getResult(i).getType(),
                                      loop.getIterations()));
  }

  void emitLoad(block::LoadOp load, Value iteration) {
    Location loc = load.getLoc();
    auto tile = cast<RankedTensorType>(load.getTile().getType());
    SmallVector<OpFoldResult> offsets =
        tileOffsets(b, loc, tile.getShape(), load.getImap(), grid,
                    load.getFmap(), iteration, load.getLoopIterations());
    // A window shifts every tile by its start.
    for (auto [offset, start] : llvm::zip(offsets, load.getWindowOffsets()))
      if (start != 0)
        offset = arith::AddIOp::create(
                     b, loc, getValueOrCreateConstantIndexOp(b, loc, offset),
                     indexConstant(b, loc, start))
                     .getResult();
    SmallVector<OpFoldResult> strides(tile.getRank(), b.getIndexAttr(1));
    Value source = mapping.lookup(load.getSource());
    auto sourceType = cast<RankedTensorType>(source.getType());
    auto sliceType = tile.clone(sourceType.getElementType());
    Value slice;
    if (load.hasRaggedTiles()) {
      // The last block of a ragged split reads what lies inside the window
      // into a tile of zeros.
      SmallVector<OpFoldResult> sizes =
          sizesBefore(b, loc, tile.getShape(), offsets, load.getWindowEnds());
      Value zeros =
          linalg::FillOp::create(
              b, loc,
              ValueRange{arith::ConstantOp::create(
                  b, loc, b.getZeroAttr(sliceType.getElementType()))},
              ValueRange{tensor::EmptyOp::create(b, loc, sliceType.getShape(),
                                                 sliceType.getElementType())})
              .getResult(0);
      SmallVector<OpFoldResult> origin(tile.getRank(), b.getIndexAttr(0));
      slice = copyBox(b, loc, source, offsets, zeros, origin, sizes);
    } else {
      slice = tensor::ExtractSliceOp::create(b, loc, sliceType, source, offsets,
                                             staticSizes(b, tile.getShape()),
                                             strides);
    }
    // A converting load converts the slice.
    mapping.map(load.getTile(),
                buildElementCast(b, loc, slice, tile.getElementType()));
  }

  void emitStore(block::StoreOp store) {
    Location loc = store.getLoc();
    auto tile = cast<RankedTensorType>(store.getTile().getType());
    SmallVector<OpFoldResult> offsets =
        tileOffsets(b, loc, tile.getShape(), store.getOmap(), grid,
                    std::nullopt, Value());
    SmallVector<OpFoldResult> strides(tile.getRank(), b.getIndexAttr(1));
    Value dest = mapping.lookup(store.getDest());
    // A converting store converts the tile.
    Value value = buildElementCast(
        b, loc, mapping.lookup(store.getTile()),
        cast<RankedTensorType>(dest.getType()).getElementType());
    Value updated;
    if (store.hasRaggedTiles()) {
      // The last block of a ragged split writes what lies inside the output.
      auto destType = cast<RankedTensorType>(dest.getType());
      SmallVector<OpFoldResult> sizes =
          sizesBefore(b, loc, tile.getShape(), offsets, destType.getShape());
      SmallVector<OpFoldResult> origin(tile.getRank(), b.getIndexAttr(0));
      updated = copyBox(b, loc, value, origin, dest, offsets, sizes);
    } else {
      updated = tensor::InsertSliceOp::create(b, loc, value, dest, offsets,
                                              staticSizes(b, tile.getShape()),
                                              strides);
    }
    mapping.map(store.getDest(), updated);
  }

  OpBuilder &b;
  kernel::CustomOp custom;
  GridIndex grid;
  /// The for-loop's induction variable while its body is emitted.
  Value iteration;
  IRMapping mapping;
};

struct CustomKernelToLoops : OpRewritePattern<kernel::CustomOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::CustomOp custom,
                                PatternRewriter &rewriter) const override {
    Location loc = custom.getLoc();
    SmallVector<Value> outputs = llvm::map_to_vector(
        custom.getOutputs().getTypes(), [&](Type type) -> Value {
          auto t = cast<RankedTensorType>(type);
          return tensor::EmptyOp::create(rewriter, loc, t.getShape(),
                                         t.getElementType());
        });
    kernel::Dim3Attr dims = custom.getGrid();
    // Blocks run one after another; a grid dim of size 1 needs no loop.
    std::function<SmallVector<Value>(unsigned, GridIndex, ValueRange)> nest =
        [&](unsigned g, GridIndex index, ValueRange current) {
          if (g == 3) {
            BlockGraphEmitter emitter(rewriter, custom, index);
            return emitter.emitKernelBody(custom.getInputs(), current);
          }
          if (dims.getSize(g) == 1) {
            index[g] = indexConstant(rewriter, loc, 0);
            return nest(g + 1, index, current);
          }
          auto loop = scf::ForOp::create(
              rewriter, loc, indexConstant(rewriter, loc, 0),
              indexConstant(rewriter, loc, dims.getSize(g)),
              indexConstant(rewriter, loc, 1), current,
              [&](OpBuilder &nb, Location l, Value iv, ValueRange carried) {
                OpBuilder::InsertionGuard guard(rewriter);
                rewriter.setInsertionPoint(nb.getInsertionBlock(),
                                           nb.getInsertionPoint());
                GridIndex inner = index;
                inner[g] = iv;
                scf::YieldOp::create(rewriter, l, nest(g + 1, inner, carried));
              });
          return SmallVector<Value>(loop.getResults());
        };
    rewriter.replaceOp(custom, nest(0, GridIndex{}, outputs));
    return success();
  }
};

struct ConvertCustomKernelToLoopsPass
    : mlsopt::impl::ConvertCustomKernelToLoopsBase<
          ConvertCustomKernelToLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateCustomKernelToLoopsPatterns(patterns);
    // Each custom kernel is rewritten once and nothing else is touched.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
  }
};

} // namespace

void mlsopt::populateCustomKernelToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<CustomKernelToLoops>(patterns.getContext());
}
