//===- FlattenRows.cpp - Kernel ops onto the rows a matmul flattened ------===//
//
// A front end lowers a linear layer on a [batch, seq, hidden] activation as a
// tensor.collapse_shape to [batch * seq, hidden], a matmul, and a
// tensor.expand_shape back (FlattenedRowsToMatmul makes the same of a
// batch_matmul by a broadcast weight). The normalizations, activations and
// residual adds around the layers stay on the 3-D shape, so every layer is
// fenced by reshapes: the search partitions a program at each one and the
// GPU pipeline launches each piece on its own (an RMSNorm, gated MLP and
// residual block on [2, 4, 64] took six launches, three on the rows).
//
// The patterns here move those ops onto the flattened rows instead: an op
// that reads an expand computes on the expand's source and is expanded
// after, and a collapse of an op's result is computed by the op on collapsed
// operands. Expands then sink to the results and collapses rise to the
// arguments, where both are views of device memory. Each rewrite takes one op
// off the higher-rank shape and none puts one back, so the rewriting ends.
//
// Reshapes that only add or drop a reduced size-1 dim (which linalg drops
// and a kernel reduction keeps) are left to the import's unit-dim patterns;
// a batch of one, [1, seq, hidden] collapsed to [seq, hidden], is rows too
// (isRowsReshape says which is which).
// An op flattens only where its dims allow it: a reduced or normalized dim
// must stay a dim of its own, and a broadcast operand must be constant
// along, or span, each group of merged dims.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
using namespace mlsopt;

namespace {

using Groups = SmallVector<ReassociationIndices>;

/// Whether the op that computes `value` is one that flattens.
bool isComputedByFlattenable(Value value) {
  Operation *def = value.getDefiningOp();
  return def && flattensOnRows(def);
}

/// Whether `op` flattens here. A conversion flattens only where the value
/// it converts is computed by an op that flattens too, so that the reshape
/// moves on past it; elsewhere the mixed-precision patterns move it towards
/// the op that computes or reads the converted value (a batch matmul's
/// result converts before its collapse, and the kernel stores it
/// converted), and the two never take the same conversion.
bool isFlattenable(Operation *op) {
  if (!flattensOnRows(op))
    return false;
  auto convert = dyn_cast<kernel::ConvertOp>(op);
  return !convert || isComputedByFlattenable(convert.getInput());
}

} // namespace

std::optional<int64_t> mlsopt::getWorkingDim(Operation *op) {
  if (auto sum = dyn_cast<kernel::ReduceSumOp>(op))
    return static_cast<int64_t>(sum.getDim());
  if (auto max = dyn_cast<kernel::ReduceMaxOp>(op))
    return static_cast<int64_t>(max.getDim());
  if (auto norm = dyn_cast<kernel::RmsNormOp>(op))
    return norm.getNormalizedDim();
  return std::nullopt;
}

void mlsopt::setWorkingDim(RewriterBase &rewriter, Operation *op, int64_t dim) {
  int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  rewriter.modifyOpInPlace(op, [&] {
    if (auto sum = dyn_cast<kernel::ReduceSumOp>(op))
      sum.setDim(dim);
    else if (auto max = dyn_cast<kernel::ReduceMaxOp>(op))
      max.setDim(dim);
    else if (auto norm = dyn_cast<kernel::RmsNormOp>(op))
      // The last dim is spelled by leaving `dim` out (RmsNormOp::fold).
      norm.setDimAttr(dim + 1 == rank ? IntegerAttr()
                                      : rewriter.getI64IntegerAttr(dim));
  });
}

namespace {

/// Where `op` reads a `value` that broadcasts against its result shape
/// `shape` (numpy: aligned on the right, missing dims are 1), the shape it
/// has on the rows `groups` flatten `shape` into; none when a group merges
/// dims along which the value is neither constant nor whole.
std::optional<SmallVector<int64_t>>
getFlatOperandShape(ArrayRef<int64_t> operandShape, ArrayRef<int64_t> shape,
                    ArrayRef<ReassociationIndices> groups) {
  int64_t rank = shape.size();
  int64_t operandRank = operandShape.size();
  if (operandRank == 0 || operandRank > rank)
    return std::nullopt;
  SmallVector<int64_t> aligned(rank - operandRank, 1);
  llvm::append_range(aligned, operandShape);
  SmallVector<int64_t> flat;
  for (const ReassociationIndices &group : groups) {
    if (group.size() == 1) {
      flat.push_back(aligned[group[0]]);
      continue;
    }
    if (llvm::all_of(group, [&](int64_t d) { return aligned[d] == 1; })) {
      flat.push_back(1);
      continue;
    }
    if (!llvm::all_of(group, [&](int64_t d) { return aligned[d] == shape[d]; }))
      return std::nullopt;
    int64_t product = 1;
    for (int64_t d : group)
      product *= shape[d];
    flat.push_back(product);
  }
  return flat;
}

/// `value` reshaped to `flatShape`, which getFlatOperandShape derived from
/// it under `groups` of the result shape `shape`: one collapse or expand
/// where one does it, else the value aligned to `shape`'s rank and collapsed
/// by `groups`. Views only, no data moves.
Value reshapeToFlat(OpBuilder &b, Location loc, Value value,
                    ArrayRef<int64_t> flatShape, ArrayRef<int64_t> shape,
                    ArrayRef<ReassociationIndices> groups) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == flatShape)
    return value;
  auto flatType = RankedTensorType::get(flatShape, type.getElementType());
  // An operand of the result's rank collapses by the result's groups: the
  // groups getReassociationIndicesForReshape would pick may put a size-1
  // dim elsewhere ([1, 1, h] to [1, h] as [[0], [1, 2]]), and such a
  // collapse is no collapse to rows that the patterns here move on.
  if (type.getRank() == static_cast<int64_t>(shape.size()))
    return tensor::CollapseShapeOp::create(b, loc, flatType, value, groups);
  if (std::optional<Groups> direct =
          getReassociationIndicesForReshape(type, flatType)) {
    if (type.getRank() > flatType.getRank())
      return tensor::CollapseShapeOp::create(b, loc, flatType, value, *direct);
    return tensor::ExpandShapeOp::create(b, loc, flatType, value, *direct);
  }
  int64_t missing = shape.size() - type.getRank();
  SmallVector<int64_t> aligned(missing, 1);
  llvm::append_range(aligned, type.getShape());
  if (missing > 0) {
    // The added leading size-1 dims join the first dim's group.
    Groups toAligned;
    for (int64_t d = 0; d < type.getRank(); ++d)
      toAligned.push_back({d + missing});
    for (int64_t d = missing - 1; d >= 0; --d)
      toAligned.front().insert(toAligned.front().begin(), d);
    value = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(aligned, type.getElementType()), value,
        toAligned);
  }
  return tensor::CollapseShapeOp::create(b, loc, flatType, value, groups);
}

/// `op` computed on the rows `groups` flatten its result into, reading
/// `flatOperands` (operand i replaced where it is set, else reshaped); null
/// when its dims do not allow it.
Operation *createFlatOp(PatternRewriter &rewriter, Operation *op,
                        ArrayRef<ReassociationIndices> groups,
                        ArrayRef<Value> flatOperands) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> shape = resultType.getShape();
  // A reduced or normalized dim must stay a dim of its own: its index on
  // the flat rows is its group's.
  std::optional<int64_t> flatDim;
  if (std::optional<int64_t> dim = getWorkingDim(op)) {
    for (auto [index, group] : llvm::enumerate(groups))
      if (llvm::is_contained(group, *dim)) {
        if (group.size() != 1)
          return nullptr;
        flatDim = index;
      }
  }
  SmallVector<SmallVector<int64_t>> operandShapes;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    if (flatOperands[i])
      continue;
    std::optional<SmallVector<int64_t>> flatShape = getFlatOperandShape(
        cast<RankedTensorType>(operand.getType()).getShape(), shape, groups);
    if (!flatShape)
      return nullptr;
    operandShapes.push_back(std::move(*flatShape));
  }
  SmallVector<Value> operands;
  auto nextShape = operandShapes.begin();
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    operands.push_back(flatOperands[i]
                           ? flatOperands[i]
                           : reshapeToFlat(rewriter, op->getLoc(), operand,
                                           *nextShape++, shape, groups));
  // The result spans every group.
  SmallVector<int64_t> flatShape = *getFlatOperandShape(shape, shape, groups);
  Operation *flat = mlir::clone(
      rewriter, op,
      RankedTensorType::get(flatShape, resultType.getElementType()), operands);
  if (flatDim)
    setWorkingDim(rewriter, flat, *flatDim);
  return flat;
}

/// An op that reads an expand of the rows it would have flat computes on the
/// expand's source and is expanded after:
/// `silu(expand(matmul))` is `expand(silu(matmul))`.
struct FlattenOpOfExpand : public RewritePattern {
  FlattenOpOfExpand(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isFlattenable(op))
      return rewriter.notifyMatchFailure(op, "not an op this flattens");
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    // The reduced dim has size 1 in a reduction's result; its operand has
    // the shape the expand must give.
    ArrayRef<int64_t> fullShape =
        isa<kernel::ReduceSumOp, kernel::ReduceMaxOp>(op)
            ? cast<RankedTensorType>(op->getOperand(0).getType()).getShape()
            : resultType.getShape();
    // An expand of the op's shape, or of a shape numpy broadcasting
    // stretches to it along dims the expand keeps whole (the [b, s, 1]
    // gate of x * sigmoid(x w), which scales each row of x).
    auto expandOfRows = [&](Value value) {
      auto expand = value.getDefiningOp<tensor::ExpandShapeOp>();
      if (!expand)
        return tensor::ExpandShapeOp();
      ArrayRef<int64_t> expanded = expand.getResultType().getShape();
      Groups groups = expand.getReassociationIndices();
      if (expanded.size() != fullShape.size() ||
          !isRowsReshape(expanded, groups))
        return tensor::ExpandShapeOp();
      for (const ReassociationIndices &group : groups)
        for (int64_t d : group)
          if (expanded[d] != fullShape[d] &&
              (group.size() != 1 || expanded[d] != 1))
            return tensor::ExpandShapeOp();
      return expand;
    };
    for (Value operand : op->getOperands()) {
      tensor::ExpandShapeOp expand = expandOfRows(operand);
      if (!expand)
        continue;
      Groups groups = expand.getReassociationIndices();
      // Every operand that is an expand the same way reads its source.
      SmallVector<Value> flatOperands;
      for (Value other : op->getOperands()) {
        tensor::ExpandShapeOp otherExpand = expandOfRows(other);
        flatOperands.push_back(
            otherExpand && otherExpand.getReassociationIndices() == groups
                ? otherExpand.getSrc()
                : Value());
      }
      Operation *flat = createFlatOp(rewriter, op, groups, flatOperands);
      if (!flat)
        continue;
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          op, resultType, flat->getResult(0), groups);
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "reads no expand of rows it can compute on");
  }
};

/// A collapse of an op's result is the op computed on collapsed operands:
/// `collapse(rms_norm(x))` is `rms_norm(collapse(x))`. The op's other users
/// read it expanded back, which FlattenOpOfExpand then flattens in turn.
struct FlattenOpUnderCollapse
    : public OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern<tensor::CollapseShapeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    Operation *op = collapse.getSrc().getDefiningOp();
    if (!op || !isFlattenable(op) || !isRowsCollapse(collapse))
      return rewriter.notifyMatchFailure(collapse,
                                         "collapses no op this flattens");
    // A reduction's operand differs from its result in the reduced dim,
    // which is a group of its own; the groups are the same for both.
    Groups groups = collapse.getReassociationIndices();
    SmallVector<Value> flatOperands(op->getNumOperands());
    // At the op, not the collapse: the op's other users, which read the
    // flat result expanded back, may come before the collapse.
    rewriter.setInsertionPoint(op);
    Operation *flat = createFlatOp(rewriter, op, groups, flatOperands);
    if (!flat)
      return rewriter.notifyMatchFailure(collapse,
                                         "the op's dims do not flatten");
    rewriter.replaceOp(collapse, flat->getResult(0));
    if (!op->use_empty())
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          op, op->getResult(0).getType(), flat->getResult(0), groups);
    else
      rewriter.eraseOp(op);
    return success();
  }
};

/// A collapse whose last group holds nothing but size-1 dims, the innermost
/// among them, merges them into the group before it instead: the same view
/// of the same elements. Linalg drops a reduced dim that a kernel reduction
/// keeps, and on a decode step ([1, 1, hidden]) the row sums [1, 1, 1] come
/// back to [1, 1] as [[0], [1, 2]], which reads as dropping the reduced dim
/// and fences the reduction off the rows. [[0, 1], [2]] reads as the one
/// row, so the reduction flattens with the ops around it (and an RMSNorm is
/// raised whole, as on [2, 1, hidden]).
struct UnitDimsIntoRows : public OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern<tensor::CollapseShapeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    Groups groups = collapse.getReassociationIndices();
    if (groups.size() < 2 || groups.back().size() < 2 ||
        !isComputedByFlattenable(collapse.getSrc()) ||
        llvm::any_of(groups.back(), [&](int64_t d) { return shape[d] != 1; }))
      return rewriter.notifyMatchFailure(collapse, "not unit dims last");
    ReassociationIndices &last = groups.back();
    ReassociationIndices &before = groups[groups.size() - 2];
    before.append(last.begin(), last.end() - 1);
    last.erase(last.begin(), last.end() - 1);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        collapse, collapse.getResultType(), collapse.getSrc(), groups);
    return success();
  }
};

/// Two equal reshapes of one value are one: a front end collapses an
/// activation once per linear layer that reads it, and the search would see
/// the copies as different inputs and load them twice.
template <typename ReshapeOp>
struct MergeEqualReshapes : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern<ReshapeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp reshape,
                                PatternRewriter &rewriter) const override {
    for (Operation *user : reshape.getSrc().getUsers()) {
      auto other = dyn_cast<ReshapeOp>(user);
      // Static only: a dynamic expand's sizes are operands
      // (`output_shape`) that type and groups do not fix.
      if (!other || other == reshape || !reshape.getType().hasStaticShape() ||
          other->getBlock() != reshape->getBlock() ||
          !other->isBeforeInBlock(reshape) ||
          other.getType() != reshape.getType() ||
          other.getReassociationIndices() != reshape.getReassociationIndices())
        continue;
      rewriter.replaceOp(reshape, other.getResult());
      return success();
    }
    return rewriter.notifyMatchFailure(reshape, "no equal reshape before it");
  }
};

} // namespace

bool mlsopt::isRowsReshape(ArrayRef<int64_t> shape,
                           ArrayRef<ReassociationIndices> groups) {
  return llvm::any_of(groups, [&](const ReassociationIndices &group) {
    auto isReal = [&](int64_t d) { return shape[d] != 1; };
    // Two dims larger than 1: [batch, seq] and batch * seq rows.
    if (llvm::count_if(group, isReal) > 1)
      return true;
    // Size-1 dims before a larger one that is not the innermost dim: a
    // batch of one, [1, seq] and seq rows of [1, seq, hidden]. Size-1 dims
    // after it, or before the innermost dim ([1, n] of a reduction over
    // dim 0), are a reduced dim that a reduction keeps and linalg drops,
    // which the import's unit-dim patterns move.
    int64_t innermost = static_cast<int64_t>(shape.size()) - 1;
    if (group.size() < 2 || group.back() == innermost)
      return false;
    // Only size-1 dims: one token of a batch of one, [1, 1] and the one row
    // of [1, 1, hidden] (a decode step).
    if (llvm::none_of(group, isReal))
      return true;
    return !isReal(group.front()) && isReal(group.back());
  });
}

/// Whether size-1 dim `dim` of `value` may be a dim a reduction kept: the
/// value is a reduction over it, or an elementwise op of one. Ops not yet
/// imported may be reductions; arguments and matmul results are not.
static bool mayBeKeptReducedDim(Value value, int64_t dim, unsigned depth = 0) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  // Deep chains are rare; assume the worst rather than walk them all.
  if (depth > 16)
    return true;
  if (isa<kernel::MatmulOp>(op))
    return false;
  if (auto sum = dyn_cast<kernel::ReduceSumOp>(op))
    return static_cast<int64_t>(sum.getDim()) == dim ||
           mayBeKeptReducedDim(sum.getInput(), dim, depth + 1);
  if (auto max = dyn_cast<kernel::ReduceMaxOp>(op))
    return static_cast<int64_t>(max.getDim()) == dim ||
           mayBeKeptReducedDim(max.getInput(), dim, depth + 1);
  if (!isa<kernel::KernelDialect>(op->getDialect()) ||
      !(op->hasTrait<OpTrait::ElementwiseByIndex>() ||
        isa<kernel::RmsNormOp, kernel::ConvertOp>(op)))
    return true;
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    auto type = cast<RankedTensorType>(operand.getType());
    // Numpy broadcasting aligns the operand's dims on the right.
    int64_t d = dim - (rank - type.getRank());
    return d >= 0 && type.getDimSize(d) == 1 &&
           mayBeKeptReducedDim(operand, d, depth + 1);
  });
}

bool mlsopt::isRowsCollapse(tensor::CollapseShapeOp collapse) {
  ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  if (isRowsReshape(shape, groups))
    return true;
  int64_t innermost = static_cast<int64_t>(shape.size()) - 1;
  return llvm::any_of(groups, [&](const ReassociationIndices &group) {
    if (group.size() < 2 || group.back() == innermost ||
        shape[group.front()] == 1)
      return false;
    return llvm::all_of(llvm::drop_begin(group), [&](int64_t d) {
      return shape[d] == 1 && !mayBeKeptReducedDim(collapse.getSrc(), d);
    });
  });
}

bool mlsopt::flattensOnRows(Operation *op) {
  if (!isa_and_nonnull<kernel::KernelDialect>(op->getDialect()) ||
      op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  return op->hasTrait<OpTrait::ElementwiseByIndex>() ||
         isa<kernel::ReduceSumOp, kernel::ReduceMaxOp, kernel::RmsNormOp,
             kernel::ConvertOp>(op);
}

void mlsopt::populateFlattenRowsPatterns(RewritePatternSet &patterns) {
  patterns.add<FlattenOpOfExpand, FlattenOpUnderCollapse, UnitDimsIntoRows,
               MergeEqualReshapes<tensor::CollapseShapeOp>,
               MergeEqualReshapes<tensor::ExpandShapeOp>>(
      patterns.getContext());
}
