//===- CapturedElements.cpp - Elements read from above as inputs ----------===//
//
// torch passes a scalar as a 0-d tensor, and torch-mlir's generics read it
// with a `tensor.extract %alpha[]` above the op, whose result the payload
// uses as a scalar. Read that way, no import pattern sees the tensor, and
// the generic stayed linalg (its kernel op, `x * alpha`, among them). As an
// input through a map of constant results (`(i, j) -> ()`, or `(0)` for a
// tensor<1xf32>), it is an operand the import broadcasts like any other.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// The first `tensor.extract` at constant indices from above that `op`'s
/// payload reads, and those indices; none if there is none.
std::optional<std::pair<tensor::ExtractOp, SmallVector<int64_t>>>
findCapturedElement(linalg::GenericOp op) {
  std::optional<std::pair<tensor::ExtractOp, SmallVector<int64_t>>> found;
  op.getRegion().walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      auto extract = operand.getDefiningOp<tensor::ExtractOp>();
      if (!extract || op->isAncestor(extract))
        continue;
      auto type = dyn_cast<RankedTensorType>(extract.getTensor().getType());
      if (!type || !type.hasStaticShape())
        continue;
      SmallVector<int64_t> indices;
      for (Value index : extract.getIndices()) {
        APInt value;
        if (!matchPattern(index, m_ConstantInt(&value)))
          break;
        indices.push_back(value.getSExtValue());
      }
      if (indices.size() != extract.getIndices().size())
        continue;
      found = {extract, indices};
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

struct CapturedElementToInput : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "works on buffers");
    auto captured = findCapturedElement(op);
    if (!captured)
      return rewriter.notifyMatchFailure(
          op, "reads no element at constant indices from above");
    auto [extract, indices] = *captured;

    // The tensor as one more input, read at the constant indices whatever
    // the loops.
    SmallVector<Value> inputs(op.getInputs());
    inputs.push_back(extract.getTensor());
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<AffineExpr> constants = llvm::map_to_vector(
        indices, [&](int64_t i) { return rewriter.getAffineConstantExpr(i); });
    maps.insert(
        maps.begin() + op.getNumDpsInputs(),
        AffineMap::get(op.getNumLoops(), 0, constants, rewriter.getContext()));
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op->getResultTypes(), inputs, op.getOutputs(),
        maps, op.getIteratorTypesArray());
    // Other attributes (a front end's names) stay with the op.
    for (NamedAttribute attr : op->getDiscardableAttrs())
      generic->setAttr(attr.getName(), attr.getValue());
    rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                                generic.getRegion().end());
    Block &body = generic.getRegion().front();
    BlockArgument element = body.insertArgument(
        op.getNumDpsInputs(), extract.getType(), extract.getLoc());
    rewriter.replaceUsesWithIf(
        extract.getResult(), element,
        [&](OpOperand &use) { return generic->isAncestor(use.getOwner()); });
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

} // namespace

void mlsopt::populateCapturedElementPatterns(RewritePatternSet &patterns) {
  patterns.add<CapturedElementToInput>(patterns.getContext());
}
