//===- ConstantFills.cpp - Fills of a constant as splat constants ---------===//
//
// A linalg.fill of a constant that no linalg op reads (torch.zeros_like
// returned as an output, a constant added by a kernel op) is the splat
// constant it fills: a value of the kernel-level program, which the
// verifier reads as a constant input and the GPU pipeline copies from a
// global. Fills that linalg ops read stay for those ops' imports, which
// take them as scalars (a matmul's zero init is dropped).
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlsopt;

namespace {

struct FillToSplatConstant : OpRewritePattern<linalg::FillOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::FillOp fill,
                                PatternRewriter &rewriter) const override {
    if (!fill.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(fill, "fills a buffer");
    auto type = dyn_cast<RankedTensorType>(fill.getResult(0).getType());
    if (!type || !type.hasStaticShape() ||
        !isa<Float16Type, BFloat16Type, Float32Type>(type.getElementType()))
      return rewriter.notifyMatchFailure(
          fill, "not a static f16, bf16 or f32 tensor");
    FloatAttr value;
    if (!matchPattern(fill.value(), m_Constant(&value)) ||
        value.getType() != type.getElementType())
      return rewriter.notifyMatchFailure(fill,
                                         "not a constant of the element type");
    if (llvm::any_of(fill->getUsers(), [](Operation *user) {
          return isa<linalg::LinalgOp>(user);
        }))
      return rewriter.notifyMatchFailure(fill, "a linalg op reads it");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        fill, DenseElementsAttr::get(type, value.getValue()));
    return success();
  }
};

} // namespace

void mlsopt::populateConstantFillPatterns(RewritePatternSet &patterns) {
  patterns.add<FillToSplatConstant>(patterns.getContext());
}
