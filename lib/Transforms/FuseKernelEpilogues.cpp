//===- FuseKernelEpilogues.cpp - Elementwise kernel ops into producers ----===//
//
// The search replaces each subprogram on its own, so an elementwise kernel op
// that the partition left out of its neighbour's subprogram (the division
// of an attention with a scale, cut at max-kernel-ops) stays a kernel of its
// own: a launch, and its operands written to device memory and read back.
// When every operand of such an op is an output of one custom kernel, whose
// blocks store matching tiles of them, each block can compute the op on the
// tiles it already holds and store the result instead: the op becomes the
// kernel's epilogue. Outputs that only the op read are then dropped.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/Transforms/Passes.h"
#include "mlsopt/Transforms/KernelEpilogues.h"
#include "mlsopt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fuse-kernel-epilogues"

namespace mlsopt {
#define GEN_PASS_DEF_FUSEKERNELEPILOGUES
#include "mlsopt/Transforms/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

namespace {

/// The store that writes output `index` of `custom`, if there is exactly one.
block::StoreOp getStore(kernel::CustomOp custom, unsigned index) {
  block::StoreOp store;
  for (Operation *user : custom.getOutputArgument(index).getUsers()) {
    auto s = dyn_cast<block::StoreOp>(user);
    if (!s || store)
      return {};
    store = s;
  }
  return store;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Rebuilds `custom` with its region and `extra` more outputs, leaving
/// `custom` in place. The new region is a copy, so the caller can still
/// give up.
kernel::CustomOp cloneWithMoreOutputs(PatternRewriter &rewriter,
                                      kernel::CustomOp custom, TypeRange extra,
                                      IRMapping &mapping) {
  SmallVector<Type> types(custom.getResultTypes());
  llvm::append_range(types, extra);
  auto fused = kernel::CustomOp::create(rewriter, custom.getLoc(), types,
                                        custom.getInputs(), custom.getGrid(),
                                        custom.getBlock());
  fused->setDiscardableAttrs(custom->getDiscardableAttrDictionary());
  rewriter.cloneRegionBefore(custom.getBody(), fused.getBody(),
                             fused.getBody().end(), mapping);
  for (Type type : extra)
    fused.getBody().addArgument(type, custom.getLoc());
  return fused;
}

/// kernel.<elementwise>(custom#i, custom#j, ...) -> one more output of the
/// custom kernel, computed from the tiles of #i, #j, ... after its for-loop.
struct FuseElementwiseEpilogue : RewritePattern {
  explicit FuseElementwiseEpilogue(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<kernel::KernelDialect>(op->getDialect()) ||
        !op->hasTrait<OpTrait::ElementwiseByIndex>() ||
        op->getNumResults() != 1 || op->getNumOperands() == 0)
      return rewriter.notifyMatchFailure(op, "not an elementwise kernel op");
    auto custom = op->getOperand(0).getDefiningOp<kernel::CustomOp>();
    if (!custom || op->getBlock() != custom->getBlock())
      return rewriter.notifyMatchFailure(op, "not after a custom kernel");
    Value result = op->getResult(0);
    ArrayRef<int64_t> shape = shapeOf(result);

    // The tile and the store of every operand; a reference operand has the
    // result's full shape, and its omap places the result's tiles.
    SmallVector<block::StoreOp> stores;
    block::StoreOp reference;
    for (Value operand : op->getOperands()) {
      auto produced = dyn_cast<OpResult>(operand);
      if (!produced || produced.getOwner() != custom)
        return rewriter.notifyMatchFailure(op, "an operand is not an output "
                                               "of the same custom kernel");
      block::StoreOp store = getStore(custom, produced.getResultNumber());
      if (!store || shapeOf(operand).size() != shape.size())
        return rewriter.notifyMatchFailure(op, "operand stored oddly");
      stores.push_back(store);
      if (!reference && shapeOf(operand) == shape)
        reference = store;
    }
    if (!reference)
      return rewriter.notifyMatchFailure(op, "no operand has the result's "
                                             "shape");

    // Every operand's blocks must hold the elements the result's tile needs:
    // the same split along each grid dim with more than one block, the same
    // tile along every dim the operand does not broadcast.
    kernel::Dim3Attr grid = custom.getGrid();
    int64_t gridExtents[3] = {grid.getX(), grid.getY(), grid.getZ()};
    ArrayRef<int64_t> refTile = shapeOf(reference.getTile());
    for (auto [operand, store] : llvm::zip_equal(op->getOperands(), stores)) {
      for (unsigned g = 0; g < 3; ++g)
        if (gridExtents[g] > 1 && store.getOmap().getTensorDim(g) !=
                                      reference.getOmap().getTensorDim(g))
          return rewriter.notifyMatchFailure(op, "tiles split differently");
      ArrayRef<int64_t> full = shapeOf(operand),
                        tile = shapeOf(store.getTile());
      for (auto [d, extent] : llvm::enumerate(full))
        if (tile[d] != (extent == shape[d] ? refTile[d] : 1))
          return rewriter.notifyMatchFailure(op, "tiles differ");
    }

    IRMapping mapping;
    kernel::CustomOp fused =
        cloneWithMoreOutputs(rewriter, custom, result.getType(), mapping);
    Block &body = fused.getBody().front();
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(body.getTerminator());
      // The block op of the same name computes the kernel op on tiles; the
      // tiles are the stored values, in the copy.
      SmallVector<Value> tiles =
          llvm::map_to_vector(stores, [&](block::StoreOp s) {
            return mapping.lookup(s.getTile());
          });
      OperationState state(op->getLoc(),
                           ("block." + op->getName().stripDialect()).str());
      state.addOperands(tiles);
      state.addTypes(RankedTensorType::get(
          refTile, cast<RankedTensorType>(result.getType()).getElementType()));
      state.addAttributes(op->getAttrs());
      Operation *tileOp = rewriter.create(state);
      block::StoreOp::create(rewriter, op->getLoc(), tileOp->getResult(0),
                             body.getArguments().back(),
                             reference.getOmapAttr());
    }
    // The copy must still be a block graph the target can run (the result
    // tile takes shared memory unless it reuses an operand's).
    bool valid;
    {
      ScopedDiagnosticHandler quiet(getContext(),
                                    [](Diagnostic &) { return success(); });
      valid = succeeded(mlir::verify(fused));
    }
    if (!valid) {
      rewriter.eraseOp(fused);
      return rewriter.notifyMatchFailure(op, "the fused kernel is invalid");
    }
    LLVM_DEBUG(llvm::dbgs() << "[fuse-kernel-epilogues] fused " << *op << "\n");
    rewriter.replaceOp(op, fused.getResults().back());
    rewriter.replaceOp(custom, fused.getResults().drop_back());
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
    auto slim = kernel::CustomOp::create(rewriter, custom.getLoc(), types,
                                         custom.getInputs(), custom.getGrid(),
                                         custom.getBlock());
    slim->setDiscardableAttrs(custom->getDiscardableAttrDictionary());
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

struct FuseKernelEpiloguesPass
    : mlsopt::impl::FuseKernelEpiloguesBase<FuseKernelEpiloguesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseKernelEpiloguePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlsopt::populateFuseKernelEpiloguePatterns(RewritePatternSet &patterns) {
  patterns.add<FuseElementwiseEpilogue, DropUnusedOutputs>(
      patterns.getContext());
  // The new block ops become thread graphs, merged with those before them.
  thread::populateFuseElementwisePatterns(patterns);
}
