//===- FuseConversions.cpp - kernel.convert into custom kernels -----------===//
//
// A mixed-precision program imports as kernel.convert ops around the ops of
// one element type (an f16 softmax computed in f32: convert, the f32
// softmax, convert). The search leaves conversions out of its subprograms;
// once it has made custom kernels, a conversion beside one is done by that
// kernel's loads or stores instead, which cost no launch and no round trip
// through device memory: block.load and block.store convert when the tile's
// element type differs from the tensor's.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Transforms/KernelElementwiseFusion.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// A conversion that only custom kernels read: they load its operand and
/// convert each tile as they load it.
struct FuseConvertIntoLoads : OpRewritePattern<kernel::ConvertOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::ConvertOp convert,
                                PatternRewriter &rewriter) const override {
    if (convert->use_empty() ||
        !llvm::all_of(convert->getUsers(), [](Operation *user) {
          return isa<kernel::CustomOp>(user);
        }))
      return rewriter.notifyMatchFailure(convert,
                                         "read by an op other than a kernel");
    Value narrow = convert.getInput();
    for (OpOperand &use : llvm::make_early_inc_range(convert->getUses())) {
      auto custom = cast<kernel::CustomOp>(use.getOwner());
      // The block graph reads a kernel input only through block.load ops,
      // whose tiles keep their element type.
      BlockArgument arg =
          custom.getBody().front().getArgument(use.getOperandNumber());
      rewriter.modifyOpInPlace(custom, [&] {
        use.set(narrow);
        arg.setType(narrow.getType());
      });
    }
    rewriter.eraseOp(convert);
    return success();
  }
};

/// A conversion of a custom kernel's output that nothing else reads: the
/// kernel converts each tile as it stores it.
struct FuseConvertIntoStores : OpRewritePattern<kernel::ConvertOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::ConvertOp convert,
                                PatternRewriter &rewriter) const override {
    auto result = dyn_cast<OpResult>(convert.getInput());
    auto custom =
        result ? dyn_cast<kernel::CustomOp>(result.getOwner()) : nullptr;
    if (!custom || !result.hasOneUse())
      return rewriter.notifyMatchFailure(
          convert, "does not convert a kernel output read only by it");
    // The output's region argument follows the inputs'; block.store ops
    // are its only users and keep their tiles' element type.
    BlockArgument arg = custom.getBody().front().getArgument(
        custom.getInputs().size() + result.getResultNumber());
    rewriter.modifyOpInPlace(custom, [&] {
      result.setType(convert.getType());
      arg.setType(convert.getType());
    });
    rewriter.replaceOp(convert, result);
    return success();
  }
};

/// A conversion beside a pre-defined kernel op that the search kept as it
/// was (the rms_norm of an f16 LLaMA norm computed in f32, a subprogram of
/// one op): the op becomes the kernel of its default block graph, which the
/// GPU pipeline would make of it anyway, when that lets the patterns above
/// convert in its loads or stores. Left pre-defined, the conversions were
/// launches of their own, and so was an elementwise op behind them (a norm
/// and its gain: 4 launches, now 1).
struct WrapKernelBesideConversion : OpRewritePattern<kernel::ConvertOp> {
  WrapKernelBesideConversion(MLIRContext *context, int64_t maxSharedMemBytes)
      : OpRewritePattern(context), maxSharedMemBytes(maxSharedMemBytes) {}

  LogicalResult matchAndRewrite(kernel::ConvertOp convert,
                                PatternRewriter &rewriter) const override {
    auto isWrappable = [&](Operation *op) {
      return op && !isa<kernel::ConvertOp>(op) &&
             isa<kernel::KernelDialect>(op->getDialect()) &&
             canWrapInDefaultBlockGraph(op, maxSharedMemBytes);
    };
    // The producer, when only the conversion reads it (its kernel then
    // stores converted tiles).
    Operation *producer = convert.getInput().getDefiningOp();
    if (isWrappable(producer) && producer->getResult(0).hasOneUse()) {
      rewriter.setInsertionPoint(producer);
      return wrapInDefaultBlockGraph(rewriter, producer, maxSharedMemBytes);
    }
    // A reader, when kernels read the conversion and nothing else does
    // (they then load and convert).
    if (convert->use_empty() ||
        !llvm::all_of(convert->getUsers(), [&](Operation *user) {
          return isa<kernel::CustomOp>(user) || isWrappable(user);
        }))
      return rewriter.notifyMatchFailure(
          convert, "beside no kernel op that could do the conversion");
    for (Operation *user : convert->getUsers()) {
      if (isa<kernel::CustomOp>(user))
        continue;
      rewriter.setInsertionPoint(user);
      return wrapInDefaultBlockGraph(rewriter, user, maxSharedMemBytes);
    }
    return rewriter.notifyMatchFailure(convert, "only kernels read it");
  }

  int64_t maxSharedMemBytes;
};

} // namespace

void mlsopt::populateFuseConversionPatterns(RewritePatternSet &patterns,
                                            int64_t maxSharedMemBytes) {
  patterns.add<FuseConvertIntoLoads, FuseConvertIntoStores>(
      patterns.getContext());
  patterns.add<WrapKernelBesideConversion>(patterns.getContext(),
                                           maxSharedMemBytes);
}
