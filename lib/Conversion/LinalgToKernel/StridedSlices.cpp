//===- StridedSlices.cpp - Strided slices as windows of a reshape ---------===//
//
// torch's `x[..., ::2]` and `x[..., 1::2]` (GPT-J's and ChatGLM's rotary
// embeddings, which rotate interleaved pairs) reach linalg as
// tensor.extract_slice with a stride. Kernels read slices as windows of
// their tensor (a load with offsets), and a window has no stride: such a
// slice was a copy kernel of its own. A slice with stride s along a dim of
// size n that s divides reads element `o + i s`, which is element
// `(o / s + i, o % s)` of the dim split into [n / s, s]: the slice is a
// unit-stride window of that expand_shape, with size 1 along the split-off
// dim, and the collapse_shape that drops it. The pairs a rotation then
// stacks (`torch.stack((-x2, x1), -1).flatten(-2)`) are that dim again.
//
// The stacked pairs are flattened back to [n] and multiplied by the sines;
// that collapse between kernel ops would cut the rotation from the rest of
// the embedding (a launch of its own). An elementwise kernel op of such a
// collapse computes on the pairs instead, its other operands split the same
// way (SinkSplitCollapse), and a split of an elementwise op's result splits
// its operands (HoistSplitExpand): the embedding computes on the pairs
// view of every tensor, views of the arguments, and one collapse makes the
// result. The import's own patterns move ops the other way, onto flattened
// rows (FlattenRows.cpp), so these run after them.
//
//===----------------------------------------------------------------------===//

#include "ImportSupport.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::linalg_import;

namespace {

struct StridedSliceToWindow : public OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    RankedTensorType sourceType = slice.getSourceType();
    RankedTensorType resultType = slice.getResultType();
    if (!sourceType.hasStaticShape() ||
        resultType.getRank() != sourceType.getRank() || slice.hasUnitStride())
      return rewriter.notifyMatchFailure(slice, "not a strided slice");
    std::optional<SmallVector<int64_t>> offsets =
        getConstantIntValues(slice.getMixedOffsets());
    std::optional<SmallVector<int64_t>> sizes =
        getConstantIntValues(slice.getMixedSizes());
    std::optional<SmallVector<int64_t>> strides =
        getConstantIntValues(slice.getMixedStrides());
    if (!offsets || !sizes || !strides)
      return rewriter.notifyMatchFailure(slice, "dynamic offsets or strides");
    // Each strided dim d splits into [n / s, s]; the others stay one dim.
    SmallVector<ReassociationIndices> groups;
    SmallVector<int64_t> expandedShape, windowOffsets, windowSizes;
    for (auto [d, n] : llvm::enumerate(sourceType.getShape())) {
      int64_t s = (*strides)[d], o = (*offsets)[d], k = (*sizes)[d];
      ReassociationIndices group{static_cast<int64_t>(expandedShape.size())};
      if (s == 1) {
        expandedShape.push_back(n);
        windowOffsets.push_back(o);
        windowSizes.push_back(k);
      } else {
        if (s <= 0 || n % s != 0)
          return rewriter.notifyMatchFailure(slice,
                                             "a stride that splits no dim");
        group.push_back(group.front() + 1);
        expandedShape.append({n / s, s});
        windowOffsets.append({o / s, o % s});
        windowSizes.append({k, 1});
      }
      groups.push_back(std::move(group));
    }
    Location loc = slice.getLoc();
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, sourceType.clone(expandedShape), slice.getSource(),
        groups);
    SmallVector<int64_t> unitStrides(expandedShape.size(), 1);
    Value window = tensor::ExtractSliceOp::create(
        rewriter, loc, expanded,
        getAsIndexOpFoldResult(rewriter.getContext(), windowOffsets),
        getAsIndexOpFoldResult(rewriter.getContext(), windowSizes),
        getAsIndexOpFoldResult(rewriter.getContext(), unitStrides));
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(slice, resultType,
                                                         window, groups);
    return success();
  }
};

/// Whether `groups` keep every dim but the last, which they split into (or
/// merge from) at least two dims larger than 1: the pairs view.
static bool splitsLastDimOnly(ArrayRef<ReassociationIndices> groups,
                              ArrayRef<int64_t> expandedShape) {
  if (groups.empty())
    return false;
  for (const ReassociationIndices &group : groups.drop_back())
    if (group.size() != 1)
      return false;
  return llvm::count_if(groups.back(),
                        [&](int64_t d) { return expandedShape[d] != 1; }) >= 2;
}

/// Whether every operand of `op` has its last dim, which numpy broadcasting
/// aligns with the result's, of size `n` or 1: the dim splits with the
/// result's (the [s, d] sines of a [b, h, s, d] rotation included).
static bool operandsSplit(Operation *op, int64_t n) {
  return llvm::all_of(op->getOperandTypes(), [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape() && tensor.getRank() > 0 &&
           (tensor.getShape().back() == n || tensor.getShape().back() == 1);
  });
}

/// The expand of `value` to `type` by `groups`, before `op`: one that
/// exists already (moved before `op` if it came after), or a new one. The
/// search takes two expands of one argument for two inputs and would load
/// both.
static Value getOrCreateExpand(PatternRewriter &rewriter, Operation *op,
                               Value value, RankedTensorType type,
                               ArrayRef<ReassociationIndices> groups) {
  for (Operation *user : value.getUsers()) {
    auto expand = dyn_cast<tensor::ExpandShapeOp>(user);
    if (!expand || expand.getResultType() != type ||
        expand.getReassociationIndices() != groups ||
        expand->getBlock() != op->getBlock())
      continue;
    if (op->isBeforeInBlock(expand))
      rewriter.moveOpBefore(expand, op);
    return expand.getResult();
  }
  rewriter.setInsertionPoint(op);
  return tensor::ExpandShapeOp::create(rewriter, op->getLoc(), type, value,
                                       groups);
}

/// `value` with its last dim split into `sizes` (or, where it has size 1,
/// into as many size-1 dims), read by `op`.
static Value splitLastDim(PatternRewriter &rewriter, Operation *op, Value value,
                          ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape().drop_back());
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 1 < rank; ++d)
    groups.push_back({d});
  ReassociationIndices last;
  for (int64_t size : sizes) {
    last.push_back(static_cast<int64_t>(shape.size()));
    shape.push_back(type.getShape().back() == 1 ? 1 : size);
  }
  groups.push_back(std::move(last));
  return getOrCreateExpand(rewriter, op, value, type.clone(shape), groups);
}

/// `op` computed on its operands with their last dims split into `sizes`,
/// the result having shape `shape`; an operand in `given` is used as it is.
static Value computeSplit(PatternRewriter &rewriter, Operation *op,
                          ArrayRef<int64_t> sizes, ArrayRef<int64_t> shape,
                          llvm::function_ref<Value(Value)> given) {
  SmallVector<Value> operands;
  for (Value operand : op->getOperands()) {
    Value split = given(operand);
    operands.push_back(split ? split
                             : splitLastDim(rewriter, op, operand, sizes));
  }
  rewriter.setInsertionPoint(op);
  Operation *computed = rewriter.clone(*op);
  rewriter.modifyOpInPlace(computed, [&] {
    computed->setOperands(operands);
    computed->getResult(0).setType(
        cast<RankedTensorType>(op->getResult(0).getType()).clone(shape));
  });
  return computed->getResult(0);
}

/// The sizes of the last group of `groups` in `shape`.
static SmallVector<int64_t>
lastGroupSizes(ArrayRef<ReassociationIndices> groups, ArrayRef<int64_t> shape) {
  return llvm::map_to_vector(groups.back(),
                             [&](int64_t d) { return shape[d]; });
}

/// op(collapse(a), b, ...) -> collapse(op(a, expand(b), ...)) for a
/// collapse of the pairs view of a value some op computes (an argument's
/// collapse is a view the op reads as well as any other), of the op's
/// result shape.
struct SinkSplitCollapse : public RewritePattern {
  SinkSplitCollapse(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseKernelOp(op))
      return rewriter.notifyMatchFailure(op, "not an elementwise kernel op");
    Type resultType = op->getResult(0).getType();
    tensor::CollapseShapeOp collapse;
    for (Value operand : op->getOperands())
      if (auto c = operand.getDefiningOp<tensor::CollapseShapeOp>();
          c && c.getSrc().getDefiningOp() && c.getType() == resultType &&
          c.getSrcType().hasStaticShape() &&
          splitsLastDimOnly(c.getReassociationIndices(),
                            c.getSrcType().getShape()))
        collapse = c;
    if (!collapse ||
        !operandsSplit(op,
                       cast<RankedTensorType>(resultType).getShape().back()))
      return rewriter.notifyMatchFailure(op, "reads no pairs collapse");
    RankedTensorType sourceType = collapse.getSrcType();
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    Value computed = computeSplit(
        rewriter, op, lastGroupSizes(groups, sourceType.getShape()),
        sourceType.getShape(), [&](Value operand) -> Value {
          auto c = operand.getDefiningOp<tensor::CollapseShapeOp>();
          if (c && c.getSrcType() == sourceType &&
              c.getReassociationIndices() == groups)
            return c.getSrc();
          return {};
        });
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, resultType,
                                                         computed, groups);
    return success();
  }
};

/// expand(op(a, b, ...)) -> op(expand(a), expand(b), ...) for an expand to
/// the pairs view of an op read by nothing else.
struct HoistSplitExpand : public OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    Operation *op = expand.getSrc().getDefiningOp();
    RankedTensorType type = expand.getResultType();
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    if (!isElementwiseKernelOp(op) || !op->hasOneUse() ||
        !type.hasStaticShape() || !splitsLastDimOnly(groups, type.getShape()) ||
        !operandsSplit(op, expand.getSrcType().getShape().back()))
      return rewriter.notifyMatchFailure(
          expand, "not a pairs expand of an elementwise op");
    Value computed =
        computeSplit(rewriter, op, lastGroupSizes(groups, type.getShape()),
                     type.getShape(), [](Value) { return Value(); });
    rewriter.replaceOp(expand, computed);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlsopt::populateStridedSlicePatterns(RewritePatternSet &patterns) {
  patterns.add<StridedSliceToWindow>(patterns.getContext());
}

void mlsopt::populatePairsViewPatterns(RewritePatternSet &patterns) {
  patterns.add<HoistSplitExpand, SinkSplitCollapse>(patterns.getContext());
}
