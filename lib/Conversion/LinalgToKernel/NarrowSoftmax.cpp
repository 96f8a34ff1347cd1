//===- NarrowSoftmax.cpp - A widened safe softmax on its narrow operand ---===//
//
// Hugging Face's eager attention computes the softmax of f16 or bf16 scores
// in f32 and rounds the probabilities back (`softmax(s, dtype=float32)
// .to(s.dtype)`): a kernel.convert to f32, the safe softmax, and a
// kernel.convert back. The search sees through conversions, but computes a
// subprogram that mixes element types in f32: the attention's products
// then run as tf32 on f32 tiles, twice the shared memory of f16 ones (and
// before the search saw through them, the conversions cut the attention
// into three kernels).
//
// The safe softmax of the narrow scores is the same function, and kernel
// ops on f16 and bf16 compute in f32 and round once: max is exact, the
// difference and its exp are rounded to the narrow type (the exp lies in
// [0, 1], where rounding is relative), the sum accumulates in f32, and the
// quotient is rounded as the widened softmax's result is. The probabilities
// differ from the widened ones by a few units in the last place of the
// narrow type, not more; a difference that overflows gives an exp of 0 in
// both. Like PyTorch's allow_tf32, this trades exactness for speed by
// default; `narrow-softmax=false` keeps the widened softmax.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// Whether every user of `value` is one of `users`.
bool onlyUsedBy(Value value, ArrayRef<Operation *> users) {
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    return llvm::is_contained(users, user);
  });
}

/// convert(div(e, reduce_sum(e)), narrow) with e = exp(x - reduce_max(x))
/// and x = convert(y) widened from the same narrow type, or a scale of it,
/// over one dim, with nothing else reading the values between: the safe
/// softmax of y (or of its scale, computed in the narrow type).
struct NarrowWidenedSoftmax : public OpRewritePattern<kernel::ConvertOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto div = op.getInput().getDefiningOp<kernel::DivOp>();
    auto exp = div ? div.getLhs().getDefiningOp<kernel::ExpOp>() : nullptr;
    auto sum =
        div ? div.getRhs().getDefiningOp<kernel::ReduceSumOp>() : nullptr;
    auto sub = exp ? exp.getInput().getDefiningOp<kernel::SubOp>() : nullptr;
    auto max =
        sub ? sub.getRhs().getDefiningOp<kernel::ReduceMaxOp>() : nullptr;
    // The widened scores, scaled there or not (`scores.float() * scale`).
    auto scale =
        max ? max.getInput().getDefiningOp<kernel::MulScalarOp>() : nullptr;
    Value widened = scale ? scale.getInput() : max ? max.getInput() : Value();
    auto widen = widened ? widened.getDefiningOp<kernel::ConvertOp>() : nullptr;
    if (!widen || sum.getInput() != exp.getResult() ||
        sub.getLhs() != max.getInput() || sum.getDim() != max.getDim())
      return rewriter.notifyMatchFailure(op, "not a widened safe softmax");
    Value narrow = widen.getInput();
    if (narrow.getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "rounds to another type");
    if ((scale && !onlyUsedBy(widen.getResult(), {scale})) ||
        !onlyUsedBy(max.getInput(), {max, sub}) ||
        !onlyUsedBy(max.getResult(), {sub}) ||
        !onlyUsedBy(sub.getResult(), {exp}) ||
        !onlyUsedBy(exp.getResult(), {sum, div}) ||
        !onlyUsedBy(sum.getResult(), {div}) ||
        !onlyUsedBy(div.getResult(), {op}))
      return rewriter.notifyMatchFailure(
          op, "a widened value is read outside the softmax");
    Location loc = op.getLoc();
    uint64_t dim = max.getDim();
    // A scale rounds to the narrow type once more, as the scores it scales
    // already were by their product.
    if (scale)
      narrow = kernel::MulScalarOp::create(rewriter, loc, narrow,
                                           scale.getScalarAttr());
    Value rowMax = kernel::ReduceMaxOp::create(rewriter, loc, narrow, dim);
    Value shifted = kernel::SubOp::create(rewriter, loc, narrow, rowMax);
    Value exps = kernel::ExpOp::create(rewriter, loc, shifted);
    Value rowSum = kernel::ReduceSumOp::create(rewriter, loc, exps, dim);
    rewriter.replaceOpWithNewOp<kernel::DivOp>(op, exps, rowSum);
    return success();
  }
};

} // namespace

void mlsopt::populateNarrowSoftmaxPatterns(RewritePatternSet &patterns) {
  patterns.add<NarrowWidenedSoftmax>(patterns.getContext());
}
