//===- HoistTransposes.cpp - Transposes of computed values onto inputs ----===//
//
// The search cuts subprograms at transposes, and the GPU pipeline computes a
// transpose of a function argument as the layout a kernel loads it in. A
// transpose of a value computed by elementwise ops and reductions from the
// arguments alone (a softmax over a tensor's columns, `k.softmax(dim=-2)`,
// whose transpose then enters a matmul, as efficient attention's `k^T v`
// does) is moved onto those arguments: the ops compute on the transposed
// values, a reduction over the dim the permutation puts its own dim in, and
// the matmul after them joins their kernel (two launches before).
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Transforms/KernelIdioms.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlsopt;

namespace {
/// The ops a transpose moves above: each result element is computed from
/// operand elements at the same index (broadcasts included), or along one
/// dim that the permutation renames. Masks and integers are not permuted
/// (kernel.transpose takes floats only), so where and int_to_float stop it.
bool isHoistable(Operation *op) {
  if (!op || op->getNumResults() != 1)
    return false;
  if (isa<kernel::WhereOp, kernel::IntToFloatOp>(op))
    return false;
  return op->hasTrait<OpTrait::ElementwiseByIndex>() ||
         isa<kernel::ConvertOp, kernel::ReduceSumOp, kernel::ReduceMaxOp,
             kernel::RmsNormOp>(op);
}

RankedTensorType permutedType(Type type, ArrayRef<int64_t> permutation) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(applyPermutation(tensor.getShape(), permutation),
                               tensor.getElementType());
}

/// transpose(f(x1, ..., xn)) -> f(transpose(x1), ..., transpose(xn)), for f
/// a DAG of hoistable ops whose leaves are function arguments or constants,
/// when every value f computes is read only inside f or by a transpose of
/// the same permutation: then the transposes end on the leaves and nothing
/// reads the values in their old layout. Where f starts at a matmul or any
/// op that a transpose does not move above, nothing changes: a transpose
/// between that op and the elementwise ops after it would part them.
struct HoistTransposeToInputs : OpRewritePattern<kernel::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  /// Bounds the walk up from a transpose; a softmax is five ops.
  static constexpr unsigned kMaxOps = 32;

  LogicalResult matchAndRewrite(kernel::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    int64_t rank = static_cast<int64_t>(permutation.size());
    Operation *top = transpose.getInput().getDefiningOp();
    if (!isHoistable(top))
      return rewriter.notifyMatchFailure(transpose, "not of a hoistable op");
    llvm::SetVector<Operation *> cone;
    cone.insert(top);
    for (unsigned i = 0; i < cone.size(); ++i) {
      if (cone.size() > kMaxOps)
        return rewriter.notifyMatchFailure(transpose, "too many ops above");
      for (Value operand : cone[i]->getOperands()) {
        auto type = dyn_cast<RankedTensorType>(operand.getType());
        if (!type || type.getRank() != rank)
          return rewriter.notifyMatchFailure(transpose,
                                             "an operand of another rank");
        Operation *def = operand.getDefiningOp();
        if (!def || def->hasTrait<OpTrait::ConstantLike>())
          continue;
        if (!isHoistable(def))
          return rewriter.notifyMatchFailure(
              transpose, "computed from a value no transpose moves above");
        cone.insert(def);
      }
    }
    auto isSameTranspose = [&](Operation *user) {
      auto other = dyn_cast<kernel::TransposeOp>(user);
      return other && other.getPermutation() == permutation;
    };
    for (Operation *op : cone)
      for (Operation *user : op->getUsers())
        if (!cone.contains(user) && !isSameTranspose(user))
          return rewriter.notifyMatchFailure(
              transpose, "a value above is read in its own layout");

    // Rebuilt in block order, each op right after the one it replaces, so
    // every transpose of it, wherever it is, comes after its replacement.
    SmallVector<Operation *> ordered(cone.begin(), cone.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    // The result dim that each operand dim becomes.
    SmallVector<int64_t> permutedDim = invertPermutationVector(permutation);
    IRMapping mapping;
    for (Operation *op : ordered) {
      for (Value operand : op->getOperands()) {
        if (mapping.contains(operand) || cone.contains(operand.getDefiningOp()))
          continue;
        OpBuilder::InsertionGuard guard(rewriter);
        if (Operation *def = operand.getDefiningOp())
          rewriter.setInsertionPointAfter(def);
        else
          rewriter.setInsertionPointToStart(
              cast<BlockArgument>(operand).getOwner());
        mapping.map(operand,
                    kernel::TransposeOp::create(rewriter, transpose.getLoc(),
                                                operand, permutation));
      }
      rewriter.setInsertionPointAfter(op);
      Operation *moved = rewriter.clone(*op, mapping);
      rewriter.modifyOpInPlace(moved, [&] {
        moved->getResult(0).setType(
            permutedType(op->getResult(0).getType(), permutation));
        // rms_norm spells its last dim by leaving `dim` out.
        if (auto norm = dyn_cast<kernel::RmsNormOp>(op)) {
          int64_t dim = permutedDim[norm.getNormalizedDim()];
          if (dim == rank - 1)
            moved->removeAttr("dim");
          else
            moved->setAttr("dim", rewriter.getI64IntegerAttr(dim));
        } else if (auto reduced = op->getAttrOfType<IntegerAttr>("dim")) {
          moved->setAttr(
              "dim", rewriter.getI64IntegerAttr(permutedDim[reduced.getInt()]));
        }
      });
    }
    for (Operation *op : ordered)
      for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
        if (!cone.contains(user))
          rewriter.replaceOp(user, mapping.lookup(op->getResult(0)));
    for (Operation *op : llvm::reverse(ordered))
      rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlsopt::populateHoistTransposePatterns(RewritePatternSet &patterns) {
  patterns.add<HoistTransposeToInputs>(patterns.getContext());
}
