//===- LeftoverOpCuts.cpp - Verifying around ops the field cannot run -----===//

#include "LeftoverOpCuts.h"

#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlsopt;

/// An op at the top level that the field cannot evaluate: a linalg op the
/// import left, or a slice at a run-time offset.
static bool isLeftoverOp(Operation &op) {
  return (isa_and_nonnull<linalg::LinalgDialect>(op.getDialect()) &&
          !isa<linalg::BroadcastOp, linalg::FillOp>(op)) ||
         isRunTimeSlice(op);
}

/// Whether the scalars `l` and `r` are the same computation, op for op,
/// on the same arguments of their functions (which the test draws alike)
/// and constants: a KV-cache slot `index_cast(extract(%pos))` in both.
static bool isSameScalar(Value l, Value r) {
  if (l.getType() != r.getType())
    return false;
  auto lhsArg = dyn_cast<BlockArgument>(l);
  auto rhsArg = dyn_cast<BlockArgument>(r);
  if (lhsArg || rhsArg)
    return lhsArg && rhsArg && lhsArg.getOwner()->isEntryBlock() &&
           rhsArg.getOwner()->isEntryBlock() &&
           isa<FunctionOpInterface>(lhsArg.getOwner()->getParentOp()) &&
           isa<FunctionOpInterface>(rhsArg.getOwner()->getParentOp()) &&
           lhsArg.getArgNumber() == rhsArg.getArgNumber();
  Operation *lhs = l.getDefiningOp(), *rhs = r.getDefiningOp();
  if (lhs->getNumRegions() != 0 || !isMemoryEffectFree(lhs) ||
      cast<OpResult>(l).getResultNumber() !=
          cast<OpResult>(r).getResultNumber())
    return false;
  return OperationEquivalence::isEquivalentTo(
      lhs, rhs, [](Value a, Value b) { return success(isSameScalar(a, b)); },
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

static SmallVector<Operation *> getLeftoverOps(func::FuncOp f) {
  SmallVector<Operation *> ops;
  for (Operation &op : f.getBody().front())
    if (isLeftoverOp(op))
      ops.push_back(&op);
  return ops;
}

/// The values `op` reads from outside itself: its operands, then what its
/// regions read from above, in walk order (the same order for equivalent
/// ops).
static SmallVector<Value> getExternalValues(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value value : inner->getOperands())
      if (!op->isAncestor(value.getParentRegion()->getParentOp()))
        values.push_back(value);
  });
  return values;
}

/// For a pair of leftover ops, the positions in their external values of
/// the tensors to compare, in order; none when the ops differ.
static std::optional<SmallVector<unsigned>> matchLeftoverOps(Operation *lhs,
                                                             Operation *rhs) {
  SmallVector<Value> lhsValues = getExternalValues(lhs);
  SmallVector<Value> rhsValues = getExternalValues(rhs);
  if (lhsValues.size() != rhsValues.size())
    return std::nullopt;
  DenseMap<Value, Value> equivalent;
  SmallVector<unsigned> compared;
  for (auto [i, l, r] : llvm::enumerate(lhsValues, rhsValues)) {
    if (l.getType() != r.getType())
      return std::nullopt;
    auto [it, inserted] = equivalent.try_emplace(l, r);
    if (!inserted) {
      if (it->second != r)
        return std::nullopt;
      continue;
    }
    if (!isa<ShapedType>(l.getType())) {
      // A scalar from above is a constant of the op's, equal in both, or
      // the same computation on the same arguments (a slice's offset).
      Attribute lc, rc;
      bool constants =
          matchPattern(l, m_Constant(&lc)) && matchPattern(r, m_Constant(&rc));
      if (constants ? lc != rc : !isSameScalar(l, r))
        return std::nullopt;
      continue;
    }
    // A fill of a constant (an argmax's -inf, which has no field element)
    // is that constant, equal in both.
    if (TypedAttr lc = getFillConstant(l)) {
      if (lc != getFillConstant(r))
        return std::nullopt;
      continue;
    }
    // An init with no data in both: its shape only.
    bool lhsEmpty = l.getDefiningOp<tensor::EmptyOp>() != nullptr;
    if (lhsEmpty != (r.getDefiningOp<tensor::EmptyOp>() != nullptr))
      return std::nullopt;
    if (!lhsEmpty)
      compared.push_back(i);
  }
  auto check = [&](Value l, Value r) {
    return success(equivalent.lookup(l) == r);
  };
  auto mark = [&](Value l, Value r) { equivalent[l] = r; };
  if (!OperationEquivalence::isEquivalentTo(
          lhs, rhs, check, mark, OperationEquivalence::IgnoreLocations))
    return std::nullopt;
  return compared;
}

/// A copy of `f` in `scratch` with `ops` cut out: each op's results become
/// arguments appended in order, and its external values at the positions
/// `compared[n]` results appended in order.
static func::FuncOp cutCopy(func::FuncOp f, ArrayRef<Operation *> ops,
                            ArrayRef<SmallVector<unsigned>> compared,
                            ModuleOp scratch) {
  OpBuilder b = OpBuilder::atBlockEnd(scratch.getBody());
  IRMapping mapping;
  auto copy = cast<func::FuncOp>(b.clone(*f, mapping));
  copy->removeAttr(MLSOptDialect::kEquivalentToAttrName);
  Block &entry = copy.getBody().front();
  Operation *ret = entry.getTerminator();
  SmallVector<Value> outputs;
  for (auto [op, positions] : llvm::zip(ops, compared)) {
    Operation *cut = mapping.lookup(op);
    SmallVector<Value> values = getExternalValues(cut);
    for (unsigned i : positions)
      outputs.push_back(values[i]);
    for (OpResult result : cut->getResults()) {
      unsigned index = copy.getNumArguments();
      if (failed(copy.insertArgument(index, result.getType(), {},
                                     result.getLoc())))
        llvm_unreachable("a func.func takes any argument");
      result.replaceAllUsesWith(copy.getArgument(index));
    }
  }
  for (Value output : outputs)
    if (failed(copy.insertResult(copy.getNumResults(), output.getType(), {})))
      llvm_unreachable("a func.func returns any result");
  ret->insertOperands(ret->getNumOperands(), outputs);
  for (Operation *op : ops)
    mapping.lookup(op)->erase();
  // The fills, empties and constants that only fed the cut ops.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(entry)))
    if (isOpTriviallyDead(&op))
      op.erase();
  return copy;
}

std::optional<LeftoverOpCuts> mlsopt::cutLeftoverOps(func::FuncOp func,
                                                     func::FuncOp reference,
                                                     ModuleOp scratch) {
  SmallVector<Operation *> lhsOps = getLeftoverOps(func);
  SmallVector<Operation *> rhsOps = getLeftoverOps(reference);
  if (lhsOps.empty() || lhsOps.size() != rhsOps.size())
    return std::nullopt;
  SmallVector<SmallVector<unsigned>> compared;
  for (auto [lhs, rhs] : llvm::zip(lhsOps, rhsOps)) {
    std::optional<SmallVector<unsigned>> positions = matchLeftoverOps(lhs, rhs);
    if (!positions)
      return std::nullopt;
    compared.push_back(std::move(*positions));
  }
  return LeftoverOpCuts{
      cutCopy(func, lhsOps, compared, scratch),
      cutCopy(reference, rhsOps, compared, scratch),
      static_cast<unsigned>(lhsOps.size()),
      static_cast<unsigned>(llvm::count_if(
          lhsOps, [](Operation *op) { return isRunTimeSlice(*op); }))};
}
