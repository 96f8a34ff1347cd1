//===- RaiseKernelIdioms.cpp - Decomposed normalizations as one op --------===//
//
// Front ends spell RMSNorm out: x * rsqrt(mean(x^2) + eps), five or six
// kernel ops. The search counts kernel ops against `max-kernel-ops` and
// knows how to split kernel.rms_norm across a for-loop, so the spelled-out
// form is raised to the one op first. The match is exact: the mean must be
// over the last dim and its factor 1/n for that dim's extent n.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Transforms/KernelIdioms.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlsopt;

namespace {
/// mul(x, rsqrt(add_scalar(mul_scalar(reduce_sum(square(x), last), 1/n),
/// eps))) (either operand order) or div(x, sqrt(...)) -> rms_norm(x).
template <typename OpTy, typename RootTy>
struct RaiseRmsNorm : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  /// The epsilon if `scale` is the rms (under RootTy) of `x`'s last dim.
  static std::optional<double> matchScale(Value x, Value scale) {
    auto root = scale.getDefiningOp<RootTy>();
    if (!root)
      return std::nullopt;
    auto addEps = root.getInput().template getDefiningOp<kernel::AddScalarOp>();
    if (!addEps)
      return std::nullopt;
    auto mean = addEps.getInput().template getDefiningOp<kernel::MulScalarOp>();
    if (!mean)
      return std::nullopt;
    auto sum = mean.getInput().template getDefiningOp<kernel::ReduceSumOp>();
    if (!sum)
      return std::nullopt;
    auto square = sum.getInput().template getDefiningOp<kernel::SquareOp>();
    if (!square || square.getInput() != x)
      return std::nullopt;
    auto type = cast<RankedTensorType>(x.getType());
    int64_t last = type.getRank() - 1;
    if (static_cast<int64_t>(sum.getDim()) != last)
      return std::nullopt;
    double n = static_cast<double>(type.getDimSize(last));
    // 1/n as the front end wrote it, possibly rounded to f16 or bf16.
    double factor = mean.getScalar().convertToDouble();
    if (std::abs(factor * n - 1.0) > 1e-3)
      return std::nullopt;
    return addEps.getScalar().convertToDouble();
  }

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op.getType() != op.getLhs().getType())
      return failure();
    std::optional<double> eps = matchScale(op.getLhs(), op.getRhs());
    Value x = op.getLhs();
    if (!eps && std::is_same_v<OpTy, kernel::MulOp>) {
      eps = matchScale(op.getRhs(), op.getLhs());
      x = op.getRhs();
    }
    if (!eps || x.getType() != op.getType())
      return failure();
    rewriter.replaceOpWithNewOp<kernel::RmsNormOp>(
        op, x, *eps, cast<RankedTensorType>(x.getType()).getRank() - 1);
    return success();
  }
};
} // namespace

void mlsopt::populateRaiseKernelIdiomPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseRmsNorm<kernel::MulOp, kernel::RsqrtOp>,
               RaiseRmsNorm<kernel::DivOp, kernel::SqrtOp>>(
      patterns.getContext());
}
