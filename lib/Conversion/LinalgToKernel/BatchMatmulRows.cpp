//===- BatchMatmulRows.cpp - Batch matmuls on the rows their ops need -----===//
//
// After the import, the ops between two batch matmuls (an attention's
// softmax) must share the matmuls' shape for the search to find them in one
// subprogram. Two front-end habits break that, and the patterns here, run
// once the import's patterns are done, repair them.
//
// Grouped-query attention repeats each key and value head for the query
// heads of its group (Hugging Face's repeat_kv: a broadcast to
// [b, kv, rep, s, d] collapsed to [b, kv rep, s, d]). Imported as it is,
// the repeat is a copy kernel per operand, which writes rep times the keys'
// bytes. The batch matmul of the queries by the repeated keys is the matmul
// of the queries, each group's heads stacked as rows ([b kv, rep m, d]), by
// the keys as they are; the softmax after it is per row, so it computes on
// the stacked rows as well, and the matmul by the repeated values closes
// the chain. The search then sees one attention of kv heads, whose kernel
// reads each group's keys once. Stacking is only worth it where the ops up
// to the next matmul can follow the stacked rows: a causal mask (its row
// index is the query's position in its head) or a mask tensor that varies
// along the queries cannot, and such chains keep the repeat.
//
// A batch matmul of [b, h] heads merged into one batch dim leaves an op
// that reads a tensor varying along only one of them (a [b, 1, 1, s]
// padding mask, a [1, h, s, s] position bias) on the unmerged shape, between
// a collapse and an expand that cut the attention in two. The matmuls then
// compute on the unmerged batch dims too, and the ops between them follow.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// How a matmul's right operand repeats a smaller tensor along its last batch
/// dim: the operand is the collapse of a linalg.broadcast whose added dims
/// end that batch dim's group, so batch `i` of the operand is batch
/// `i / repeats` of the broadcast's input collapsed by `sourceGroups`.
struct RepeatedBatches {
  linalg::BroadcastOp broadcast;
  SmallVector<ReassociationIndices> sourceGroups;
  int64_t repeats = 1;
};

std::optional<RepeatedBatches> findRepeatedBatches(Value operand) {
  auto collapse = operand.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return std::nullopt;
  auto broadcast = collapse.getSrc().getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast || !broadcast.hasPureTensorSemantics())
    return std::nullopt;
  auto inputType = dyn_cast<RankedTensorType>(broadcast.getInput().getType());
  auto resultType = cast<RankedTensorType>(collapse.getSrc().getType());
  if (!inputType || !inputType.hasStaticShape() ||
      !resultType.hasStaticShape() ||
      inputType.getElementType() != resultType.getElementType())
    return std::nullopt;
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  if (groups.size() < 3)
    return std::nullopt;
  llvm::SmallDenseSet<int64_t> added(broadcast.getDimensions().begin(),
                                     broadcast.getDimensions().end());
  // Broadcast result dim -> input dim, for the dims the input has.
  SmallVector<int64_t> inputDim(resultType.getRank(), -1);
  for (int64_t d = 0, next = 0; d < resultType.getRank(); ++d)
    if (!added.contains(d))
      inputDim[d] = next++;
  RepeatedBatches repeated{broadcast, {}, 1};
  size_t lastBatch = groups.size() - 3;
  for (auto [g, group] : llvm::enumerate(groups)) {
    ReassociationIndices sourceGroup;
    bool seenRepeated = false;
    for (int64_t d : group) {
      if (added.contains(d)) {
        if (g != lastBatch)
          return std::nullopt;
        repeated.repeats *= resultType.getDimSize(d);
        seenRepeated = true;
        continue;
      }
      // The repeated dims must end the last batch group: each batch of the
      // source is then `repeats` consecutive batches of the operand, the
      // group's heads one after another, as the stacked queries are.
      if (seenRepeated)
        return std::nullopt;
      sourceGroup.push_back(inputDim[d]);
    }
    if (sourceGroup.empty())
      return std::nullopt;
    repeated.sourceGroups.push_back(std::move(sourceGroup));
  }
  if (repeated.repeats == 1)
    return std::nullopt;
  return repeated;
}

/// The right operand of `matmul` without the transpose of its two matrix
/// dims that it may be, and that transpose.
std::pair<Value, kernel::TransposeOp> getUntransposedRhs(kernel::MatmulOp op) {
  Value rhs = op.getRhs();
  auto transpose = rhs.getDefiningOp<kernel::TransposeOp>();
  if (!transpose)
    return {rhs, nullptr};
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  int64_t rank = static_cast<int64_t>(permutation.size());
  for (int64_t d = 0; d < rank - 2; ++d)
    if (permutation[d] != d)
      return {rhs, nullptr};
  return {transpose.getInput(), transpose};
}

bool hasRepeatedRhs(kernel::MatmulOp op) {
  return findRepeatedBatches(getUntransposedRhs(op).first).has_value();
}

/// Whether `op` computes per row of its last dim, so that it can compute on
/// any regrouping of the leading dims.
bool worksPerRow(Operation *op) {
  if (!flattensOnRows(op))
    return false;
  std::optional<int64_t> dim = getWorkingDim(op);
  int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  return !dim || *dim == rank - 1;
}

/// Whether `value` is the same for every row: numpy broadcasting then
/// aligns it on the right of any regrouping of the leading dims.
bool isConstantAlongRows(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return type.getRank() <= 1 ||
         llvm::all_of(type.getShape().drop_back(),
                      [](int64_t size) { return size == 1; });
}

/// Whether the readers of `matmul`'s result, up to the next matmuls, can
/// follow its rows stacked: every op on the way works per row and reads
/// nothing else that varies along the rows, and the way ends at the left
/// operand of a matmul by repeated batches, a reshape or a return.
bool rowsCanFollowStacking(kernel::MatmulOp matmul) {
  llvm::SetVector<Operation *> chain;
  SmallVector<Value> worklist{matmul.getResult()};
  llvm::SmallPtrSet<Value, 8> chainValues{matmul.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, func::ReturnOp>(
              user))
        continue;
      if (auto next = dyn_cast<kernel::MatmulOp>(user)) {
        if (use.getOperandNumber() != 0 || !hasRepeatedRhs(next))
          return false;
        continue;
      }
      if (!worksPerRow(user))
        return false;
      if (chain.insert(user)) {
        chainValues.insert(user->getResult(0));
        worklist.push_back(user->getResult(0));
      }
    }
  }
  return llvm::all_of(chain, [&](Operation *op) {
    return llvm::all_of(op->getOperands(), [&](Value operand) {
      return chainValues.contains(operand) || isConstantAlongRows(operand);
    });
  });
}

/// Whether the left operand of `matmul` comes, through ops that work per
/// row, from the results of matmuls whose readers can all follow stacking
/// (rowsCanFollowStacking): the softmax between two stacked matmuls. Any
/// other producer is left behind a reshape either way.
bool lhsFollowsStacking(kernel::MatmulOp matmul) {
  SmallVector<Value> worklist{matmul.getLhs()};
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !visited.insert(def).second)
      continue;
    if (auto producer = dyn_cast<kernel::MatmulOp>(def)) {
      if (hasRepeatedRhs(producer) && !rowsCanFollowStacking(producer))
        return false;
      continue;
    }
    if (worksPerRow(def))
      llvm::append_range(worklist, def->getOperands());
  }
  return true;
}

/// `kernel.matmul %a, %b` where %b, or the transpose of its two matrix dims
/// that %b is, repeats its batches (findRepeatedBatches): with the last batch
/// dim `G = g * r` of `r` repeats,
///   a [..., G, m, k] -> [..., g, r m, k]   (a reshape: batch r i + j is
///                                           rows j m .. j m + m - 1)
///   c' = a' x source                        [..., g, r m, n]
///   c = c' reshaped to [..., G, m, n]
/// which computes each product from the unrepeated operand.
struct MatmulOfRepeatedBatches : public OpRewritePattern<kernel::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto [rhs, transpose] = getUntransposedRhs(op);
    std::optional<RepeatedBatches> repeated = findRepeatedBatches(rhs);
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!repeated || !lhsType.hasStaticShape() || lhsType.getRank() < 3)
      return rewriter.notifyMatchFailure(op,
                                         "the right operand repeats no batch");
    if (!rowsCanFollowStacking(op) || !lhsFollowsStacking(op))
      return rewriter.notifyMatchFailure(
          op, "the ops around it cannot follow stacked rows");
    Location loc = op.getLoc();
    int64_t rank = lhsType.getRank();
    int64_t repeats = repeated->repeats;
    // [..., G, x, y] -> [..., g, r, x, y] (split) -> [..., g, r x, y]
    // (stacked), and back.
    auto splitType = [&](RankedTensorType type) {
      ArrayRef<int64_t> shape = type.getShape();
      SmallVector<int64_t> split(shape.take_front(rank - 2));
      split.back() /= repeats;
      split.push_back(repeats);
      split.append(shape.begin() + rank - 2, shape.end());
      return RankedTensorType::get(split, type.getElementType());
    };
    SmallVector<ReassociationIndices> splitGroups, stackGroups;
    for (int64_t d = 0; d < rank + 1; ++d) {
      if (d == rank - 2)
        splitGroups.back().push_back(d);
      else
        splitGroups.push_back({d});
      if (d == rank - 1)
        stackGroups.back().push_back(d);
      else
        stackGroups.push_back({d});
    }
    Value split = tensor::ExpandShapeOp::create(
        rewriter, loc, splitType(lhsType), op.getLhs(), splitGroups);
    Value stacked =
        tensor::CollapseShapeOp::create(rewriter, loc, split, stackGroups);
    Value source = repeated->broadcast.getInput();
    if (repeated->sourceGroups.size() !=
        static_cast<size_t>(cast<RankedTensorType>(source.getType()).getRank()))
      source = tensor::CollapseShapeOp::create(rewriter, loc, source,
                                               repeated->sourceGroups);
    if (transpose)
      source = kernel::TransposeOp::create(rewriter, loc, source,
                                           transpose.getPermutation());
    Value product = kernel::MatmulOp::create(rewriter, loc, stacked, source);
    Value unstacked = tensor::ExpandShapeOp::create(
        rewriter, loc, splitType(resultType), product, stackGroups);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, unstacked,
                                                         splitGroups);
    return success();
  }
};

/// A reshape of the leading dims of a kernel op's result, the last dim kept:
/// an expand and a collapse that regroup them (the stacked scores
/// [g, r m, n], expanded to [g, r, m, n] and collapsed to the heads'
/// [g r, m, n]), or a collapse of the batch dims of a batch matmul, or of
/// an op that works per row, on the shape of a batch matmul
/// ([b, h, m, n] to [b h, m, n]).
struct LeadingDimsReshape {
  Value source;
  tensor::ExpandShapeOp expand;
  tensor::CollapseShapeOp collapse;

  /// The same reshape of `value`, which differs from the source in the
  /// last dim at most.
  Value apply(OpBuilder &b, Location loc, Value value,
              RankedTensorType resultType) {
    if (expand) {
      SmallVector<int64_t> middle(expand.getResultType().getShape());
      middle.back() = resultType.getShape().back();
      value = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(middle, resultType.getElementType()),
          value, expand.getReassociationIndices());
    }
    return tensor::CollapseShapeOp::create(b, loc, resultType, value,
                                           collapse.getReassociationIndices());
  }
};

/// Whether `groups` merge only batch dims: the last two are dims of their
/// own.
bool mergesOnlyBatchDims(ArrayRef<ReassociationIndices> groups) {
  return groups.size() >= 3 && groups.back().size() == 1 &&
         groups[groups.size() - 2].size() == 1;
}

std::optional<LeadingDimsReshape> getLeadingDimsReshape(Value value) {
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || !collapse.getSrcType().hasStaticShape() ||
      collapse.getReassociationIndices().back().size() != 1)
    return std::nullopt;
  auto isKernelOp = [](Operation *op) {
    return op && isa<kernel::KernelDialect>(op->getDialect());
  };
  if (auto expand = collapse.getSrc().getDefiningOp<tensor::ExpandShapeOp>()) {
    if (!expand.getSrcType().hasStaticShape() ||
        expand.getReassociationIndices().back().size() != 1 ||
        !isKernelOp(expand.getSrc().getDefiningOp()))
      return std::nullopt;
    return LeadingDimsReshape{expand.getSrc(), expand, collapse};
  }
  // A plain collapse only of batch dims, of a matmul or an op that works
  // per row: collapses to rows are FlattenRows', and moving an op off a
  // transpose's collapse would cut it from the matmul that reads it.
  Operation *def = collapse.getSrc().getDefiningOp();
  if (!mergesOnlyBatchDims(collapse.getReassociationIndices()) || !def ||
      !(isa<kernel::MatmulOp>(def) || worksPerRow(def)))
    return std::nullopt;
  return LeadingDimsReshape{collapse.getSrc(), nullptr, collapse};
}

/// An op that works per row and reads such a reshape computes on the
/// source's shape, and its result is reshaped the same way after: the
/// softmax of the stacked scores then shares their shape, and the search
/// finds it and both matmuls in one subprogram. The op's other operands are
/// reshapes of the same leading dims, or the same for every row.
struct ComputeOnLeadingDimsSource : public RewritePattern {
  ComputeOnLeadingDimsSource(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!worksPerRow(op))
      return rewriter.notifyMatchFailure(op, "does not work per row");
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<LeadingDimsReshape> reshape;
    for (Value operand : op->getOperands())
      if ((reshape = getLeadingDimsReshape(operand)))
        break;
    if (!reshape)
      return rewriter.notifyMatchFailure(
          op, "reads no reshape of a kernel op's leading dims");
    ArrayRef<int64_t> leading =
        cast<RankedTensorType>(reshape->source.getType())
            .getShape()
            .drop_back();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (std::optional<LeadingDimsReshape> other =
              getLeadingDimsReshape(operand)) {
        if (cast<RankedTensorType>(other->source.getType())
                .getShape()
                .drop_back() != leading)
          return rewriter.notifyMatchFailure(op, "operands differ in shape");
        operands.push_back(other->source);
        continue;
      }
      auto type = cast<RankedTensorType>(operand.getType());
      if (!isConstantAlongRows(operand) ||
          type.getRank() > static_cast<int64_t>(leading.size()) + 1)
        return rewriter.notifyMatchFailure(op,
                                           "an operand varies along the rows");
      operands.push_back(operand);
    }
    SmallVector<int64_t> shape(leading);
    shape.push_back(resultType.getShape().back());
    Operation *moved = mlir::clone(
        rewriter, op, RankedTensorType::get(shape, resultType.getElementType()),
        operands);
    if (getWorkingDim(op))
      setWorkingDim(rewriter, moved, static_cast<int64_t>(shape.size()) - 1);
    rewriter.replaceOp(op, reshape->apply(rewriter, op->getLoc(),
                                          moved->getResult(0), resultType));
    return success();
  }
};

/// The source of `value` when it collapses only batch dims, and the groups.
std::optional<std::pair<Value, SmallVector<ReassociationIndices>>>
getCollapsedBatches(Value value) {
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || !collapse.getSrcType().hasStaticShape())
    return std::nullopt;
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  if (!mergesOnlyBatchDims(groups))
    return std::nullopt;
  return std::make_pair(collapse.getSrc(), std::move(groups));
}

/// Whether computing `matmul` on its operands' uncollapsed batch dims
/// (`groups`) joins it to ops that already compute there: its result,
/// through ops that work per row, is expanded back for a kernel op (the
/// [b, 1, 1, s] attention mask added to [b, h, s, s] scores, which cannot
/// follow the merged [b h] rows; or the heads transposed back to torch's
/// [b, s, h, d] layout, which a collapse would keep from the custom kernel's
/// store: four copy kernels in a Hugging Face attention), or its left
/// operand is such an op's result, collapsed.
bool joinsUncollapsedOps(kernel::MatmulOp matmul,
                         ArrayRef<ReassociationIndices> groups) {
  if (auto lhs = matmul.getLhs().getDefiningOp<tensor::CollapseShapeOp>()) {
    Operation *def = lhs.getSrc().getDefiningOp();
    if (def && worksPerRow(def))
      return true;
  }
  SmallVector<Value> worklist{matmul.getResult()};
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (!visited.insert(user).second)
        continue;
      // A matmul of it and of an operand collapsed alike (attention's
      // probabilities times V, the heads of both merged from torch's [b, s,
      // h, d] layout) computes uncollapsed in turn, and its result may be
      // expanded back.
      if (auto next = dyn_cast<kernel::MatmulOp>(user)) {
        Value other = next.getLhs() == value ? getUntransposedRhs(next).first
                                             : next.getLhs();
        auto collapsed = getCollapsedBatches(other);
        if (other != value && collapsed && collapsed->second == groups)
          worklist.push_back(next.getResult());
        continue;
      }
      if (auto expand = dyn_cast<tensor::ExpandShapeOp>(user)) {
        if (expand.getReassociationIndices() == groups &&
            llvm::any_of(expand->getUsers(), [](Operation *reader) {
              return isa<kernel::KernelDialect>(reader->getDialect());
            }))
          return true;
        continue;
      }
      if (worksPerRow(user))
        worklist.push_back(user->getResult(0));
    }
  }
  return false;
}

/// A batch matmul of two operands collapsed the same way from more batch
/// dims (torch's [b, h] heads merged for linalg.batch_matmul) computes on
/// the uncollapsed operands where that joins it to ops that stayed there
/// (joinsUncollapsedOps); its result is collapsed after.
struct MatmulOfCollapsedBatches : public OpRewritePattern<kernel::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = getCollapsedBatches(op.getLhs());
    auto [rhsValue, transpose] = getUntransposedRhs(op);
    auto rhs = getCollapsedBatches(rhsValue);
    if (!lhs || !rhs || lhs->second != rhs->second)
      return rewriter.notifyMatchFailure(op, "operands not collapsed alike");
    auto lhsShape = cast<RankedTensorType>(lhs->first.getType()).getShape();
    auto rhsShape = cast<RankedTensorType>(rhs->first.getType()).getShape();
    if (lhsShape.drop_back(2) != rhsShape.drop_back(2))
      return rewriter.notifyMatchFailure(op, "batch dims differ");
    if (!joinsUncollapsedOps(op, lhs->second))
      return rewriter.notifyMatchFailure(op, "no op computes uncollapsed");
    Value source = rhs->first;
    if (transpose) {
      ArrayRef<int64_t> permutation = transpose.getPermutation();
      int64_t rank = static_cast<int64_t>(permutation.size());
      int64_t sourceRank = static_cast<int64_t>(rhsShape.size());
      SmallVector<int64_t> uncollapsed =
          llvm::to_vector(llvm::seq<int64_t>(0, sourceRank - 2));
      for (int64_t d : permutation.take_back(2))
        uncollapsed.push_back(d + sourceRank - rank);
      source = kernel::TransposeOp::create(rewriter, op.getLoc(), source,
                                           uncollapsed);
    }
    Value product =
        kernel::MatmulOp::create(rewriter, op.getLoc(), lhs->first, source);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, product,
                                                         lhs->second);
    return success();
  }
};

} // namespace

void mlsopt::populateBatchMatmulRowsPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulOfRepeatedBatches, MatmulOfCollapsedBatches,
               ComputeOnLeadingDimsSource>(patterns.getContext());
  // The reshapes between the stacked ops fold away.
  populateReshapeCompositionPatterns(patterns);
}
