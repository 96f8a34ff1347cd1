//===- FuseKernelElementwise.cpp - Elementwise kernel ops into kernels ----===//
//
// The search replaces each subprogram on its own, so an elementwise kernel op
// that the partition left out of its neighbour's subprogram (the division
// of an attention with a scale, cut at max-kernel-ops) stays a kernel of its
// own: a launch, and its operands written to device memory and read back.
// When every operand of such an op is an output of one custom kernel, whose
// blocks store matching tiles of them, each block can compute the op on the
// tiles it already holds and store the result instead (an epilogue).
// When only one custom kernel reads its result, the kernel can load the
// operands instead and compute the op on their tiles (a prologue). An
// rms_norm is such an op too wherever the tiles hold whole rows of its dim,
// and so is a transpose in a prologue (the kernel loads tiles of a weight
// stored [n, k] and permutes them).
//
//===----------------------------------------------------------------------===//

#include "KernelFusionSupport.h"

#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Dialect/Thread/Transforms/Passes.h"
#include "mlsopt/Search/CostModel.h"
#include "mlsopt/Support/Target.h"
#include "mlsopt/Transforms/KernelElementwiseFusion.h"
#include "mlsopt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fuse-kernel-elementwise"

namespace mlsopt {
#define GEN_PASS_DEF_FUSEKERNELELEMENTWISE
#include "mlsopt/Transforms/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::fusion;

/// Whether no element that `load` reads past its tensor's end reaches a
/// stored element: its tile flows to stores through elementwise block ops,
/// thread graphs and for-loops of one iteration only, so each element stays
/// at its index and the ragged store drops those past the end. Any op may
/// then compute on them (exp(0) = 1 included); a reduction, a matmul or a
/// loop that accumulates several tiles would mix them into the others.
bool fusion::padsReachNoStore(block::LoadOp load) {
  SmallVector<Value> worklist{load.getTile()};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<block::StoreOp>(user))
        continue;
      if (isa<block::YieldOp>(user)) {
        auto loop = dyn_cast<block::ForLoopOp>(user->getParentOp());
        if (!loop || loop.getIterations() != 1)
          return false;
        worklist.push_back(loop.getResult(use.getOperandNumber()));
        continue;
      }
      if (!isa<thread::GraphOp, block::ConvertOp>(user) &&
          !user->hasTrait<OpTrait::ElementwiseByIndex>())
        return false;
      llvm::append_range(worklist, user->getResults());
    }
  }
  return true;
}

/// The store that writes output `index` of `custom`, if there is exactly one.
block::StoreOp fusion::getStore(kernel::CustomOp custom, unsigned index) {
  block::StoreOp store;
  for (Operation *user : custom.getOutputArgument(index).getUsers()) {
    auto s = dyn_cast<block::StoreOp>(user);
    if (!s || store)
      return {};
    store = s;
  }
  return store;
}

/// The fusions build their candidate kernel with an IRRewriter of its own,
/// which the greedy pattern driver does not listen to. Built and erased
/// through the pattern's rewriter, a candidate that is given up would put
/// the producers of its operands back on the driver's worklist; two
/// candidates reading each other's producers would then be retried forever.
/// A kept candidate is announced to the driver here, so that the patterns
/// see it like any other new op.
void fusion::announce(PatternRewriter &rewriter, kernel::CustomOp kept) {
  if (OpBuilder::Listener *listener = rewriter.getListener())
    listener->notifyOperationInserted(kept, /*previous=*/{});
}

namespace {

/// Whether `op` gives 0 where its operands are 0, with no operand broadcast
/// along a dim (where a bias would be added to the zeros): an op a ragged
/// tile's load may compute past the end, where it reads zeros.
bool keepsZeros(Operation *op) {
  if (isa<kernel::SqrtOp, kernel::SquareOp, kernel::SiluOp, kernel::GeluOp,
          kernel::GeluTanhOp, kernel::ReluOp, kernel::TanhOp, kernel::ErfOp,
          kernel::SinOp, kernel::NegOp, kernel::Log1pOp, kernel::FloorOp,
          kernel::CeilOp, kernel::RoundOp, kernel::MulScalarOp, kernel::MulOp,
          kernel::ConvertOp, kernel::TransposeOp, kernel::IntToFloatOp>(op))
    return true;
  // Past its end a mask's tile reads false.
  if (auto where = dyn_cast<kernel::WhereOp>(op))
    return where.getOnFalse().isZero();
  if (isa<kernel::AddOp, kernel::SubOp, kernel::MaxOp, kernel::MinOp>(op))
    return op->getOperand(0).getType() == op->getOperand(1).getType();
  return false;
}

/// A custom kernel with `custom`'s launch and attributes, `inputs` and
/// `resultTypes`, in `custom`'s place (its inputs are defined there, and
/// its results may be read before the op a fusion rewrites); its region is
/// a copy of `custom`'s (`mapping` maps the old values to the copies) or,
/// without a mapping, empty.
kernel::CustomOp createLike(RewriterBase &rewriter, kernel::CustomOp custom,
                            TypeRange resultTypes, ValueRange inputs,
                            IRMapping *mapping) {
  rewriter.setInsertionPoint(custom);
  auto like =
      kernel::CustomOp::create(rewriter, custom.getLoc(), resultTypes, inputs,
                               custom.getGrid(), custom.getBlock());
  like->setDiscardableAttrs(custom->getDiscardableAttrDictionary());
  if (mapping)
    rewriter.cloneRegionBefore(custom.getBody(), like.getBody(),
                               like.getBody().end(), *mapping);
  return like;
}

} // namespace

bool mlsopt::isFusableElementwise(Operation *op) {
  if (!isa_and_nonnull<kernel::KernelDialect>(op->getDialect()) ||
      !(op->hasTrait<OpTrait::ElementwiseByIndex>() ||
        isa<kernel::RmsNormOp, kernel::TriangleFillOp>(op)) ||
      op->getNumResults() != 1 || op->getNumOperands() == 0)
    return false;
  size_t rank = shapeOf(op->getResult(0)).size();
  return llvm::all_of(op->getOperands(),
                      [&](Value v) { return shapeOf(v).size() == rank; });
}

namespace {

/// Whether a tile of `op`'s result with shape `tile` can be computed from
/// tiles of its operands alone: always for an elementwise op; for an
/// rms_norm when the tile holds whole rows of the normalized dim, and for
/// a concat when it holds the whole joined dim (the tile is then the
/// concat of the operands' tiles).
bool isTileLocal(Operation *op, ArrayRef<int64_t> tile) {
  if (auto norm = dyn_cast<kernel::RmsNormOp>(op)) {
    int64_t d = norm.getNormalizedDim();
    return tile[d] == shapeOf(norm.getResult())[d];
  }
  if (auto concat = dyn_cast<kernel::ConcatOp>(op)) {
    int64_t d = concat.getDim();
    return tile[d] == shapeOf(concat.getResult())[d];
  }
  return true;
}

/// `map` with every tensor dim d it names replaced by `to[d]`: an imap or
/// omap carried through a permutation of the tensor's dims.
GridToTensorDims remapTensorDims(GridToTensorDims map, ArrayRef<int64_t> to) {
  for (std::optional<int64_t> &d : map)
    if (d)
      d = to[*d];
  return map;
}

/// The block op of `op` on `tiles`, whose broadcast is `shape`, in the
/// tiles' element type, which may be wider than the op's (the f32 partial
/// sums of a split matmul); the store rounds.
Value createBroadcastTileOp(RewriterBase &rewriter, Operation *op,
                            ValueRange tiles, ArrayRef<int64_t> shape,
                            block::DimMapAttr imap, IntegerAttr fmap = {},
                            Type elementType = {}) {
  if (!elementType)
    elementType = getElementTypeOrSelf(tiles.front().getType());
  auto type = RankedTensorType::get(shape, elementType);
  return createTileOp(rewriter, op, tiles, type, imap, fmap);
}

/// Where an operand that broadcasts along the dims `stretched` says sits,
/// given the placement (`imap`, `tile`) of a tile of the result: the grid
/// cuts none of those dims, and its tile has size 1 there.
std::pair<GridToTensorDims, SmallVector<int64_t>>
getStretchedPlacement(GridToTensorDims imap, ArrayRef<int64_t> tile,
                      function_ref<bool(int64_t)> stretched) {
  for (std::optional<int64_t> &d : imap)
    if (d && stretched(*d))
      d.reset();
  SmallVector<int64_t> operandTile(tile);
  for (auto [d, size] : llvm::enumerate(operandTile))
    if (stretched(d))
      size = 1;
  return {imap, operandTile};
}

/// Whether `value` is available before `op`, in its block or outside.
bool isDefinedBefore(Value value, Operation *op) {
  return DominanceInfo(op).properlyDominates(value, op);
}

/// The reshape after `op` that makes `value` of a value defined before
/// `op` (an argument's gain, expanded to the rank of the op it scales),
/// which can move before `op`; null if there is none.
Operation *getReshapeToHoist(Value value, Operation *op) {
  Operation *def = value.getDefiningOp();
  if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def) ||
      isDefinedBefore(value, op) || !isDefinedBefore(def->getOperand(0), op))
    return nullptr;
  return def;
}

} // namespace

kernel::CustomOp mlsopt::getEpilogueKernel(Operation *op) {
  kernel::CustomOp custom;
  for (Value operand : op->getOperands())
    if ((custom = operand.getDefiningOp<kernel::CustomOp>()))
      break;
  if (!custom || op->getBlock() != custom->getBlock())
    return {};
  // Any other operand is loaded by the kernel, so it must exist before it
  // (or be a reshape that can move there); a transpose permutes the tiles
  // the kernel stores and loads nothing.
  for (Value operand : op->getOperands()) {
    auto produced = dyn_cast<OpResult>(operand);
    if (produced && produced.getOwner() == custom)
      continue;
    if (isa<kernel::TransposeOp>(op) || (!isDefinedBefore(operand, custom) &&
                                         !getReshapeToHoist(operand, custom)))
      return {};
  }
  return custom;
}

namespace {

/// The custom kernel nearest `op`, in its block, that reads an operand of
/// `op`, where all operands of `op` exist before it and all readers of `op`
/// come after it: the last such before `op`, else the first after it; null
/// if there is none.
kernel::CustomOp getSiblingKernel(Operation *op) {
  auto readsOperand = [&](kernel::CustomOp custom) {
    return custom && llvm::any_of(op->getOperands(), [&](Value operand) {
             return llvm::is_contained(custom.getInputs(), operand);
           });
  };
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto custom = dyn_cast<kernel::CustomOp>(prev);
    if (readsOperand(custom) &&
        llvm::all_of(op->getOperands(), [&](Value operand) {
          return isDefinedBefore(operand, custom);
        }))
      return custom;
  }
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    auto custom = dyn_cast<kernel::CustomOp>(next);
    if (!readsOperand(custom))
      continue;
    Block *block = op->getBlock();
    if (llvm::all_of(op->getUsers(), [&](Operation *user) {
          Operation *reader = block->findAncestorOpInBlock(*user);
          return reader && custom->isBeforeInBlock(reader);
        }))
      return custom;
  }
  return {};
}

/// Adds `values` as inputs of `custom` from input `firstInput` on and loads
/// each at the rewriter's insertion point, cut as `reference` stores the
/// tiles of `shape` (tiles `refTile`) along the dims it does not broadcast,
/// in the reference's element type (a load converts); returns the tiles.
SmallVector<Value> loadNewInputs(RewriterBase &rewriter,
                                 kernel::CustomOp custom,
                                 ArrayRef<Value> values, unsigned firstInput,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> refTile,
                                 block::StoreOp reference) {
  Block &body = custom.getBody().front();
  Location loc = custom.getLoc();
  Type element =
      cast<RankedTensorType>(reference.getTile().getType()).getElementType();
  SmallVector<Value> tiles;
  for (auto [k, value] : llvm::enumerate(values)) {
    BlockArgument arg =
        body.insertArgument(firstInput + k, value.getType(), loc);
    ArrayRef<int64_t> full = shapeOf(value);
    auto [imap, tile] = getStretchedPlacement(
        reference.getOmap().getGridToTensorDims(), refTile,
        [&](int64_t d) { return full[d] != shape[d]; });
    tiles.push_back(block::LoadOp::create(
        rewriter, loc, RankedTensorType::get(tile, element), arg,
        block::DimMapAttr::get(rewriter.getContext(), imap),
        /*fmap=*/IntegerAttr(), /*offsets=*/DenseI64ArrayAttr(),
        /*sizes=*/DenseI64ArrayAttr()));
  }
  return tiles;
}

/// loadNewInputs in the one iteration of `custom`'s for-loop, each tile
/// yielded to a new sum accumulator (its one tile passes through); returns
/// the loop's new results.
SmallVector<Value> loadInLoop(RewriterBase &rewriter, kernel::CustomOp custom,
                              ArrayRef<Value> values, unsigned firstInput,
                              ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> refTile,
                              block::StoreOp reference) {
  if (values.empty())
    return {};
  Block &body = custom.getBody().front();
  Location loc = custom.getLoc();
  auto oldLoop = *body.getOps<block::ForLoopOp>().begin();
  auto yield = cast<block::YieldOp>(oldLoop.getBody().front().getTerminator());
  rewriter.setInsertionPoint(yield);
  SmallVector<Value> tiles = loadNewInputs(rewriter, custom, values, firstInput,
                                           shape, refTile, reference);
  SmallVector<Value> yielded(yield.getValues());
  llvm::append_range(yielded, tiles);
  SmallVector<Type> types(oldLoop.getResultTypes());
  llvm::append_range(types, ValueRange(tiles).getTypes());
  SmallVector<Attribute> accumulators(oldLoop.getAccumulators().begin(),
                                      oldLoop.getAccumulators().end());
  accumulators.append(tiles.size(), block::AccumulatorAttr::get(
                                        rewriter.getContext(),
                                        block::AccumKind::sum, std::nullopt));
  rewriter.replaceOpWithNewOp<block::YieldOp>(yield, yielded);
  rewriter.setInsertionPoint(oldLoop);
  auto loop =
      block::ForLoopOp::create(rewriter, loc, types, oldLoop.getIterations(),
                               rewriter.getArrayAttr(accumulators));
  loop.getBody().takeBody(oldLoop.getBody());
  unsigned kept = oldLoop.getNumResults();
  rewriter.replaceOp(oldLoop, loop.getResults().take_front(kept));
  return SmallVector<Value>(loop.getResults().drop_front(kept));
}

/// loadNewInputs after `custom`'s for-loop (which runs more than once: the
/// tiles of an input it does not walk are read once there).
SmallVector<Value> loadAfterLoop(RewriterBase &rewriter,
                                 kernel::CustomOp custom,
                                 ArrayRef<Value> values, unsigned firstInput,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> refTile,
                                 block::StoreOp reference) {
  rewriter.setInsertionPoint(custom.getBody().front().getTerminator());
  return loadNewInputs(rewriter, custom, values, firstInput, shape, refTile,
                       reference);
}

/// kernel.<elementwise>(custom#i, custom#j, ...) -> one more output of the
/// custom kernel, computed from the tiles of #i, #j, ... after its for-loop.
struct FuseElementwiseEpilogue : KernelFusionPattern {
  using KernelFusionPattern::KernelFusionPattern;

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // A transpose of an output: each block stores its tile permuted, at
    // the place the permuted dims give it.
    auto transpose = dyn_cast<kernel::TransposeOp>(op);
    if (!transpose && !isFusableElementwise(op))
      return rewriter.notifyMatchFailure(
          op, "not an elementwise kernel op or a transpose");
    if (hasRankZeroTensor(op))
      return rewriter.notifyMatchFailure(op, "a rank-0 tensor has no tiles");
    kernel::CustomOp custom = getEpilogueKernel(op);
    // Else a kernel that loads an operand of `op` may load all of them and
    // compute `op` beside what it computes (a sibling), if that is faster.
    bool sibling = !custom && !transpose;
    if (sibling)
      custom = getSiblingKernel(op);
    if (!custom)
      return rewriter.notifyMatchFailure(
          op, "not after a custom kernel, or an operand is neither an output "
              "of it nor defined before it");
    Value result = op->getResult(0);
    ArrayRef<int64_t> shape = shapeOf(result);

    // The tile and the store of every operand; a reference operand has the
    // result's full shape, and its omap places the result's tiles. An
    // operand the kernel does not make, defined before it (the gain of a
    // norm, a bias), is loaded instead (`loaded`, no store): in a for-loop
    // that runs once, yielded to a sum accumulator (its one tile passes
    // through unchanged, and its copy overlaps the others'); after a loop
    // that runs more, once.
    SmallVector<block::StoreOp> stores;
    SmallVector<Value> loaded;
    block::StoreOp reference;
    for (Value operand : op->getOperands()) {
      auto produced = dyn_cast<OpResult>(operand);
      if (!produced || produced.getOwner() != custom) {
        stores.push_back({});
        if (!llvm::is_contained(loaded, operand))
          loaded.push_back(operand);
        continue;
      }
      block::StoreOp store = getStore(custom, produced.getResultNumber());
      if (!store)
        return rewriter.notifyMatchFailure(op, "operand stored oddly");
      stores.push_back(store);
      if (!reference && (transpose || shapeOf(operand) == shape))
        reference = store;
    }
    // A sibling's result is cut as an output of the kernel of its shape.
    for (unsigned i = 0, e = custom->getNumResults();
         sibling && !reference && i < e; ++i)
      if (shapeOf(custom->getResult(i)) == shape)
        reference = getStore(custom, i);
    if (!reference)
      return rewriter.notifyMatchFailure(op, "no stored operand has the "
                                             "result's shape");
    auto loops = custom.getBody().getOps<block::ForLoopOp>();
    if (!loaded.empty() && !llvm::hasSingleElement(loops))
      return rewriter.notifyMatchFailure(
          op, "loads an operand, and the kernel has no single for-loop");
    bool loadsInLoop = !loaded.empty() && (*loops.begin()).getIterations() == 1;

    // Every operand's blocks must hold the elements the result's tile needs:
    // the same split along each grid dim with more than one block, the same
    // tile along every dim the operand does not broadcast.
    kernel::Dim3Attr grid = custom.getGrid();
    int64_t gridExtents[3] = {grid.getX(), grid.getY(), grid.getZ()};
    ArrayRef<int64_t> refTile = shapeOf(reference.getTile());
    // The result's tile and omap: the reference's, or for a transpose
    // (its one operand is the reference) both permuted.
    SmallVector<int64_t> resultTile(refTile);
    block::DimMapAttr resultOmap = reference.getOmapAttr();
    if (transpose) {
      ArrayRef<int64_t> permutation = transpose.getPermutation();
      SmallVector<int64_t> position(permutation.size());
      for (auto [d, p] : llvm::enumerate(permutation)) {
        resultTile[d] = refTile[p];
        position[p] = d;
      }
      resultOmap = block::DimMapAttr::get(
          rewriter.getContext(),
          remapTensorDims(resultOmap.getGridToTensorDims(), position));
    }
    for (auto [operand, store] : llvm::zip_equal(op->getOperands(), stores)) {
      // A loaded operand is cut as the result's tiles are (loadedTile).
      if (!store)
        continue;
      for (unsigned g = 0; g < 3; ++g)
        if (gridExtents[g] > 1 && store.getOmap().getTensorDim(g) !=
                                      reference.getOmap().getTensorDim(g))
          return rewriter.notifyMatchFailure(op, "tiles split differently");
      // A transpose's one operand is the reference: its tile is in the
      // operand's order, which the result's shape does not have.
      if (transpose)
        continue;
      ArrayRef<int64_t> full = shapeOf(operand),
                        tile = shapeOf(store.getTile());
      for (auto [d, extent] : llvm::enumerate(full))
        if (tile[d] != (extent == shape[d] ? refTile[d] : 1))
          return rewriter.notifyMatchFailure(op, "tiles differ");
    }
    if (!isTileLocal(op, refTile))
      return rewriter.notifyMatchFailure(op, "tiles hold parts of rows");

    // A copy with one more output (and the loaded operands as inputs), so
    // that the rewrite can still give up. It is built out of the pattern
    // driver's sight (see announce).
    SmallVector<Type> types(custom.getResultTypes());
    types.push_back(result.getType());
    SmallVector<Value> inputs(custom.getInputs());
    llvm::append_range(inputs, loaded);
    IRMapping mapping;
    IRRewriter trial(rewriter.getContext());
    kernel::CustomOp fused = createLike(trial, custom, types, inputs, &mapping);
    Block &body = fused.getBody().front();
    SmallVector<Value> loadedTiles = (loadsInLoop ? loadInLoop : loadAfterLoop)(
        trial, fused, loaded, custom.getInputs().size(), shape, refTile,
        reference);
    body.addArgument(result.getType(), custom.getLoc());
    trial.setInsertionPoint(body.getTerminator());
    // The block op of the same name computes the kernel op on tiles; the
    // tiles are the stored values, in the copy, and the loaded ones.
    SmallVector<Value> tiles;
    for (auto [operand, store] : llvm::zip_equal(op->getOperands(), stores))
      // The copy's store: the values it stores may be results of the
      // for-loop that loadInLoop replaced.
      tiles.push_back(
          store ? cast<block::StoreOp>(mapping.lookup(store.getOperation()))
                      .getTile()
                : loadedTiles[llvm::find(loaded, operand) - loaded.begin()]);
    block::StoreOp::create(
        trial, op->getLoc(),
        createBroadcastTileOp(trial, op, tiles, resultTile, resultOmap),
        body.getArguments().back(), resultOmap);
    // The copy must still be a block graph the target can run (the result
    // tile takes shared memory unless it reuses an operand's).
    FailureOr<search::KernelCost> after = getValidCost(fused);
    if (failed(after)) {
      trial.eraseOp(fused);
      return rewriter.notifyMatchFailure(op, "the fused kernel is invalid");
    }
    // An epilogue saves the round trip of its operands; a sibling only the
    // launch, and its loads may cost the kernel more than that.
    if (sibling) {
      FailureOr<search::KernelCost> before = getCost(custom);
      FailureOr<search::KernelCost> alone = getCost(op);
      if (failed(before) || failed(alone) ||
          after->totalUs >= (*before += *alone).totalUs ||
          search::isVetoedByLatency(*after, *before, costOptions)) {
        trial.eraseOp(fused);
        return rewriter.notifyMatchFailure(op, "no faster sibling kernel");
      }
    }
    LLVM_DEBUG(llvm::dbgs()
               << "[fuse-kernel-elementwise] fused " << *op << "\n");
    announce(rewriter, fused);
    for (Value v : loaded)
      if (Operation *reshape = getReshapeToHoist(v, custom))
        rewriter.moveOpBefore(reshape, fused);
    rewriter.replaceOp(op, fused.getResults().back());
    rewriter.replaceOp(custom, fused.getResults().drop_back());
    return success();
  }
};

/// kernel.<elementwise>(a, b, ...) read only by one custom kernel -> the
/// kernel loads a, b, ... where it loaded the op's result and applies the
/// op to the tiles. Made only when the cost model says the fused kernel is
/// faster than the two launches: a kernel that reads the result many times
/// (every query tile of an attention reads all of K) would read each
/// operand as many times.
struct FuseElementwisePrologue : KernelFusionPattern {
  using KernelFusionPattern::KernelFusionPattern;

  /// Builds with `trial`, in `custom`'s place, the kernel that loads the
  /// operands of `op` where `custom` loads its result and applies `op` to
  /// their tiles; null, with `why` set, where it cannot.
  kernel::CustomOp buildFused(Operation *op, kernel::CustomOp custom,
                              IRRewriter &trial, StringRef &why) const {
    Value result = op->getResult(0);
    auto transpose = dyn_cast<kernel::TransposeOp>(op);
    auto concat = dyn_cast<kernel::ConcatOp>(op);
    ArrayRef<int64_t> shape = shapeOf(result);
    for (auto [i, v] : llvm::enumerate(custom.getInputs())) {
      if (v != result)
        continue;
      for (Operation *user : custom.getInputArgument(i).getUsers()) {
        if (!isTileLocal(op, shapeOf(user->getResult(0)))) {
          why = "tiles hold parts of rows";
          return nullptr;
        }
        // Past the end of a ragged tile the load reads zeros, which the
        // kernel may sum (a ragged loop over k, a row sum): the op must
        // keep them 0 (exp(0) = 1 would join the sums), unless nothing
        // carries them to a stored element.
        if (auto load = dyn_cast<block::LoadOp>(user);
            load && load.hasRaggedTiles() && !keepsZeros(op) &&
            !padsReachNoStore(load)) {
          why = "a ragged tile, past whose end the op is not 0";
          return nullptr;
        }
        // A mask places its tiles as their load does; a window would shift
        // them, which block.triangle_fill cannot say.
        if (auto load = dyn_cast<block::LoadOp>(user);
            load && load.getOffsets() && isa<kernel::TriangleFillOp>(op)) {
          why = "a window of a mask";
          return nullptr;
        }
      }
    }

    // The new inputs: the old ones, with the operands of the op that are
    // not inputs yet where the op's result was first.
    unsigned first =
        llvm::find(custom.getInputs(), result) - custom.getInputs().begin();
    SmallVector<Value> added;
    for (Value v : op->getOperands())
      if (!llvm::is_contained(custom.getInputs(), v) &&
          !llvm::is_contained(added, v))
        added.push_back(v);
    SmallVector<Value> inputs;
    for (auto [i, v] : llvm::enumerate(custom.getInputs())) {
      if (i == first)
        llvm::append_range(inputs, added);
      if (v != result)
        inputs.push_back(v);
    }
    // In the custom kernel's place: an input may be defined after the op.
    // Built out of the pattern driver's sight (see announce).
    IRMapping mapping;
    kernel::CustomOp fused =
        createLike(trial, custom, custom.getResultTypes(), inputs, &mapping);
    // The copy still has the old arguments: the added operands' go before
    // the result's first, and the result's are erased once nothing loads
    // them.
    Block &body = fused.getBody().front();
    SmallVector<BlockArgument> resultArgs;
    for (auto [i, v] : llvm::enumerate(custom.getInputs()))
      if (v == result)
        resultArgs.push_back(
            cast<BlockArgument>(mapping.lookup(custom.getInputArgument(i))));
    SmallVector<BlockArgument> addedArgs;
    for (auto [k, v] : llvm::enumerate(added))
      addedArgs.push_back(
          body.insertArgument(first + k, v.getType(), custom.getLoc()));
    auto argumentOf = [&](Value v) -> Value {
      if (auto it = llvm::find(added, v); it != added.end())
        return addedArgs[it - added.begin()];
      unsigned old =
          llvm::find(custom.getInputs(), v) - custom.getInputs().begin();
      return mapping.lookup(custom.getInputArgument(old));
    };

    // Every load of the result becomes loads of the operands, cut the same
    // way along the dims they do not broadcast, and the op on their tiles.
    SmallVector<block::LoadOp> loads;
    fused.walk([&](block::LoadOp load) {
      if (llvm::is_contained(resultArgs, load.getSource()))
        loads.push_back(load);
    });
    for (block::LoadOp load : loads) {
      trial.setInsertionPoint(load);
      ArrayRef<int64_t> tile = shapeOf(load.getTile());
      // -1: the loop does not cut the tile. (A plain integer: GCC took the
      // optional for maybe-uninitialized inside the loop below.)
      int64_t loopDim = load.getFmap().value_or(-1);
      SmallVector<Value> tiles;
      for (Value operand : op->getOperands()) {
        ArrayRef<int64_t> full = shapeOf(operand);
        // A dim the operand broadcasts (not a concat's joined dim, where
        // each operand has its own extent).
        auto stretched = [&](int64_t d) {
          return !transpose && full[d] != shape[d] &&
                 !(concat && d == static_cast<int64_t>(concat.getDim()));
        };
        auto [imap, operandTile] = getStretchedPlacement(
            load.getImap().getGridToTensorDims(), tile, stretched);
        // A concat's tile holds the whole joined dim of each operand.
        if (concat)
          operandTile[concat.getDim()] = full[concat.getDim()];
        IntegerAttr operandFmap;
        if (loopDim >= 0 && !stretched(loopDim))
          operandFmap = trial.getI64IntegerAttr(loopDim);
        // A transpose's result dim d is its operand's dim permutation[d]:
        // the grid and the loop cut that dim, and the tile is loaded in
        // the operand's order.
        if (transpose) {
          ArrayRef<int64_t> permutation = transpose.getPermutation();
          imap = remapTensorDims(imap, permutation);
          if (loopDim >= 0)
            operandFmap = trial.getI64IntegerAttr(permutation[loopDim]);
          for (auto [d, p] : llvm::enumerate(permutation))
            operandTile[p] = tile[d];
        }
        // A window of the result is the same window of each operand, all
        // of a dim it broadcasts, in its order.
        DenseI64ArrayAttr windowOffsets, windowSizes;
        if (load.getOffsets()) {
          SmallVector<int64_t> offsets = load.getWindowOffsets();
          SmallVector<int64_t> sizes = load.getWindowShape();
          for (auto [d, offset, size] : llvm::enumerate(offsets, sizes))
            if (stretched(d)) {
              offset = 0;
              size = 1;
            }
          if (concat)
            sizes[concat.getDim()] = full[concat.getDim()];
          if (transpose) {
            SmallVector<int64_t> permutedOffsets(offsets), permutedSizes(sizes);
            for (auto [d, p] : llvm::enumerate(transpose.getPermutation())) {
              permutedOffsets[p] = offsets[d];
              permutedSizes[p] = sizes[d];
            }
            offsets = permutedOffsets;
            sizes = permutedSizes;
          }
          windowOffsets = trial.getDenseI64ArrayAttr(offsets);
          windowSizes = trial.getDenseI64ArrayAttr(sizes);
        }
        // A mask or integers are loaded as stored; block.where or
        // block.int_to_float makes the load's element type of them.
        auto tileType = RankedTensorType::get(
            operandTile, block::getLoadedElementType(
                             getElementTypeOrSelf(operand.getType()),
                             getElementTypeOrSelf(load.getTile().getType())));
        auto dimMap = block::DimMapAttr::get(trial.getContext(), imap);
        Value source = argumentOf(operand);
        // A tile the iteration loads anyway is loaded once (X^T X reads
        // X's tile as stored for both operands); a load reads only block
        // arguments, so it can move up to here.
        block::LoadOp same;
        for (auto other : load->getBlock()->getOps<block::LoadOp>())
          if (other != load && other.getSource() == source &&
              other.getImapAttr() == dimMap &&
              other.getFmapAttr() == operandFmap &&
              other.getOffsetsAttr() == windowOffsets &&
              other.getSizesAttr() == windowSizes &&
              other.getTile().getType() == tileType) {
            same = other;
            break;
          }
        if (same && load->isBeforeInBlock(same))
          trial.moveOpBefore(same, load);
        tiles.push_back(same ? same.getTile()
                             : block::LoadOp::create(trial, load.getLoc(),
                                                     tileType, source, dimMap,
                                                     operandFmap, windowOffsets,
                                                     windowSizes)
                                   .getTile());
      }
      trial.replaceOp(load,
                      createBroadcastTileOp(
                          trial, op, tiles, tile, load.getImapAttr(),
                          load.getFmapAttr(),
                          getElementTypeOrSelf(load.getTile().getType())));
    }
    for (BlockArgument arg : llvm::reverse(resultArgs))
      body.eraseArgument(arg.getArgNumber());
    return fused;
  }

  /// `op`'s result read by several custom kernels: each computes `op` on
  /// its own tiles and the op's launch goes, where the cost model finds the
  /// readers so faster than the op and the readers as they are (a
  /// transpose of K that a kernel of K's column norms and the matmul with
  /// the queries both read was a launch of its own).
  LogicalResult fuseIntoEveryReader(Operation *op,
                                    ArrayRef<Operation *> readers,
                                    PatternRewriter &rewriter) const {
    if (!llvm::all_of(readers, llvm::IsaPred<kernel::CustomOp>))
      return rewriter.notifyMatchFailure(
          op, "read by several ops, not all custom kernels");
    FailureOr<search::KernelCost> before = getCost(op);
    if (failed(before))
      return rewriter.notifyMatchFailure(op, "no cost");
    search::KernelCost after;
    // Built out of the pattern driver's sight (see announce).
    IRRewriter trial(rewriter.getContext());
    SmallVector<kernel::CustomOp> fusedKernels;
    auto fail = [&](StringRef why) {
      for (kernel::CustomOp fused : fusedKernels)
        trial.eraseOp(fused);
      return rewriter.notifyMatchFailure(op, why);
    };
    for (Operation *reader : readers) {
      StringRef why;
      kernel::CustomOp fused =
          buildFused(op, cast<kernel::CustomOp>(reader), trial, why);
      if (!fused)
        return fail(why);
      fusedKernels.push_back(fused);
      FailureOr<search::KernelCost> cost = getValidCost(fused);
      FailureOr<search::KernelCost> consumer = getCost(reader);
      if (failed(cost) || failed(consumer))
        return fail("no valid kernel");
      after += *cost;
      *before += *consumer;
    }
    if (after.totalUs >= before->totalUs ||
        search::isVetoedByLatency(after, *before, costOptions))
      return fail("no faster valid kernels");
    LLVM_DEBUG(llvm::dbgs()
               << "[fuse-kernel-elementwise] prologue of " << readers.size()
               << " kernels " << *op << ": " << before->totalUs << " -> "
               << after.totalUs << " us\n");
    for (auto [reader, fused] : llvm::zip_equal(readers, fusedKernels)) {
      announce(rewriter, fused);
      rewriter.replaceOp(reader, fused.getResults());
    }
    rewriter.eraseOp(op);
    return success();
  }

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // A transpose is applied to tiles too: each tile of its result is a
    // tile of its operand with the dims permuted.
    auto transpose = dyn_cast<kernel::TransposeOp>(op);
    // So is a concat whose tiles hold the whole joined dim (a rotary
    // embedding's rotate_half: the concat of a negated half and the other).
    auto concat = dyn_cast<kernel::ConcatOp>(op);
    if (!transpose && !concat && !isFusableElementwise(op))
      return rewriter.notifyMatchFailure(
          op, "not an elementwise kernel op, a transpose or a concat");
    Value result = op->getResult(0);
    if (result.use_empty())
      return rewriter.notifyMatchFailure(op, "not read");
    SmallVector<Operation *> readers;
    for (Operation *user : result.getUsers())
      if (!llvm::is_contained(readers, user))
        readers.push_back(user);
    // The default block graph of an op on rank-0 tensors works on views of
    // them as vectors, which no load here could follow.
    if (hasRankZeroTensor(op) || llvm::any_of(readers, hasRankZeroTensor))
      return rewriter.notifyMatchFailure(op, "a rank-0 tensor has no tiles");
    if (llvm::any_of(readers, [&](Operation *reader) {
          return reader->getBlock() != op->getBlock();
        }))
      return rewriter.notifyMatchFailure(op, "read in another block");
    if (readers.size() > 1) {
      // In the order of the block, whatever the use list's.
      llvm::sort(readers, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      return fuseIntoEveryReader(op, readers, rewriter);
    }
    Operation *reader = readers.front();
    // The fused kernel is built out of the pattern driver's sight (see
    // announce).
    IRRewriter trial(rewriter.getContext());
    auto custom = dyn_cast<kernel::CustomOp>(reader);
    // A pre-defined op that reads a transpose (a lone linear layer's
    // matmul, which the search keeps as a library kernel) or a concat (the
    // product of a rotary embedding's rotate_half) gets here the default
    // block graph the GPU lowering would give it, so that it too loads the
    // operands as stored; the costs below decide. `wrapped` is the
    // kernel of it that reads the transpose, a scratch copy erased in the
    // end. Where that graph is a split pair (X^T X: one output tile, a long
    // k), `combining` is its second kernel, which sums the partials of the
    // first and stays if the fusion is made.
    // So does one that reads a mask's where (a masked_fill kept as its
    // kernel op) or an input's int_to_float, which then loads the mask or
    // the integers itself.
    kernel::CustomOp wrapped, combining;
    if (!custom && (transpose || concat || kernel::isInputConversion(op)) &&
        hasDefaultBlockGraph(reader)) {
      trial.setInsertionPoint(reader);
      Operation *copy = trial.clone(*reader);
      ScopedDiagnosticHandler quiet(op->getContext(),
                                    [](Diagnostic &) { return success(); });
      FailureOr<kernel::CustomOp> made = wrapInDefaultBlockGraph(
          trial, copy, kDefaultBlockGraphSharedMemBytes);
      if (failed(made)) {
        trial.eraseOp(copy);
        return rewriter.notifyMatchFailure(op, "no default block graph fits");
      }
      custom = wrapped = *made;
      if (!llvm::is_contained(made->getInputs(), result)) {
        combining = *made;
        custom = wrapped =
            made->getInputs().front().getDefiningOp<kernel::CustomOp>();
      }
    }
    if (!custom)
      return rewriter.notifyMatchFailure(op, "not read by a custom kernel");
    auto eraseWrapped = [&] {
      if (combining)
        trial.eraseOp(combining);
      if (wrapped)
        trial.eraseOp(wrapped);
    };
    StringRef why;
    kernel::CustomOp fused = buildFused(op, custom, trial, why);
    if (!fused) {
      eraseWrapped();
      return rewriter.notifyMatchFailure(op, why);
    }

    // Fuse only into a valid kernel that beats the two launches (the fused
    // kernel and the one combining its partials, for a split pair).
    // `cost` plus the combining kernel's, for a split pair.
    auto withCombining = [&](FailureOr<search::KernelCost> cost) {
      if (failed(cost) || !combining)
        return cost;
      FailureOr<search::KernelCost> combined = getCost(combining);
      if (failed(combined))
        return combined;
      return FailureOr<search::KernelCost>(*cost += *combined);
    };
    FailureOr<search::KernelCost> before = failure();
    FailureOr<search::KernelCost> after = withCombining(getValidCost(fused));
    if (succeeded(after)) {
      // A wrapped pre-defined op is weighed as what the GPU lowering runs,
      // its default block graph, on both sides: a split pair's two
      // launches tied a transpose and an ideal library matmul to the byte.
      FailureOr<search::KernelCost> producer = getCost(op);
      FailureOr<search::KernelCost> consumer =
          withCombining(wrapped ? getCost(wrapped) : getCost(reader));
      if (succeeded(producer) && succeeded(consumer))
        before = *producer += *consumer;
    }
    if (failed(before) || failed(after) || after->totalUs >= before->totalUs ||
        search::isVetoedByLatency(*after, *before, costOptions)) {
      trial.eraseOp(fused);
      eraseWrapped();
      return rewriter.notifyMatchFailure(op, "no faster valid kernel");
    }
    LLVM_DEBUG(llvm::dbgs()
               << "[fuse-kernel-elementwise] prologue " << *op << ": "
               << before->totalUs << " -> " << after->totalUs << " us\n");
    announce(rewriter, fused);
    if (combining) {
      // The combining kernel stays, reading the fused kernel's partials.
      trial.modifyOpInPlace(
          combining, [&] { combining->setOperand(0, fused->getResult(0)); });
      announce(rewriter, combining);
      rewriter.replaceOp(reader, combining.getResults());
      trial.eraseOp(wrapped);
    } else {
      rewriter.replaceOp(reader, fused.getResults());
      eraseWrapped();
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// kernel.<elementwise>(reshape(custom#i), b, ...) ->
/// reshape(kernel.<elementwise>(custom#i, reshape^-1(b), ...)): an
/// elementwise op computes the same on any shape of its operands, and
/// after the reshape it is no longer the epilogue of the kernel whose
/// result it reads (`init + x.sum((0, 2))`, whose add reads the sum
/// collapsed from [1, 8, 1] to [8], was a launch of its own). Made when
/// every operand has the result's shape, and is that kernel's output or
/// defined before it, so that FuseElementwiseEpilogue can take the op.
struct SinkReshapeBelowElementwise : RewritePattern {
  SinkReshapeBelowElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isFusableElementwise(op) ||
        !op->hasTrait<OpTrait::ElementwiseByIndex>() || hasRankZeroTensor(op))
      return rewriter.notifyMatchFailure(op, "not an elementwise kernel op");
    ArrayRef<int64_t> shape = shapeOf(op->getResult(0));
    Operation *reshape = nullptr;
    kernel::CustomOp custom;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
        continue;
      if ((custom = def->getOperand(0).getDefiningOp<kernel::CustomOp>())) {
        reshape = def;
        break;
      }
    }
    if (!reshape || custom->getBlock() != op->getBlock())
      return rewriter.notifyMatchFailure(op,
                                         "no reshaped custom kernel result");
    for (Value operand : op->getOperands())
      if (shapeOf(operand) != shape || (operand.getDefiningOp() != reshape &&
                                        operand.getDefiningOp() != custom &&
                                        !isDefinedBefore(operand, custom)))
        return rewriter.notifyMatchFailure(
            op, "an operand is broadcast or computed after the kernel");

    auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape);
    SmallVector<ReassociationIndices> groups =
        collapse
            ? collapse.getReassociationIndices()
            : cast<tensor::ExpandShapeOp>(reshape).getReassociationIndices();
    ArrayRef<int64_t> kernelShape = shapeOf(reshape->getOperand(0));
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    // Each operand in the kernel's shape: the reshaped result itself, the
    // others reshaped the other way.
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (operand.getDefiningOp() == reshape) {
        operands.push_back(reshape->getOperand(0));
        continue;
      }
      auto type = cast<RankedTensorType>(operand.getType());
      operands.push_back(collapse ? Value(tensor::ExpandShapeOp::create(
                                        rewriter, loc, type.clone(kernelShape),
                                        operand, groups))
                                  : Value(tensor::CollapseShapeOp::create(
                                        rewriter, loc, operand, groups)));
    }
    Operation *moved = rewriter.clone(*op);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.modifyOpInPlace(moved, [&] {
      moved->setOperands(operands);
      moved->getResult(0).setType(resultType.clone(kernelShape));
    });
    Value back =
        collapse ? Value(tensor::CollapseShapeOp::create(
                       rewriter, loc, moved->getResult(0), groups))
                 : Value(tensor::ExpandShapeOp::create(
                       rewriter, loc, resultType, moved->getResult(0), groups));
    rewriter.replaceOp(op, back);
    return success();
  }
};

/// custom(expand_shape(kernel.<elementwise>(a, ...))) ->
/// custom(kernel.<elementwise>(expand_shape(a), ...)) when the expand only
/// adds size-1 dims (the op stays for its other readers, all custom kernels
/// too): the op then has the kernel input's shape, so that
/// FuseElementwisePrologue can compute it there. A subprogram cut gives
/// the search's kernels their operands at full rank: a causal mask built
/// as a tensor of its own ([s, s], a triangle_fill of zeros), added to
/// [h, s, s] scores, reached the attention kernel expanded to [1, s, s] and
/// stayed a launch of its own. Made only when no operand comes from a
/// custom kernel, which SinkReshapeBelowElementwise would move the reshape
/// back below.
struct HoistUnitExpandAboveElementwise
    : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    Operation *op = expand.getSrc().getDefiningOp();
    // Other readers of the op keep it; this expand reads a copy. Each
    // custom kernel may then compute its own (a masked mean pooling reads
    // the converted mask expanded for the product and as it is for the
    // count).
    auto readByKernels = [](Operation *user) {
      return isa<kernel::CustomOp>(user) ||
             (isa<tensor::ExpandShapeOp>(user) &&
              llvm::all_of(user->getUsers(), llvm::IsaPred<kernel::CustomOp>));
    };
    if (!op || !isFusableElementwise(op) ||
        !llvm::all_of(op->getUsers(), readByKernels) || hasRankZeroTensor(op) ||
        !(op->hasTrait<OpTrait::ElementwiseByIndex>() ||
          isa<kernel::TriangleFillOp>(op)))
      return rewriter.notifyMatchFailure(expand, "not of an elementwise op");
    if (!llvm::all_of(expand->getUsers(), llvm::IsaPred<kernel::CustomOp>))
      return rewriter.notifyMatchFailure(expand, "not read by custom kernels");
    ArrayRef<int64_t> shape = shapeOf(expand.getSrc());
    auto largerThanOne = [](ArrayRef<int64_t> sizes) {
      return llvm::filter_to_vector(sizes, [](int64_t s) { return s != 1; });
    };
    if (largerThanOne(shape) != largerThanOne(shapeOf(expand.getResult())))
      return rewriter.notifyMatchFailure(expand, "adds dims larger than 1");
    for (Value operand : op->getOperands())
      if (shapeOf(operand) != shape ||
          operand.getDefiningOp<kernel::CustomOp>())
        return rewriter.notifyMatchFailure(
            op, "an operand is broadcast or a custom kernel's result");

    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    ArrayRef<int64_t> expandedShape = shapeOf(expand.getResult());
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    SmallVector<Value> operands =
        llvm::map_to_vector(op->getOperands(), [&](Value operand) -> Value {
          auto type = cast<RankedTensorType>(operand.getType());
          return tensor::ExpandShapeOp::create(
              rewriter, loc, type.clone(expandedShape), operand, groups);
        });
    Operation *moved = rewriter.clone(*op);
    rewriter.modifyOpInPlace(moved, [&] {
      moved->setOperands(operands);
      moved->getResult(0).setType(expand.getResultType());
      // A mask's dims move to where the expand puts them: the member of
      // each group that keeps the dim's size.
      if (auto fill = dyn_cast<kernel::TriangleFillOp>(moved)) {
        SmallVector<int64_t> dims;
        for (int64_t dim : fill.getDims()) {
          ReassociationIndices group = groups[dim];
          dims.push_back(*llvm::find_if(llvm::reverse(group), [&](int64_t d) {
            return expandedShape[d] == shape[dim];
          }));
        }
        fill.setDims(dims);
      }
    });
    rewriter.replaceOp(expand, moved->getResult(0));
    if (op->use_empty())
      rewriter.eraseOp(op);
    return success();
  }
};

/// Drops the outputs of a custom kernel that nothing reads (and their
/// stores), keeping at least one: a kernel without outputs does nothing.
struct DropUnusedOutputs : OpRewritePattern<kernel::CustomOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::CustomOp custom,
                                PatternRewriter &rewriter) const override {
    SmallVector<unsigned> kept;
    for (OpResult r : custom->getResults())
      if (!r.use_empty())
        kept.push_back(r.getResultNumber());
    if (kept.empty() || kept.size() == custom->getNumResults())
      return rewriter.notifyMatchFailure(custom, "nothing to drop");
    SmallVector<Type> types;
    for (unsigned i : kept)
      types.push_back(custom->getResult(i).getType());
    kernel::CustomOp slim = createLike(rewriter, custom, types,
                                       custom.getInputs(), /*mapping=*/nullptr);
    unsigned numInputs = custom.getInputs().size();
    llvm::BitVector dropped(custom.getBody().getNumArguments());
    for (unsigned i = 0, e = custom->getNumResults(); i < e; ++i)
      if (!llvm::is_contained(kept, i)) {
        for (Operation *user :
             llvm::make_early_inc_range(custom.getOutputArgument(i).getUsers()))
          rewriter.eraseOp(user);
        dropped.set(numInputs + i);
      }
    rewriter.inlineRegionBefore(custom.getBody(), slim.getBody(),
                                slim.getBody().end());
    slim.getBody().front().eraseArguments(dropped);
    SmallVector<Value> replacements(custom->getNumResults());
    for (auto [i, index] : llvm::enumerate(kept))
      replacements[index] = slim->getResult(i);
    rewriter.replaceOp(custom, replacements);
    return success();
  }
};

struct FuseKernelElementwisePass
    : mlsopt::impl::FuseKernelElementwiseBase<FuseKernelElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    search::CostModelOptions costOptions;
    costOptions.latencyVeto = latencyVeto;
    populateFuseKernelElementwisePatterns(patterns, std::nullopt, costOptions);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // The new block ops become thread graphs, merged with those before
    // them, in the kernels where the merged graphs fit.
    thread::fuseElementwiseWithinSharedMemory(getOperation());
  }
};

} // namespace

void mlsopt::populateFuseKernelElementwisePatterns(
    RewritePatternSet &patterns, std::optional<TargetInfo> target,
    search::CostModelOptions costOptions) {
  patterns.add<FuseElementwiseEpilogue, FuseElementwisePrologue>(
      patterns.getContext(), target, costOptions);
  patterns.add<DropUnusedOutputs, SinkReshapeBelowElementwise,
               HoistUnitExpandAboveElementwise>(patterns.getContext());
  populateFuseConversionPatterns(patterns);
  populateWrapKernelsBesideCopiesPatterns(
      patterns, target ? static_cast<int64_t>(target->maxSharedMemPerBlock)
                       : kDefaultBlockGraphSharedMemBytes);
  populateFoldSlicesIntoLoadsPatterns(patterns);
  populateMergeCustomKernelsPatterns(patterns, target, costOptions);
}
