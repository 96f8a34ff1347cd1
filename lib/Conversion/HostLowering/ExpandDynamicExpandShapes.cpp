//===- ExpandDynamicExpandShapes.cpp - Dynamic expands as casts -----------===//

#include "mlsopt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlsopt {
#define GEN_PASS_DEF_EXPANDDYNAMICEXPANDSHAPES
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

/// Whether some group of `op` splits its source dim into more than one
/// dynamic dim: the case upstream's expand-strided-metadata crashes on.
bool hasSeveralDynamicSizesInAGroup(memref::ExpandShapeOp op) {
  MemRefType type = op.getResultType();
  return llvm::any_of(op.getReassociationIndices(),
                      [&](const ReassociationIndices &group) {
                        return llvm::count_if(group, [&](int64_t dim) {
                                 return type.isDynamicDim(dim);
                               }) > 1;
                      });
}

/// The product of two index values, folded when both are constants.
OpFoldResult multiply(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs) {
  std::optional<int64_t> l = getConstantIntValue(lhs);
  std::optional<int64_t> r = getConstantIntValue(rhs);
  if (l && r)
    return b.getIndexAttr(*l * *r);
  return arith::MulIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, lhs),
                               getValueOrCreateConstantIndexOp(b, loc, rhs))
      .getResult();
}

struct ExpandShapeAsReinterpretCast : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasSeveralDynamicSizesInAGroup(op))
      return rewriter.notifyMatchFailure(op, "upstream lowers it");
    Location loc = op.getLoc();
    auto source =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sourceStrides =
        source.getConstifiedMixedStrides();
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(sizes.size());
    // Within a group the innermost dim keeps the source dim's stride and
    // each dim outside it steps over the whole of the dims inside.
    for (auto [sourceDim, group] :
         llvm::enumerate(op.getReassociationIndices())) {
      OpFoldResult stride = sourceStrides[sourceDim];
      for (int64_t dim : llvm::reverse(group)) {
        strides[dim] = stride;
        stride = multiply(rewriter, loc, stride, sizes[dim]);
      }
    }
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, op.getResultType(), source.getBaseBuffer(),
        source.getConstifiedMixedOffset(), sizes, strides);
    return success();
  }
};

struct ExpandDynamicExpandShapesPass
    : mlsopt::impl::ExpandDynamicExpandShapesBase<
          ExpandDynamicExpandShapesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeAsReinterpretCast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
