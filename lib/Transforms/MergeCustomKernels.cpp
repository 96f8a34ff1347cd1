//===- MergeCustomKernels.cpp - Custom kernels with one launch into one ---===//
//
// The search replaces each subprogram on its own, and a subprogram holds at
// most max-kernel-ops ops, so a program with many outputs (an optimizer
// step, a layer's several activations of one input) comes out as several
// kernels with the same launch, each loading the same input tiles again, or
// one storing a tensor that the next loads back. Two such kernels become one
// when the cost model finds one launch faster:
//   - siblings, neither reading the other: one for-loop when both walk the
//     same number of iterations (loads of the same tile then load once),
//     else the body of a one-iteration loop runs after the other's loop;
//   - a producer and a consumer whose loop runs once: in the producer's
//     loop if that runs once too, on the values it yields, else after it,
//     on the tiles it stores, in place of loading them (where both cut the
//     tensor alike).
// Every block of the merged kernel computes what the two blocks at its
// place computed, so the result is the same μGraph with fewer launches.
//
//===----------------------------------------------------------------------===//

#include "KernelFusionSupport.h"

#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fuse-kernel-elementwise"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::fusion;

namespace {

block::ForLoopOp getLoop(kernel::CustomOp custom) {
  return *custom.getBody().front().getOps<block::ForLoopOp>().begin();
}

/// Whether the results of `loop` are the values its body yields: one
/// iteration, into accumulators that pass one value through (an rms of one
/// value is its magnitude, a rescale depends on a max that may be -inf).
bool passesThrough(block::ForLoopOp loop) {
  if (loop.getIterations() != 1)
    return false;
  return llvm::all_of(loop.getAccumulators(), [](Attribute attr) {
    block::AccumKind kind = cast<block::AccumulatorAttr>(attr).getKind();
    return kind == block::AccumKind::sum || kind == block::AccumKind::max ||
           kind == block::AccumKind::mean;
  });
}

/// Whether the body of `loop` can run after another loop instead: it
/// passes its values through, and holds no matmul, which the GPU lowering
/// runs only inside a loop.
bool canRunAfterLoop(block::ForLoopOp loop) {
  return passesThrough(loop) &&
         !loop.getBody()
              .walk([](block::MatmulOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
}

/// The ops of a block graph after its for-loop.
iterator_range<Block::iterator> opsAfter(block::ForLoopOp loop) {
  return llvm::make_range(std::next(loop->getIterator()),
                          loop->getBlock()->end());
}

/// Whether the ops of `custom`'s body are its for-loop, then ops after it:
/// what the merges below rebuild.
bool startsWithLoop(kernel::CustomOp custom) {
  return isa<block::ForLoopOp>(custom.getBody().front().front());
}

/// Where the merged kernel does the work of each of the two.
enum class Layout {
  /// One for-loop whose iterations do both loops' iterations.
  OneLoop,
  /// `first` whole, then the body of `second`'s one-iteration loop.
  SecondAfterLoop,
  /// `second` whole, then the body of `first`'s one-iteration loop.
  FirstAfterLoop,
};

/// Builds the body of a kernel that does what `first` and then `second` do,
/// launched as they are. Inputs of `second` that are outputs of `first` are
/// not loaded: their loads become the tiles `first` stores (in one loop,
/// the tiles its loop yields to them).
class MergedBodyBuilder {
public:
  MergedBodyBuilder(RewriterBase &rewriter, kernel::CustomOp first,
                    kernel::CustomOp second, kernel::CustomOp merged,
                    ArrayRef<Value> inputs)
      : rewriter(rewriter), first(first), second(second), merged(merged),
        inputs(inputs) {}

  /// Fills the merged body; fails (leaving it partly built) where `layout`
  /// cannot hold the two or a load of `first`'s output cannot become its
  /// tile.
  LogicalResult build(Layout layout);

private:
  void mapArguments(kernel::CustomOp custom, unsigned firstOutput);
  /// The tile that replaces `load` of an output of `first`, where the load
  /// cuts the tensor as the store does (and no element past the end of a
  /// ragged tile, which the load would have read as zero, reaches a
  /// store); null if there is none.
  Value getStoredTile(block::LoadOp load, bool inLoop);
  /// `stored`, a value of `first`'s body after its one-iteration loop,
  /// computed in the merged loop from the values it yields; null if it
  /// cannot be.
  Value getInLoopTile(Value stored);
  /// Clones `op`, or maps a load of an output of `first` to its tile; a
  /// load taken out of a one-iteration loop drops its fmap (it loads the
  /// same tile after the loop).
  LogicalResult cloneOp(Operation &op, bool inLoop, bool unlooped);
  LogicalResult cloneOps(iterator_range<Block::iterator> ops, bool inLoop,
                         bool unlooped = false);
  /// Clones the body of `loop` at the insertion point, out of any loop: its
  /// results are the values it yields.
  LogicalResult unloop(block::ForLoopOp loop);
  LogicalResult buildOneLoop();
  /// `whole`'s body, then the body of the other kernel's one-iteration loop
  /// `oneIteration` out of any loop, then the ops after that loop.
  LogicalResult buildAfterLoop(kernel::CustomOp whole,
                               block::ForLoopOp oneIteration);

  RewriterBase &rewriter;
  kernel::CustomOp first, second, merged;
  ArrayRef<Value> inputs;
  IRMapping mapping;
  /// The copies of `first`'s values after its loop made in the merged loop
  /// (getInLoopTile); the copies after it are in `mapping`.
  IRMapping inLoopCopies;
};

void MergedBodyBuilder::mapArguments(kernel::CustomOp custom,
                                     unsigned firstOutput) {
  for (auto [i, input] : llvm::enumerate(custom.getInputs())) {
    const Value *at = llvm::find(inputs, input);
    if (at != inputs.end())
      mapping.map(custom.getInputArgument(i),
                  merged.getInputArgument(at - inputs.begin()));
  }
  for (unsigned i = 0, e = custom.getOutputs().size(); i < e; ++i)
    mapping.map(custom.getOutputArgument(i),
                merged.getOutputArgument(firstOutput + i));
}

Value MergedBodyBuilder::getStoredTile(block::LoadOp load, bool inLoop) {
  auto produced = cast<OpResult>(
      second.getInputs()[cast<BlockArgument>(load.getSource()).getArgNumber()]);
  block::StoreOp store = getStore(first, produced.getResultNumber());
  if (!store || load.getOffsets() ||
      load.getImapAttr() != store.getOmapAttr() ||
      shapeOf(load.getTile()) != shapeOf(store.getTile()) ||
      (store.hasRaggedTiles() && !padsReachNoStore(load)))
    return {};
  Value tile =
      inLoop ? getInLoopTile(store.getTile()) : mapping.lookup(store.getTile());
  if (!tile)
    return {};
  // What the store and the load would have converted: the store rounds to
  // the tensor's type (f32 sums stored as f16), and the load converts to
  // its tile's (f16 loaded for the tensor cores, or widened to f32).
  for (Type element : {getElementTypeOrSelf(store.getDest().getType()),
                       getElementTypeOrSelf(load.getTile().getType())}) {
    auto type = cast<RankedTensorType>(tile.getType());
    if (type.getElementType() != element)
      tile = block::ConvertOp::create(rewriter, load.getLoc(),
                                      type.clone(element), tile);
  }
  return tile;
}

Value MergedBodyBuilder::getInLoopTile(Value stored) {
  if (Value known = inLoopCopies.lookupOrNull(stored))
    return known;
  auto result = dyn_cast<OpResult>(stored);
  if (!result)
    return {};
  Operation *def = result.getOwner();
  // The loop passes the value yielded to the accumulator through.
  if (auto loop = dyn_cast<block::ForLoopOp>(def))
    return mapping.lookup(loop.getBody().front().getTerminator()->getOperand(
        result.getResultNumber()));
  // An elementwise op after the loop computes the same on the yielded
  // values, in the loop.
  if (!isa<thread::GraphOp>(def) &&
      !def->hasTrait<OpTrait::ElementwiseByIndex>())
    return {};
  for (Value operand : def->getOperands()) {
    Value tile = getInLoopTile(operand);
    if (!tile)
      return {};
    inLoopCopies.map(operand, tile);
  }
  Operation *copy = rewriter.clone(*def, inLoopCopies);
  return copy->getResult(result.getResultNumber());
}

LogicalResult MergedBodyBuilder::cloneOp(Operation &op, bool inLoop,
                                         bool unlooped) {
  auto load = dyn_cast<block::LoadOp>(op);
  if (load && !mapping.contains(load.getSource())) {
    Value tile = getStoredTile(load, inLoop);
    if (!tile)
      return failure();
    mapping.map(load.getTile(), tile);
    return success();
  }
  Operation *copy = rewriter.clone(op, mapping);
  if (auto copied = dyn_cast<block::LoadOp>(copy); copied && unlooped)
    copied.removeFmapAttr();
  return success();
}

LogicalResult MergedBodyBuilder::cloneOps(iterator_range<Block::iterator> ops,
                                          bool inLoop, bool unlooped) {
  for (Operation &op : ops)
    if (!isa<block::ReturnOp, block::YieldOp>(op) &&
        failed(cloneOp(op, inLoop, unlooped)))
      return failure();
  return success();
}

LogicalResult MergedBodyBuilder::unloop(block::ForLoopOp loop) {
  Block &body = loop.getBody().front();
  if (failed(cloneOps(body.getOperations(), /*inLoop=*/false,
                      /*unlooped=*/true)))
    return failure();
  for (auto [result, yielded] :
       llvm::zip_equal(loop.getResults(), body.getTerminator()->getOperands()))
    mapping.map(result, mapping.lookup(yielded));
  return success();
}

LogicalResult MergedBodyBuilder::buildOneLoop() {
  block::ForLoopOp firstLoop = getLoop(first), secondLoop = getLoop(second);
  SmallVector<Type> types(firstLoop.getResultTypes());
  llvm::append_range(types, secondLoop.getResultTypes());
  SmallVector<Attribute> accumulators(firstLoop.getAccumulators().begin(),
                                      firstLoop.getAccumulators().end());
  // A rescale names its max accumulator by position.
  for (Attribute attr : secondLoop.getAccumulators()) {
    auto acc = cast<block::AccumulatorAttr>(attr);
    if (std::optional<int64_t> by = acc.getScaleBy())
      acc = block::AccumulatorAttr::get(
          rewriter.getContext(), acc.getKind(),
          *by + static_cast<int64_t>(firstLoop.getNumResults()));
    accumulators.push_back(acc);
  }
  auto loop = block::ForLoopOp::create(rewriter, merged.getLoc(), types,
                                       firstLoop.getIterations(),
                                       rewriter.getArrayAttr(accumulators));
  rewriter.createBlock(&loop.getBody());
  SmallVector<Value> yielded;
  for (block::ForLoopOp old : {firstLoop, secondLoop}) {
    Block &oldBody = old.getBody().front();
    if (failed(cloneOps(oldBody.getOperations(), /*inLoop=*/true)))
      return failure();
    for (Value v : oldBody.getTerminator()->getOperands())
      yielded.push_back(mapping.lookup(v));
  }
  block::YieldOp::create(rewriter, merged.getLoc(), yielded);
  rewriter.setInsertionPointAfter(loop);
  for (auto [old, now] : llvm::zip(
           llvm::concat<Value>(firstLoop.getResults(), secondLoop.getResults()),
           loop.getResults()))
    mapping.map(old, now);
  return success();
}

LogicalResult MergedBodyBuilder::buildAfterLoop(kernel::CustomOp whole,
                                                block::ForLoopOp oneIteration) {
  return success(
      succeeded(cloneOps(whole.getBody().front().getOperations(), false)) &&
      succeeded(unloop(oneIteration)) &&
      succeeded(cloneOps(opsAfter(oneIteration), false)));
}

LogicalResult MergedBodyBuilder::build(Layout layout) {
  Block &body = merged.getBody().front();
  mapArguments(first, 0);
  mapArguments(second, first.getOutputs().size());
  rewriter.setInsertionPointToEnd(&body);
  block::ForLoopOp firstLoop = getLoop(first), secondLoop = getLoop(second);
  bool consumes = llvm::any_of(second.getInputs(), [&](Value input) {
    return input.getDefiningOp() == first;
  });

  LogicalResult built = failure();
  switch (layout) {
  case Layout::OneLoop:
    // A consumer's loads read the values `first` yields, which are the
    // ones it stores only when its loop passes them through.
    if (firstLoop.getIterations() != secondLoop.getIterations() ||
        (consumes && !(passesThrough(firstLoop) && passesThrough(secondLoop))))
      return failure();
    built = success(succeeded(buildOneLoop()) &&
                    succeeded(cloneOps(opsAfter(firstLoop), false)) &&
                    succeeded(cloneOps(opsAfter(secondLoop), false)));
    break;
  case Layout::SecondAfterLoop:
    if (!canRunAfterLoop(secondLoop))
      return failure();
    built = buildAfterLoop(first, secondLoop);
    break;
  case Layout::FirstAfterLoop:
    // `second` does not read `first`'s outputs, so either may go first.
    if (consumes || !canRunAfterLoop(firstLoop))
      return failure();
    built = buildAfterLoop(second, firstLoop);
    break;
  }
  if (failed(built))
    return failure();
  block::ReturnOp::create(rewriter, merged.getLoc());
  return success();
}

/// Loads of the same tile in one region, after the first: their uses read
/// the first one.
void dropRepeatedLoads(RewriterBase &rewriter, Region &region) {
  region.walk([&](Block *block) {
    SmallVector<block::LoadOp> seen;
    for (auto load :
         llvm::make_early_inc_range(block->getOps<block::LoadOp>())) {
      auto same = llvm::find_if(seen, [&](block::LoadOp earlier) {
        return OperationEquivalence::isEquivalentTo(
            earlier, load, OperationEquivalence::IgnoreLocations);
      });
      if (same == seen.end()) {
        seen.push_back(load);
        continue;
      }
      rewriter.replaceOp(load, same->getTile());
    }
  });
}

/// kernel.custom A; ...; kernel.custom B with A's launch -> one kernel.custom
/// that does both, at B's place, when nothing between them leads from A to
/// B and the cost model finds the one kernel faster than the two. A kernel
/// whose outputs or inputs B reads is tried first; one that shares nothing
/// with B saves its launch alone.
struct MergeCustomKernels : KernelFusionPattern {
  using KernelFusionPattern::KernelFusionPattern;

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto second = dyn_cast<kernel::CustomOp>(op);
    if (!second || !startsWithLoop(second))
      return rewriter.notifyMatchFailure(op, "not a custom kernel");
    // A kernel whose tiles `second` reads too comes first: the merge then
    // saves loads as well as a launch.
    for (bool related : {true, false})
      for (Operation *prev = second->getPrevNode(); prev;
           prev = prev->getPrevNode()) {
        auto first = dyn_cast<kernel::CustomOp>(prev);
        if (first && isRelated(first, second) == related &&
            succeeded(merge(first, second, rewriter)))
          return success();
      }
    return rewriter.notifyMatchFailure(op, "no kernel to merge with");
  }

private:
  /// Whether `second` reads an output or an input of `first`.
  static bool isRelated(kernel::CustomOp first, kernel::CustomOp second) {
    return llvm::any_of(second.getInputs(), [&](Value input) {
      return input.getDefiningOp() == first ||
             llvm::is_contained(first.getInputs(), input);
    });
  }

  LogicalResult merge(kernel::CustomOp first, kernel::CustomOp second,
                      PatternRewriter &rewriter) const;
};

LogicalResult MergeCustomKernels::merge(kernel::CustomOp first,
                                        kernel::CustomOp second,
                                        PatternRewriter &rewriter) const {
  if (first.getGrid() != second.getGrid() ||
      first.getBlock() != second.getBlock() || !startsWithLoop(first))
    return failure();

  // The ops between the two that read what `first` computes move after
  // `second`; none may lead to it, except `first`'s outputs themselves.
  Block *block = second->getBlock();
  SetVector<Operation *> between;
  ForwardSliceOptions options;
  options.filter = [&](Operation *op) {
    return op->getBlock() == block && op->isBeforeInBlock(second);
  };
  getForwardSlice(first.getOperation(), &between, options);
  // A reader nested in an op before `second` would stay before the merged
  // kernel.
  for (Operation *user : first->getUsers())
    if (Operation *ancestor = block->findAncestorOpInBlock(*user);
        !ancestor || (ancestor != user && ancestor->isBeforeInBlock(second)))
      return failure();
  for (Value input : second.getInputs())
    if (Operation *def = input.getDefiningOp(); def && between.contains(def))
      return failure();

  // Inputs: `first`'s, then `second`'s that are neither among them nor
  // outputs of `first`.
  SmallVector<Value> inputs(first.getInputs());
  for (Value input : second.getInputs())
    if (input.getDefiningOp() != first && !llvm::is_contained(inputs, input))
      inputs.push_back(input);
  SmallVector<Type> types(first.getResultTypes());
  llvm::append_range(types, second.getResultTypes());

  // Built out of the driver's sight, so that it can be given up (announce);
  // the first layout that holds both and beats the two kernels is kept.
  FailureOr<search::KernelCost> before = getCost(first);
  FailureOr<search::KernelCost> secondCost = getCost(second);
  if (failed(before) || failed(secondCost))
    return failure();
  *before += *secondCost;
  SmallVector<Type> argTypes(ValueRange(inputs).getTypes());
  llvm::append_range(argTypes, types);
  IRRewriter trial(rewriter.getContext());
  kernel::CustomOp merged;
  FailureOr<search::KernelCost> after = failure();
  for (Layout layout :
       {Layout::OneLoop, Layout::SecondAfterLoop, Layout::FirstAfterLoop}) {
    trial.setInsertionPoint(second);
    merged = kernel::CustomOp::create(trial, second.getLoc(), types, inputs,
                                      second.getGrid(), second.getBlock());
    merged->setDiscardableAttrs(second->getDiscardableAttrDictionary());
    trial.createBlock(&merged.getBody(), {}, argTypes,
                      SmallVector<Location>(argTypes.size(), merged.getLoc()));
    MergedBodyBuilder builder(trial, first, second, merged, inputs);
    if (succeeded(builder.build(layout))) {
      dropRepeatedLoads(trial, merged.getBody());
      after = getValidCost(merged);
      if (succeeded(after) && after->totalUs < before->totalUs &&
          !search::isVetoedByLatency(*after, *before, costOptions))
        break;
    }
    trial.eraseOp(merged);
    merged = {};
  }
  if (!merged)
    return failure();
  LLVM_DEBUG(llvm::dbgs() << "[fuse-kernel-elementwise] merged two kernels: "
                          << before->totalUs << " -> " << after->totalUs
                          << " us\n");
  announce(rewriter, merged);
  for (Operation *op : llvm::reverse(between))
    rewriter.moveOpAfter(op, second);
  unsigned firstOutputs = first.getOutputs().size();
  rewriter.replaceOp(first, merged.getResults().take_front(firstOutputs));
  rewriter.replaceOp(second, merged.getResults().drop_front(firstOutputs));
  return success();
}

/// Whether `load` of one kernel argument loads what a load of `other`, in
/// its block, loads.
bool hasSameLoadOf(block::LoadOp load, Value other) {
  return llvm::any_of(other.getUsers(), [&](Operation *user) {
    auto twin = dyn_cast<block::LoadOp>(user);
    return twin && twin->getBlock() == load->getBlock() &&
           twin.getTile().getType() == load.getTile().getType() &&
           twin->getAttrDictionary() == load->getAttrDictionary();
  });
}

/// kernel.custom(%x, ..., %x) -> kernel.custom(%x, ...) where every load of
/// the second argument loads a tile the first's loads load too, which it
/// then reads (a fusion that loads an operand the kernel loads already). An
/// input the kernel reads in two tilings stays two inputs, one per tiling,
/// as the search made it.
struct MergeRepeatedInputs : OpRewritePattern<kernel::CustomOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::CustomOp custom,
                                PatternRewriter &rewriter) const override {
    OperandRange inputs = custom.getInputs();
    Block &body = custom.getBody().front();
    SmallVector<std::pair<unsigned, unsigned>> repeats;
    for (unsigned i = 0, e = inputs.size(); i < e; ++i) {
      unsigned original = llvm::find(inputs, inputs[i]) - inputs.begin();
      if (original == i)
        continue;
      BlockArgument arg = body.getArgument(i);
      if (llvm::all_of(arg.getUsers(), [&](Operation *user) {
            return hasSameLoadOf(cast<block::LoadOp>(user),
                                 body.getArgument(original));
          }))
        repeats.push_back({i, original});
    }
    if (repeats.empty())
      return rewriter.notifyMatchFailure(custom, "no input loaded twice");
    rewriter.modifyOpInPlace(custom, [&] {
      for (auto [i, original] : llvm::reverse(repeats)) {
        body.getArgument(i).replaceAllUsesWith(body.getArgument(original));
        body.eraseArgument(i);
        custom->eraseOperand(i);
      }
    });
    dropRepeatedLoads(rewriter, custom.getBody());
    return success();
  }
};

/// Drops the accumulators of a for-loop that nothing reads after it (a
/// merged producer's tile whose store its consumer's loads replaced): each
/// holds a tile in shared memory for the whole loop.
struct DropUnusedAccumulators : OpRewritePattern<block::ForLoopOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(block::ForLoopOp loop,
                                PatternRewriter &rewriter) const override {
    unsigned numResults = loop.getNumResults();
    llvm::BitVector kept(numResults);
    for (OpResult result : loop->getResults())
      if (!result.use_empty())
        kept.set(result.getResultNumber());
    // A rescale reads its max accumulator.
    for (unsigned i : kept.set_bits())
      if (std::optional<int64_t> by = loop.getAccumulator(i).getScaleBy())
        kept.set(*by);
    if (kept.none() || kept.all())
      return rewriter.notifyMatchFailure(loop, "no accumulator to drop");
    SmallVector<int64_t> newIndex(numResults, -1);
    SmallVector<Type> types;
    SmallVector<Value> yielded;
    auto yield = cast<block::YieldOp>(loop.getBody().front().getTerminator());
    for (unsigned i : kept.set_bits()) {
      newIndex[i] = types.size();
      types.push_back(loop.getResult(i).getType());
      yielded.push_back(yield.getValues()[i]);
    }
    SmallVector<Attribute> accumulators;
    for (unsigned i : kept.set_bits()) {
      block::AccumulatorAttr acc = loop.getAccumulator(i);
      if (std::optional<int64_t> by = acc.getScaleBy())
        acc = block::AccumulatorAttr::get(getContext(), acc.getKind(),
                                          newIndex[*by]);
      accumulators.push_back(acc);
    }
    rewriter.setInsertionPoint(yield);
    rewriter.replaceOpWithNewOp<block::YieldOp>(yield, yielded);
    rewriter.setInsertionPoint(loop);
    auto slim = block::ForLoopOp::create(rewriter, loop.getLoc(), types,
                                         loop.getIterations(),
                                         rewriter.getArrayAttr(accumulators));
    rewriter.inlineRegionBefore(loop.getBody(), slim.getBody(),
                                slim.getBody().end());
    SmallVector<Value> replacements(numResults);
    for (unsigned i : kept.set_bits())
      replacements[i] = slim.getResult(newIndex[i]);
    rewriter.replaceOp(loop, replacements);
    return success();
  }
};

} // namespace

void fusion::populateMergeCustomKernelsPatterns(
    RewritePatternSet &patterns, std::optional<TargetInfo> target,
    search::CostModelOptions costOptions) {
  patterns.add<MergeCustomKernels>(patterns.getContext(), target, costOptions);
  patterns.add<DropUnusedAccumulators, MergeRepeatedInputs>(
      patterns.getContext());
}
