//===- UnitReshapes.cpp - Reshapes of size-1 dims between kernel ops -----===//
//
// Kernel ops broadcast like numpy and keep reduced dims, so the import
// leaves tensor.expand_shape and tensor.collapse_shape ops that only add or
// drop size-1 dims between them (a softmax's statistics read as [n] from
// [1, n], a mean over a middle dim times a gain). Left there, such a
// reshape cuts the program into pieces the search cannot fuse and the GPU
// pipeline cannot launch. These patterns read through them, or move them to
// the arguments and results: a binary op reads a broadcast's input or a
// reshape's source, a binary op, reduction, elementwise op or mask computes
// on the reshape's source, a transpose goes under a collapse, and chains of
// reshapes become one.
//
//===----------------------------------------------------------------------===//

#include "ImportSupport.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::linalg_import;

namespace {

/// A `linalg.broadcast` that only adds dims, read by a kernel binary op
/// (`kernel.add`, `sub`, `mul`, `div`): the op reads the broadcast's input
/// with size-1 dims where the broadcast adds dims instead, and numpy
/// broadcasting stretches it as the broadcast did, provided the result shape
/// stays the same (the other operand has the full size along the added dims).
/// Elementwise linalg ops that read the broadcast become such kernel ops
/// first; the broadcast dies once no other op reads it, and stays for those
/// that do (a matmul, an op that does not convert).
template <typename OpTy>
struct BroadcastOperandToUnitDims : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    auto shapeOf = [](Value value) {
      return cast<RankedTensorType>(value.getType()).getShape();
    };
    for (OpOperand &operand : op->getOpOperands()) {
      auto broadcast =
          operand.get().template getDefiningOp<linalg::BroadcastOp>();
      if (!broadcast || !broadcast.hasPureTensorSemantics())
        continue;
      auto inputType =
          dyn_cast<RankedTensorType>(broadcast.getInput().getType());
      auto outputType = cast<RankedTensorType>(operand.get().getType());
      if (!inputType || !inputType.hasStaticShape() ||
          inputType.getElementType() != outputType.getElementType())
        continue;
      // The broadcast's result with size 1 along the dims it adds: its other
      // dims are the input's, in order.
      SmallVector<int64_t> shape(outputType.getShape());
      for (int64_t dim : broadcast.getDimensions())
        shape[dim] = 1;
      if (dropUnitDims(shape) != dropUnitDims(inputType.getShape()))
        continue;
      // Numpy broadcasting supplies leading size-1 dims, as for operands
      // read through a map: a bias `[n]` broadcast to `[m, n]` is used as is.
      while (shape.size() > static_cast<size_t>(inputType.getRank()) &&
             shape.front() == 1)
        shape.erase(shape.begin());
      Value other = op->getOperand(1 - operand.getOperandNumber());
      ShapeOrError broadcastShape =
          operand.getOperandNumber() == 0
              ? broadcastShapes(shape, shapeOf(other))
              : broadcastShapes(shapeOf(other), shape);
      if (!broadcastShape.ok() ||
          ArrayRef<int64_t>(broadcastShape.shape) != resultType.getShape())
        continue;
      Value input = reshapeUnitDims(rewriter, broadcast.getLoc(),
                                    broadcast.getInput(), shape);
      rewriter.modifyOpInPlace(op, [&] { operand.set(input); });
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "reads no linalg.broadcast that numpy broadcasting can replace");
  }
};

/// The dims of `shape` that are not 1, each with its position once numpy
/// broadcasting right-aligns `shape` into a result of rank `rank`.
static SmallVector<std::pair<int64_t, int64_t>>
alignedNonUnitDims(ArrayRef<int64_t> shape, int64_t rank) {
  SmallVector<std::pair<int64_t, int64_t>> dims;
  int64_t offset = rank - static_cast<int64_t>(shape.size());
  for (auto [i, size] : llvm::enumerate(shape))
    if (size != 1)
      dims.emplace_back(offset + static_cast<int64_t>(i), size);
  return dims;
}

/// A kernel binary op (`kernel.add`, `sub`, `mul`, `div`) that reads a
/// `tensor.collapse_shape` or `tensor.expand_shape` that only drops or adds
/// size-1 dims reads the reshape's source instead, when numpy broadcasting
/// puts every other dim of the source where it put the reshaped value's and
/// the result keeps its shape. A kernel reduction keeps its reduced dim, so a
/// softmax over dim 0 reads its statistics as `[1, n]`, reshaped to the
/// linalg type `[n]`; the reshape between two kernel ops would cut the
/// program into pieces the search cannot fuse and that the GPU pipeline
/// cannot launch.
template <typename OpTy>
struct ReshapedOperandToSource : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = resultType.getRank();
    auto shapeOf = [](Value value) {
      return cast<RankedTensorType>(value.getType()).getShape();
    };
    for (OpOperand &operand : op->getOpOperands()) {
      Operation *reshape = operand.get().getDefiningOp();
      if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
              reshape))
        continue;
      // An expand of rows to a batch of one ([s, h] to [1, s, h]) is left
      // to FlattenRows, which computes the op on the rows: read through here,
      // it left an op of mixed ranks whose other operand stayed 3-D, and the
      // search cut the program there.
      if (auto expand = dyn_cast<tensor::ExpandShapeOp>(reshape);
          expand && isRowsReshape(expand.getResultType().getShape(),
                                  expand.getReassociationIndices()))
        continue;
      Value source = reshape->getOperand(0);
      auto sourceType = dyn_cast<RankedTensorType>(source.getType());
      if (!sourceType || !sourceType.hasStaticShape() ||
          sourceType.getRank() > rank ||
          alignedNonUnitDims(sourceType.getShape(), rank) !=
              alignedNonUnitDims(shapeOf(operand.get()), rank))
        continue;
      Value other = op->getOperand(1 - operand.getOperandNumber());
      ShapeOrError broadcastShape =
          operand.getOperandNumber() == 0
              ? broadcastShapes(sourceType.getShape(), shapeOf(other))
              : broadcastShapes(shapeOf(other), sourceType.getShape());
      if (!broadcastShape.ok() ||
          ArrayRef<int64_t>(broadcastShape.shape) != resultType.getShape())
        continue;
      rewriter.modifyOpInPlace(op, [&] { operand.set(source); });
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "reads no unit-dim reshape that numpy broadcasting can replace");
  }
};

/// The collapse that `value` is, if it only drops size-1 dims of a static
/// kernel op result and is no collapse of rows (those are FlattenRows',
/// see ElementwiseBeforeReshape): a reduction's kept dim, which linalg
/// drops, between two kernel ops.
static tensor::CollapseShapeOp getUnitCollapseOfKernelResult(Value value) {
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || isRowsCollapse(collapse))
    return {};
  Operation *def = collapse.getSrc().getDefiningOp();
  if (!def || !isa<kernel::KernelDialect>(def->getDialect()) ||
      !collapse.getSrcType().hasStaticShape() ||
      dropUnitDims(collapse.getSrcType().getShape()) !=
          dropUnitDims(collapse.getResultType().getShape()))
    return {};
  return collapse;
}

/// A binary kernel op of a unit-dim collapse of a kernel op's result, at
/// the op's full shape, and of an operand that broadcasts to it (a mean over a
/// middle dim, [b, h] reshaped from the reduction's [b, h, 1], times a gain
/// [h]) computes on the reshape's source, the other operand reshaped
/// alike, and is reshaped after; ReshapedOperandToSource cannot read past
/// such a reshape, which numpy broadcasting does not undo ([h] against
/// [b, h, 1] is [b, h, h]). Left between the two kernel ops, the reshape
/// kept the product out of the reduction's kernel (a launch of its own).
template <typename OpTy>
struct BinaryBeforeUnitReshape : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> resultShape = resultType.getShape();
    int64_t rank = resultType.getRank();
    for (OpOperand &operand : op->getOpOperands()) {
      // A collapse only: the op then reads the other operand expanded, and
      // taking expands too would undo that again.
      tensor::CollapseShapeOp reshape =
          getUnitCollapseOfKernelResult(operand.get());
      if (!reshape || operand.get().getType() != resultType)
        continue;
      Value source = reshape.getSrc();
      auto sourceType = reshape.getSrcType();
      Value other = op->getOperand(1 - operand.getOperandNumber());
      ArrayRef<int64_t> otherShape =
          cast<RankedTensorType>(other.getType()).getShape();
      if (static_cast<int64_t>(otherShape.size()) > rank)
        continue;
      // The other operand's size along each result dim, right-aligned.
      SmallVector<int64_t> aligned(rank - otherShape.size(), 1);
      llvm::append_range(aligned, otherShape);
      if (llvm::any_of(llvm::zip(aligned, resultShape), [](auto sizes) {
            auto [size, full] = sizes;
            return size != full && size != 1;
          }))
        continue;
      // The same sizes along the source's dims: its dims larger than 1
      // are the result's, in order.
      SmallVector<int64_t> kept;
      for (auto [d, size] : llvm::enumerate(resultShape))
        if (size != 1)
          kept.push_back(aligned[d]);
      SmallVector<int64_t> onSource;
      auto next = kept.begin();
      for (int64_t size : sourceType.getShape())
        onSource.push_back(size == 1 ? 1 : *next++);
      Location loc = op.getLoc();
      Value reshaped = reshapeUnitDims(rewriter, loc, other, onSource);
      Value computed =
          operand.getOperandNumber() == 0
              ? OpTy::create(rewriter, loc, source, reshaped).getResult()
              : OpTy::create(rewriter, loc, reshaped, source).getResult();
      rewriter.replaceOp(op,
                         reshapeUnitDims(rewriter, loc, computed, resultShape));
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "reads no unit-dim collapse of a kernel op's full result");
  }
};

/// A reduction of a unit-dim collapse of a kernel op's result reduces the
/// collapse's source along the same dim and is reshaped after: a loss's
/// mean over rows of per-row values that a reduction kept as [n, 1] and
/// linalg reads as [n] (cross-entropy). Left between the two kernel ops,
/// the collapse kept the mean out of the kernels that compute the rows.
template <typename OpTy>
struct ReduceBeforeUnitCollapse : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    tensor::CollapseShapeOp collapse =
        getUnitCollapseOfKernelResult(op.getInput());
    if (!collapse)
      return rewriter.notifyMatchFailure(
          op, "reads no unit-dim collapse of a kernel op's result");
    Value source = collapse.getSrc();
    ArrayRef<int64_t> sourceShape = collapse.getSrcType().getShape();
    // The source dim of the reduced one: the one in its group larger than 1.
    ReassociationIndices group =
        collapse.getReassociationIndices()[op.getDim()];
    auto large =
        llvm::find_if(group, [&](int64_t d) { return sourceShape[d] != 1; });
    if (large == group.end())
      return rewriter.notifyMatchFailure(op, "reduces a size-1 dim");
    Value reduced = OpTy::create(rewriter, op.getLoc(), source, *large);
    rewriter.replaceOp(op, reshapeUnitDims(rewriter, op.getLoc(), reduced,
                                           op.getType().getShape()));
    return success();
  }
};

/// An elementwise kernel op (`kernel.exp`, `mul_scalar`, ...) of unit-dim
/// reshapes computes on the reshapes' sources and is reshaped after:
/// `mul_scalar(collapse(sum), 1/n)` is `collapse(mul_scalar(sum, 1/n))`.
/// The reshape moves towards the binary ops that read past it
/// (ReshapedOperandToSource), so none stays between two kernel ops. A binary
/// op moves when both operands are reshapes of one shape: a decode step's
/// [b, 1, n] gate and up projections, each [b, n] expanded with the size-1
/// dim in another group, which no broadcasting reads past.
struct ElementwiseBeforeReshape : public RewritePattern {
  ElementwiseBeforeReshape(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<kernel::KernelDialect>(op->getDialect()) ||
        !op->hasTrait<OpTrait::ElementwiseByIndex>() ||
        op->getNumOperands() == 0 || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 ||
        llvm::any_of(op->getOperandTypes(), [&](Type type) {
          return type != op->getResult(0).getType();
        }))
      return rewriter.notifyMatchFailure(op, "not an elementwise kernel op "
                                             "of operands of its shape");
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<Value> sources;
    for (Value operand : op->getOperands()) {
      Operation *reshape = operand.getDefiningOp();
      if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
              reshape))
        return rewriter.notifyMatchFailure(op, "reads other than a reshape");
      // A collapse of [1, seq, ...] to rows rises to the arguments instead
      // (FlattenRows); moving it down again would undo that forever.
      if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape);
          collapse && isRowsCollapse(collapse))
        return rewriter.notifyMatchFailure(op, "reads a collapse to rows");
      sources.push_back(reshape->getOperand(0));
    }
    auto sourceType = cast<RankedTensorType>(sources.front().getType());
    if (llvm::any_of(sources,
                     [&](Value v) { return v.getType() != sourceType; }) ||
        dropUnitDims(sourceType.getShape()) !=
            dropUnitDims(resultType.getShape()))
      return rewriter.notifyMatchFailure(op, "reads reshapes of other dims");
    Operation *computed = rewriter.clone(*op);
    rewriter.modifyOpInPlace(computed, [&] {
      computed->setOperands(sources);
      computed->getResult(0).setType(sourceType);
    });
    rewriter.replaceOp(op, reshapeUnitDims(rewriter, op->getLoc(),
                                           computed->getResult(0),
                                           resultType.getShape()));
    return success();
  }
};

/// A causal mask of a reshape whose groups keep the mask's rows and cols
/// whole (torch's [b, h, s, s] scores, expanded from the [b h, s, s] of a
/// batch matmul) is the mask of the reshape's source, reshaped: the mask
/// then sits beside the ops that compute and read the scores, where the
/// search fuses it, and an expand and collapse meeting around it fold.
struct TriangleFillBeforeReshape
    : public OpRewritePattern<kernel::TriangleFillOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::TriangleFillOp op,
                                PatternRewriter &rewriter) const override {
    Operation *reshape = op.getInput().getDefiningOp();
    SmallVector<ReassociationIndices> groups;
    Value source;
    if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(reshape)) {
      groups = expand.getReassociationIndices();
      source = expand.getSrc();
    } else if (auto collapse =
                   dyn_cast_or_null<tensor::CollapseShapeOp>(reshape)) {
      groups = collapse.getReassociationIndices();
      source = collapse.getSrc();
    } else {
      return rewriter.notifyMatchFailure(op, "does not read a reshape");
    }
    bool expands = isa<tensor::ExpandShapeOp>(reshape);
    // The mask's dims in the source: for an expand, the group that holds
    // the dim alone; for a collapse, the one source dim of its group.
    SmallVector<int64_t, 2> dims;
    for (int64_t d : op.getDims()) {
      for (auto [g, group] : llvm::enumerate(groups)) {
        if (expands ? !llvm::is_contained(group, d)
                    : g != static_cast<size_t>(d))
          continue;
        if (group.size() != 1)
          return rewriter.notifyMatchFailure(op, "the reshape merges a dim "
                                                 "of the mask with others");
        dims.push_back(expands ? static_cast<int64_t>(g) : group.front());
      }
    }
    Value masked = kernel::TriangleFillOp::create(
        rewriter, op.getLoc(), source, rewriter.getDenseI64ArrayAttr(dims),
        op.getDiagonalAttr(), op.getValueAttr());
    Operation *moved = rewriter.clone(*reshape);
    moved->setOperand(0, masked);
    rewriter.replaceOp(op, moved->getResults());
    return success();
  }
};

/// A collapse of a transpose whose every group of merged dims comes from
/// consecutive operand dims, in order, is the transpose of the collapsed
/// operand: torch's K^T of [b, h, s, d] scores, transposed [0, 1, 3, 2] and
/// collapsed to [b h, d, s] for a batch matmul, is the [0, 2, 1] transpose
/// of the collapsed K. The transpose then sits on the shape of the matmul
/// that reads it, and the search loads K transposed in the same kernel;
/// left on the 4-D shape, it was a launch of its own.
struct TransposeUnderCollapse
    : public OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getSrc().getDefiningOp<kernel::TransposeOp>();
    if (!transpose)
      return rewriter.notifyMatchFailure(op, "does not read a transpose");
    // Only towards a kernel op that reads the collapse: a collapse that a
    // function returns stays last, as the unit-dim patterns leave it, and
    // moving it up would put a reshape between two kernel ops.
    if (llvm::none_of(op->getUsers(), [](Operation *user) {
          return isa<kernel::KernelDialect>(user->getDialect());
        }))
      return rewriter.notifyMatchFailure(op, "no kernel op reads it");
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    SmallVector<ReassociationIndices> groups = op.getReassociationIndices();
    // The operand dims of each group, which must run on consecutively.
    SmallVector<std::pair<int64_t, size_t>> firsts;
    for (auto [g, group] : llvm::enumerate(groups)) {
      for (auto [i, d] : llvm::enumerate(group))
        if (permutation[d] !=
            permutation[group.front()] + static_cast<int64_t>(i))
          return rewriter.notifyMatchFailure(
              op, "a group merges dims that are not consecutive in the "
                  "operand");
      firsts.emplace_back(permutation[group.front()], g);
    }
    // Operand groups in operand order; result group g is operand group
    // newPermutation[g].
    llvm::sort(firsts);
    SmallVector<ReassociationIndices> operandGroups;
    SmallVector<int64_t> newPermutation(groups.size());
    for (auto [position, first] : llvm::enumerate(firsts)) {
      const ReassociationIndices &group = groups[first.second];
      ReassociationIndices operandGroup;
      for (auto i : llvm::seq<int64_t>(0, group.size()))
        operandGroup.push_back(first.first + i);
      operandGroups.push_back(std::move(operandGroup));
      newPermutation[first.second] = static_cast<int64_t>(position);
    }
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, op.getLoc(), transpose.getInput(), operandGroups);
    rewriter.replaceOpWithNewOp<kernel::TransposeOp>(op, collapsed,
                                                     newPermutation);
    return success();
  }
};

} // namespace

void mlsopt::populateUnitReshapePatterns(RewritePatternSet &patterns) {
  patterns.add<BroadcastOperandToUnitDims<kernel::AddOp>,
               BroadcastOperandToUnitDims<kernel::SubOp>,
               BroadcastOperandToUnitDims<kernel::MulOp>,
               BroadcastOperandToUnitDims<kernel::DivOp>,
               BroadcastOperandToUnitDims<kernel::MaxOp>,
               BroadcastOperandToUnitDims<kernel::MinOp>,
               ReshapedOperandToSource<kernel::AddOp>,
               ReshapedOperandToSource<kernel::SubOp>,
               ReshapedOperandToSource<kernel::MulOp>,
               ReshapedOperandToSource<kernel::DivOp>,
               ReshapedOperandToSource<kernel::MaxOp>,
               ReshapedOperandToSource<kernel::MinOp>,
               BinaryBeforeUnitReshape<kernel::AddOp>,
               BinaryBeforeUnitReshape<kernel::SubOp>,
               BinaryBeforeUnitReshape<kernel::MulOp>,
               BinaryBeforeUnitReshape<kernel::DivOp>,
               BinaryBeforeUnitReshape<kernel::MaxOp>,
               BinaryBeforeUnitReshape<kernel::MinOp>,
               ReduceBeforeUnitCollapse<kernel::ReduceSumOp>,
               ReduceBeforeUnitCollapse<kernel::ReduceMaxOp>,
               ElementwiseBeforeReshape, TriangleFillBeforeReshape,
               TransposeUnderCollapse>(patterns.getContext());
}

void mlsopt::populateReshapeCompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<ComposeReassociativeReshapeOps<tensor::CollapseShapeOp,
                                              ReshapeOpKind::kCollapse>,
               ComposeReassociativeReshapeOps<tensor::ExpandShapeOp,
                                              ReshapeOpKind::kExpand>,
               ComposeExpandOfCollapseOp<tensor::ExpandShapeOp,
                                         tensor::CollapseShapeOp>>(
      patterns.getContext());
}
