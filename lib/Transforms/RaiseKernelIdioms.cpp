//===- RaiseKernelIdioms.cpp - Decomposed normalizations as one op --------===//
//
// Front ends spell RMSNorm out: x * rsqrt(mean(x^2) + eps), five or six
// kernel ops. The search counts kernel ops against `max-kernel-ops` and
// knows how to split kernel.rms_norm across a for-loop, so the spelled-out
// form is raised to the one op first. The match is exact: the square, sum
// and mean are over one dim d (any dim: a key stored transposed, [h, d, n],
// is normalized over dim 1) and the mean's factor is 1/n for d's extent n.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/Constants.h"
#include "mlsopt/Transforms/KernelIdioms.h"
#include "mlsopt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlsopt {
#define GEN_PASS_DEF_RAISEKERNELIDIOMS
#include "mlsopt/Transforms/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

/// The sum of sum(x, d) * f for f the 1/n of d's extent n: the mean of x
/// over d. 1/n as the front end wrote it, rounded to its element type, is
/// the constant the verifier reads as 1/n, n being an extent of the
/// function (mlsopt/Support/Constants.h).
static kernel::ReduceSumOp matchMean(Value value) {
  auto mean = value.getDefiningOp<kernel::MulScalarOp>();
  auto sum = mean ? mean.getInput().getDefiningOp<kernel::ReduceSumOp>()
                  : kernel::ReduceSumOp();
  if (!sum)
    return {};
  int64_t n = cast<RankedTensorType>(sum.getInput().getType())
                  .getDimSize(static_cast<int64_t>(sum.getDim()));
  double factor = mean.getScalar().convertToDouble();
  if (factor != 1.0 / static_cast<double>(n) &&
      getRoundedReciprocal(factor, {n}) != n)
    return {};
  return sum;
}

namespace {
/// mul(x, rsqrt(add_scalar(mul_scalar(reduce_sum(square(x), d), 1/n),
/// eps))) (either operand order) or div(x, sqrt(...)) -> rms_norm(x) over d.
template <typename OpTy, typename RootTy>
struct RaiseRmsNorm : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  /// The normalized dim and its epsilon.
  struct Match {
    int64_t dim;
    double epsilon;
  };

  /// The dim and epsilon if `scale` is the rms (under RootTy) of `x` over
  /// one dim.
  static std::optional<Match> matchScale(Value x, Value scale) {
    auto root = scale.getDefiningOp<RootTy>();
    if (!root)
      return std::nullopt;
    auto addEps = root.getInput().template getDefiningOp<kernel::AddScalarOp>();
    if (!addEps)
      return std::nullopt;
    kernel::ReduceSumOp sum = matchMean(addEps.getInput());
    if (!sum)
      return std::nullopt;
    auto square = sum.getInput().template getDefiningOp<kernel::SquareOp>();
    if (!square || square.getInput() != x)
      return std::nullopt;
    return Match{static_cast<int64_t>(sum.getDim()),
                 addEps.getScalar().convertToDouble()};
  }

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<Match> match = matchScale(op.getLhs(), op.getRhs());
    Value x = op.getLhs();
    if (!match && std::is_same_v<OpTy, kernel::MulOp>) {
      match = matchScale(op.getRhs(), op.getLhs());
      x = op.getRhs();
    }
    if (!match || x.getType() != op.getType())
      return failure();
    rewriter.replaceOpWithNewOp<kernel::RmsNormOp>(op, x, match->epsilon,
                                                   match->dim);
    return success();
  }
};

/// sub(mean(square(x)), square(mean(x))) over one dim, the one-pass
/// variance (a LayerNorm that sums x and x^2 in one sweep) ->
/// mean(square(x - mean(x))), the two-pass one, on the centred x that the
/// norm already computes where it does. The two are equal in exact
/// arithmetic and over the verifier's field; the two-pass variance is the
/// more accurate in floating point. RaiseRmsNorm then takes the norm as
/// rms_norm(x - mean(x)), a LayerNorm, one kernel: the one-pass form of an
/// f16 LayerNorm with f32 statistics was four launches.
struct CentreOnePassVariance : OpRewritePattern<kernel::SubOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::SubOp op,
                                PatternRewriter &rewriter) const override {
    auto squaredMean = op.getRhs().getDefiningOp<kernel::SquareOp>();
    kernel::ReduceSumOp sum =
        squaredMean ? matchMean(squaredMean.getInput()) : kernel::ReduceSumOp();
    if (!sum)
      return rewriter.notifyMatchFailure(op, "not a mean squared subtracted");
    Value x = sum.getInput();
    Value mean = squaredMean.getInput();
    kernel::ReduceSumOp sumOfSquares = matchMean(op.getLhs());
    auto square =
        sumOfSquares ? sumOfSquares.getInput().getDefiningOp<kernel::SquareOp>()
                     : kernel::SquareOp();
    if (!square || square.getInput() != x ||
        sumOfSquares.getDim() != sum.getDim())
      return rewriter.notifyMatchFailure(op, "not the one-pass variance");
    // The centred x the norm computes, moved before the variance where it
    // comes after (its operands come before: the variance reads both).
    Value centred;
    for (Operation *user : mean.getUsers()) {
      auto sub = dyn_cast<kernel::SubOp>(user);
      if (!sub || sub.getLhs() != x || sub.getRhs() != mean ||
          sub->getBlock() != op->getBlock())
        continue;
      if (op->isBeforeInBlock(sub))
        rewriter.moveOpBefore(sub, op);
      centred = sub.getResult();
      break;
    }
    Location loc = op.getLoc();
    if (!centred)
      centred = kernel::SubOp::create(rewriter, loc, x, mean).getResult();
    Value squares = kernel::SquareOp::create(rewriter, loc, centred);
    Value sums =
        kernel::ReduceSumOp::create(rewriter, loc, squares, sum.getDim());
    rewriter.replaceOpWithNewOp<kernel::MulScalarOp>(
        op, sums,
        op.getLhs().getDefiningOp<kernel::MulScalarOp>().getScalarAttr());
    return success();
  }
};

/// A binary op's operand of lower rank read as one of the result's rank.
template <typename OpTy>
struct AlignOperandRank : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = cast<RankedTensorType>(operand.get().getType());
      if (type.getRank() >= rank || !type.hasStaticShape())
        continue;
      int64_t missing = rank - type.getRank();
      SmallVector<int64_t> shape(missing, 1);
      llvm::append_range(shape, type.getShape());
      // The leading size-1 dims join the first dim; a rank-0 operand
      // expands with no groups.
      SmallVector<ReassociationIndices> groups;
      for (int64_t d = 0; d < type.getRank(); ++d)
        groups.push_back({missing + d});
      if (!groups.empty())
        for (int64_t d = missing - 1; d >= 0; --d)
          groups.front().insert(groups.front().begin(), d);
      Value expanded = tensor::ExpandShapeOp::create(
          rewriter, op.getLoc(),
          RankedTensorType::get(shape, type.getElementType()), operand.get(),
          groups);
      rewriter.modifyOpInPlace(op, [&] { operand.set(expanded); });
      return success();
    }
    return rewriter.notifyMatchFailure(op, "operands have the result's rank");
  }
};

/// mul_scalar(matmul(a, b), c) -> matmul(mul_scalar(a, c), b), or with b
/// scaled, whichever operand is smaller, when it is smaller than the
/// product. Attention scales its scores (Q K) / sqrt(d): scaled there, the
/// scale is one more op on the scores, which the cut must keep with them
/// (a safe attention with a scale counted six ops, over the default five)
/// and which a split kernel spends a block op on; on Q it is an op on a
/// small tensor that the cut may leave alone and that then runs on Q's
/// tiles inside the attention's kernel (--fuse-kernel-elementwise). The
/// two are equal in exact arithmetic (and over the verifier's field).
struct ScaleSmallerMatmulOperand : OpRewritePattern<kernel::MulScalarOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::MulScalarOp op,
                                PatternRewriter &rewriter) const override {
    auto matmul = op.getInput().getDefiningOp<kernel::MatmulOp>();
    if (!matmul || !matmul->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not the only use of a matmul");
    auto elements = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getNumElements();
    };
    bool left = elements(matmul.getLhs()) <= elements(matmul.getRhs());
    Value operand = left ? matmul.getLhs() : matmul.getRhs();
    if (elements(operand) >= elements(op.getResult()))
      return rewriter.notifyMatchFailure(op, "no operand is smaller");
    Value scaled = kernel::MulScalarOp::create(rewriter, op.getLoc(), operand,
                                               op.getScalarAttr());
    Value product = kernel::MatmulOp::create(rewriter, matmul.getLoc(),
                                             left ? scaled : matmul.getLhs(),
                                             left ? matmul.getRhs() : scaled);
    rewriter.replaceOp(op, product);
    rewriter.eraseOp(matmul);
    return success();
  }
};

/// matmul([..., m, 1], [..., 1, n]) -> mul: a contraction over one element
/// is the outer product, which numpy broadcasting spells exactly. The
/// search treats size-1 dims as broadcasts and cannot contract over one: a
/// LoRA of rank 1 ((X A) B with A [k, 1]) was left unfused.
struct OuterProductMatmul : OpRewritePattern<kernel::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = cast<RankedTensorType>(op.getLhs().getType());
    auto rhs = cast<RankedTensorType>(op.getRhs().getType());
    if (lhs.getShape().back() != 1 || lhs.getRank() != rhs.getRank())
      return rewriter.notifyMatchFailure(op, "contracts over more than one");
    auto product =
        kernel::MulOp::create(rewriter, op.getLoc(), op.getLhs(), op.getRhs());
    if (product.getType() != op.getType()) {
      rewriter.eraseOp(product);
      return rewriter.notifyMatchFailure(op, "batch dims broadcast");
    }
    rewriter.replaceOp(op, product);
    return success();
  }
};

/// reduce_sum or reduce_max over a dim of size 1 -> its operand, which has
/// the result's type: the search, for which size-1 dims are broadcasts,
/// cannot reduce over one (an attention over one key got no search).
template <typename OpTy> struct ReduceOverOne : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op.getInput().getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "reduces more than one element");
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

/// convert(rms_norm(convert(x) to f32)) back to x's f16 or bf16 ->
/// rms_norm(x), when nothing else reads the values between: Hugging Face's
/// LLaMA norm, which widens its input, normalizes and rounds back. The
/// narrow op is the same function with the same one rounding (kernel ops
/// on f16 and bf16 compute in f32 and round once), and a subprogram of one
/// element type keeps its matmul's operands narrow: computed in f32, the
/// norm and the product after it took the search to its timeout, and the
/// kernel it found was slower than this one.
struct NarrowWidenedRmsNorm : OpRewritePattern<kernel::ConvertOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto norm = op.getInput().getDefiningOp<kernel::RmsNormOp>();
    auto widen =
        norm ? norm.getInput().getDefiningOp<kernel::ConvertOp>() : nullptr;
    // Widened to f32 and rounded back, not the other way round: an f32
    // norm of values rounded to f16 keeps both roundings.
    Type narrow = op.getType().getElementType();
    if (!widen || widen.getInput().getType() != op.getType() ||
        !norm->hasOneUse() || !widen->hasOneUse() ||
        !(narrow.isF16() || narrow.isBF16()) ||
        !norm.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a widened rms_norm");
    rewriter.replaceOpWithNewOp<kernel::RmsNormOp>(
        op, widen.getInput(), norm.getEpsilon().convertToDouble(),
        norm.getNormalizedDim());
    return success();
  }
};

/// The kernel op computing `value` if it is a one-operand elementwise op
/// or a conversion of a value of the same shape that only it reads, else
/// null.
static Operation *getUnaryProducer(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op || !isa_and_nonnull<kernel::KernelDialect>(op->getDialect()) ||
      !(op->hasTrait<OpTrait::ElementwiseByIndex>() ||
        isa<kernel::ConvertOp>(op)) ||
      op->getNumOperands() != 1 || op->getNumResults() != 1 ||
      !op->getResult(0).hasOneUse() ||
      cast<RankedTensorType>(op->getOperand(0).getType()).getShape() !=
          cast<RankedTensorType>(value.getType()).getShape())
    return nullptr;
  return op;
}

/// `value` expanded to `type` by `groups` for `user`: the expand of it
/// before `user` in its block, or a new one where `value` is defined. Two ops
/// of one mask (a finite fill's keep and fill wheres of a [t, s] mask on [b, h,
/// t, s] scores) thus read one expand of it, which the kernel that applies them
/// loads once rather than twice.
static Value getExpanded(PatternRewriter &rewriter, Location loc,
                         Operation *user, Value value, RankedTensorType type,
                         ArrayRef<ReassociationIndices> groups) {
  for (Operation *other : value.getUsers()) {
    auto existing = dyn_cast<tensor::ExpandShapeOp>(other);
    if (existing && existing->getBlock() == user->getBlock() &&
        existing->isBeforeInBlock(user) && existing.getResultType() == type &&
        existing.getReassociationIndices() == groups)
      return existing.getResult();
  }
  OpBuilder::InsertionGuard guard(rewriter);
  if (Operation *def = value.getDefiningOp())
    rewriter.setInsertionPointAfter(def);
  else
    rewriter.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  return tensor::ExpandShapeOp::create(rewriter, loc, type, value, groups);
}

/// The expand that AlignOperandRank puts on an operand goes up past the
/// unary elementwise ops and conversions that compute it (a batch norm's
/// sqrt(var + eps), an f16 LayerNorm's gain widened to f32: the kernel
/// that reads it then converts as it loads), which compute the same on the
/// expanded shape: a reshape between kernel ops ends a subprogram and
/// hides the op from the kernel that reads it, so those ops were launches
/// of their own; above them the reshape is a view of an argument. Only
/// where the chain starts at a value no kernel op computes: above a chain
/// that starts at a matmul (a 3-D linear layer's silu, imported on the
/// flattened rows), the reshape would part the chain from the kernel that
/// it is an epilogue of.
struct HoistExpandAboveUnary : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern<tensor::ExpandShapeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    Operation *op = getUnaryProducer(expand.getSrc());
    if (!op)
      return rewriter.notifyMatchFailure(expand, "not of a unary op");
    Operation *root = op;
    while (Operation *above = getUnaryProducer(root->getOperand(0)))
      root = above;
    Operation *start = root->getOperand(0).getDefiningOp();
    if (start && isa<kernel::KernelDialect>(start->getDialect()))
      return rewriter.notifyMatchFailure(expand, "of a computed value");
    auto operandType = cast<RankedTensorType>(op->getOperand(0).getType());
    Value operand =
        getExpanded(rewriter, expand.getLoc(), op, op->getOperand(0),
                    RankedTensorType::get(expand.getResultType().getShape(),
                                          operandType.getElementType()),
                    expand.getReassociationIndices());
    rewriter.setInsertionPoint(op);
    Operation *moved = rewriter.clone(*op);
    rewriter.modifyOpInPlace(moved, [&] {
      moved->setOperand(0, operand);
      moved->getResult(0).setType(expand.getResultType());
    });
    rewriter.replaceOp(expand, moved->getResults());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The patterns alone, for testing them and for pipelines that want the
/// raised form without a search.
struct RaiseKernelIdiomsPass
    : mlsopt::impl::RaiseKernelIdiomsBase<RaiseKernelIdiomsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateRaiseKernelIdiomPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlsopt::populateAlignOperandRankPatterns(RewritePatternSet &patterns) {
  patterns.add<AlignOperandRank<kernel::AddOp>, AlignOperandRank<kernel::SubOp>,
               AlignOperandRank<kernel::MulOp>, AlignOperandRank<kernel::DivOp>,
               AlignOperandRank<kernel::MaxOp>, AlignOperandRank<kernel::MinOp>,
               HoistExpandAboveUnary>(patterns.getContext());
}

namespace {
/// mul(x, x) -> square(x), the same value: StableHLO's and JAX's variance
/// squares by a multiply (`multiply(d, d)`), which the norm patterns, the
/// search's abstract expressions and the cost model take as one square
/// (a bf16 LayerNorm written so was two launches, not raised to rms_norm).
struct MulSelfToSquare : OpRewritePattern<kernel::MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::MulOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getLhs() != op.getRhs())
      return rewriter.notifyMatchFailure(op, "not a product of one value");
    rewriter.replaceOpWithNewOp<kernel::SquareOp>(op, op.getLhs());
    return success();
  }
};
} // namespace

void mlsopt::populateRaiseKernelIdiomPatterns(RewritePatternSet &patterns) {
  patterns
      .add<MulSelfToSquare, RaiseRmsNorm<kernel::MulOp, kernel::RsqrtOp>,
           RaiseRmsNorm<kernel::DivOp, kernel::SqrtOp>, CentreOnePassVariance,
           NarrowWidenedRmsNorm, ScaleSmallerMatmulOperand, OuterProductMatmul,
           ReduceOverOne<kernel::ReduceSumOp>,
           ReduceOverOne<kernel::ReduceMaxOp>>(patterns.getContext());
  populateHoistTransposePatterns(patterns);
}
