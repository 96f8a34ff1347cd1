//===- ConstantFills.cpp - Fills of a constant as splat constants ---------===//
//
// A linalg.fill of a constant, or a parallel generic whose payload yields
// one (torch.full_like), that no linalg op reads (a zeros_like returned as
// an output) is the splat constant it fills: a value of the kernel-level
// program, which the verifier reads as a constant input and the GPU
// pipeline copies from a global. Fills that linalg ops read stay for those
// ops' imports, which take them as scalars (a matmul's zero init is
// dropped).
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

TypedAttr mlsopt::getFillConstant(Value tensor) {
  auto fill = tensor.getDefiningOp<linalg::FillOp>();
  TypedAttr constant;
  if (!fill || !matchPattern(fill.value(), m_Constant(&constant)))
    return {};
  return constant;
}

Value mlsopt::getFilledValue(linalg::LinalgOp op) {
  if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation()))
    return fill.value();
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  // A generic whose output map is no permutation (a diagonal `(i) -> (i,
  // i)`, a stride) writes some elements only, and leaves the init's in the
  // others.
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isPermutation())
    return {};
  return generic.getBody()->getTerminator()->getOperand(0);
}

namespace {

struct FillToSplatConstant
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not one tensor result");
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() ||
        !isa<Float16Type, BFloat16Type, Float32Type>(type.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "not a static f16, bf16 or f32 tensor");
    Value filled = getFilledValue(op);
    FloatAttr value;
    if (!filled || !matchPattern(filled, m_Constant(&value)) ||
        value.getType() != type.getElementType())
      return rewriter.notifyMatchFailure(
          op, "does not fill a constant of the element type");
    if (llvm::any_of(op->getUsers(), [](Operation *user) {
          return isa<linalg::LinalgOp>(user);
        }))
      return rewriter.notifyMatchFailure(op, "a linalg op reads it");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, value.getValue()));
    return success();
  }
};

} // namespace

void mlsopt::populateConstantFillPatterns(RewritePatternSet &patterns) {
  patterns.add<FillToSplatConstant>(patterns.getContext());
}
