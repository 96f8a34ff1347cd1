//===- WrapKernelsBesideCopies.cpp - Kept ops as kernels that copy --------===//
//
// The search leaves transposes out of its subprograms, and keeps a
// subprogram (a linear layer whose output is handed on transposed, an op
// between conversions) as it is when no block graph beats it. The conversion or
// transpose beside such an op is then a launch of its own, and a round trip
// through device memory. A custom kernel does them in its loads and stores (the
// fusion patterns), so the op becomes the kernel of its default block graph,
// which the GPU pipeline would make of it anyway.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Transforms/KernelElementwiseFusion.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// kernel.convert or kernel.transpose beside a pre-defined op -> that op as
/// the kernel of its default block graph, which the fusion patterns then
/// give the copy.
struct WrapKernelBesideCopy : RewritePattern {
  WrapKernelBesideCopy(MLIRContext *context, int64_t maxSharedMemBytes)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        maxSharedMemBytes(maxSharedMemBytes) {}

  LogicalResult matchAndRewrite(Operation *copy,
                                PatternRewriter &rewriter) const override {
    if (!isa<kernel::ConvertOp, kernel::TransposeOp>(copy))
      return rewriter.notifyMatchFailure(copy, "not a conversion or a "
                                               "transpose");
    // Not an elementwise op that can be a custom kernel's epilogue: the
    // fusion patterns make it that, with the copy after it (the division
    // and the transposed output of an attention). A softmax's division of
    // a kernel's exp by a library kernel's row sum, made after the kernel,
    // cannot be one, and stayed a launch beside its conversion.
    auto mayBeEpilogue = [](Operation *op) {
      return op->hasTrait<OpTrait::ElementwiseByIndex>() &&
             getEpilogueKernel(op);
    };
    auto isWrappable = [&](Operation *op) {
      return op && !isa<kernel::ConvertOp, kernel::TransposeOp>(op) &&
             isa<kernel::KernelDialect>(op->getDialect()) &&
             !mayBeEpilogue(op) &&
             canWrapInDefaultBlockGraph(op, maxSharedMemBytes);
    };
    // The producer, when only the copy reads it: its kernel stores tiles
    // converted (FuseConvertIntoStores) or permuted (the epilogue of
    // FuseElementwiseEpilogue).
    Operation *producer = copy->getOperand(0).getDefiningOp();
    if (isWrappable(producer) && producer->getResult(0).hasOneUse()) {
      rewriter.setInsertionPoint(producer);
      return wrapInDefaultBlockGraph(rewriter, producer, maxSharedMemBytes);
    }
    // The readers of a conversion, when kernels read it and nothing else
    // does: they load and convert (FuseConvertIntoLoads). A transposed load
    // is a prologue, which the cost model weighs; the op is left to it.
    if (!isa<kernel::ConvertOp>(copy) || copy->use_empty() ||
        !llvm::all_of(copy->getUsers(), [&](Operation *user) {
          return isa<kernel::CustomOp>(user) || isWrappable(user);
        }))
      return rewriter.notifyMatchFailure(
          copy, "beside no kernel op that could do the copy");
    for (Operation *user : copy->getUsers()) {
      if (isa<kernel::CustomOp>(user))
        continue;
      rewriter.setInsertionPoint(user);
      return wrapInDefaultBlockGraph(rewriter, user, maxSharedMemBytes);
    }
    return rewriter.notifyMatchFailure(copy, "only custom kernels read it");
  }

  int64_t maxSharedMemBytes;
};

} // namespace

void mlsopt::populateWrapKernelsBesideCopiesPatterns(
    RewritePatternSet &patterns, int64_t maxSharedMemBytes) {
  patterns.add<WrapKernelBesideCopy>(patterns.getContext(), maxSharedMemBytes);
}
