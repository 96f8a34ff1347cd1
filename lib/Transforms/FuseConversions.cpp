//===- FuseConversions.cpp - kernel.convert into custom kernels -----------===//
//
// A mixed-precision program imports as kernel.convert ops around the ops of
// one element type (an f16 softmax computed in f32: convert, the f32
// softmax, convert). The search sees through the conversions in its
// subprograms, but keeps a subprogram no μGraph beats as it is, and a cut
// may fall at a conversion; once it has made custom kernels, a conversion
// beside one is done by that kernel's loads or stores instead, which cost no
// launch and no round trip through device memory: block.load and block.store
// convert when the tile's element type differs from the tensor's.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Search/SearchProblem.h"
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
    // A load of the unconverted tensor converts once, to its tile's type:
    // a rounding must survive that, so its tiles must be of the type it
    // rounds to. (Loaded into f32 tiles, x.to(bfloat16).float() * 2 was
    // computed as x * 2.)
    Type rounded = convert.getType().getElementType();
    if (search::isRoundingConversion(convert) &&
        llvm::any_of(convert->getUses(), [&](OpOperand &use) {
          auto custom = cast<kernel::CustomOp>(use.getOwner());
          Value arg =
              custom.getBody().front().getArgument(use.getOperandNumber());
          return llvm::any_of(arg.getUsers(), [&](Operation *user) {
            auto load = dyn_cast<block::LoadOp>(user);
            return !load ||
                   getElementTypeOrSelf(load.getTile().getType()) != rounded;
          });
        }))
      return rewriter.notifyMatchFailure(
          convert, "a rounding that the kernel's loads would skip");
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

} // namespace

void mlsopt::populateFuseConversionPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseConvertIntoLoads, FuseConvertIntoStores>(
      patterns.getContext());
}
