//===- BroadcastOperands.cpp - Broadcasts read by contractions ------------===//
//
// torch-mlir lowers torch.matmul of a [b, m, k] activation and a [k, n]
// weight as a linalg.broadcast of the weight to [b, k, n] and a
// linalg.batch_matmul. Kernel ops have no broadcast, and the copy would cost
// b times the weight's bytes; a contraction can read the weight itself,
// through an indexing map that ignores the batch loop. This pattern rewrites
// the contraction that way (generalized first when it is a named op), and
// the import's FlattenedRowsToMatmul then makes it one matmul of the
// flattened rows.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// The right operand of `op` when a linalg.broadcast on tensors writes it
/// by adding leading dims that are the leading dims of the left operand and
/// of the result too (batch dims, which then become rows the weight does not
/// vary along: what FlattenedRowsToMatmul takes).
OpOperand *findBroadcastInput(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return nullptr;
  OpOperand *rhs = op.getDpsInputOperand(1);
  auto broadcast = rhs->get().getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast || !broadcast.hasPureTensorSemantics())
    return nullptr;
  ArrayRef<int64_t> added = broadcast.getDimensions();
  AffineMap rhsMap = op.getMatchingIndexingMap(rhs);
  AffineMap lhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (auto [i, dim] : llvm::enumerate(added)) {
    if (dim != static_cast<int64_t>(i) ||
        static_cast<int64_t>(lhsMap.getNumResults()) <= dim ||
        static_cast<int64_t>(outMap.getNumResults()) <= dim ||
        rhsMap.getResult(dim) != lhsMap.getResult(dim) ||
        rhsMap.getResult(dim) != outMap.getResult(dim))
      return nullptr;
  }
  return rhs;
}

/// Ahead of the import's contraction patterns (benefit 2), which would
/// otherwise take the broadcast tensor as a batched operand.
struct ContractionReadsBroadcastInput
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  ContractionReadsBroadcastInput(MLIRContext *context)
      : OpInterfaceRewritePattern(context, /*benefit=*/3) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        !linalg::isaContractionOpInterface(op) || !findBroadcastInput(op))
      return rewriter.notifyMatchFailure(
          op, "not a contraction that reads a broadcast");
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized))
        return rewriter.notifyMatchFailure(op, "cannot be generalized");
      generic = *generalized;
    }
    OpOperand *input = findBroadcastInput(generic);
    auto broadcast = input->get().getDefiningOp<linalg::BroadcastOp>();
    // The broadcast's result dims `dimensions` are the added ones: the
    // operand's map without them reads the broadcast's input.
    AffineMap map = generic.getMatchingIndexingMap(input);
    SmallVector<int64_t> added(broadcast.getDimensions());
    AffineMap reduced = map.dropResults(added);
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    maps[input->getOperandNumber()] = reduced;
    rewriter.modifyOpInPlace(generic, [&] {
      input->set(broadcast.getInput());
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

} // namespace

void mlsopt::populateBroadcastOperandPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractionReadsBroadcastInput>(patterns.getContext());
}
