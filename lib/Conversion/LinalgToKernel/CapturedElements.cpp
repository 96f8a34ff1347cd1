//===- CapturedElements.cpp - Elements read from above as inputs ----------===//
//
// torch passes a scalar as a 0-d tensor, and torch-mlir's generics read it
// with a `tensor.extract %alpha[]` above the op, whose result the payload
// uses as a scalar. Read that way, no import pattern sees the tensor, and
// the generic stayed linalg (its kernel op, `x * alpha`, among them). As an
// input through a map of constant results (`(i, j) -> ()`, or `(0)` for a
// tensor<1xf32>), it is an operand the import broadcasts like any other.
//
// A scalar function argument (`%alpha: f32`, as a hand-written or IREE-style
// program passes a scale) is the same case one step earlier: read as the 0-d
// tensor `tensor.from_elements %alpha`, it is such an input, as it is where
// a generic takes the scalar as an input (`ins(%alpha : f32)`). Scalar
// arithmetic above the op on such arguments (`1 / %alpha`) moves into the
// payload first, where the import reads it like any other payload op.
//
//===----------------------------------------------------------------------===//

#include "ImportSupport.h"

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Support/ScalarArguments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// The first `tensor.extract` at constant indices from above that `op`'s
/// payload reads, and those indices; none if there is none.
std::optional<std::pair<tensor::ExtractOp, SmallVector<int64_t>>>
findCapturedElement(linalg::GenericOp op) {
  std::optional<std::pair<tensor::ExtractOp, SmallVector<int64_t>>> found;
  op.getRegion().walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      auto extract = operand.getDefiningOp<tensor::ExtractOp>();
      if (!extract || op->isAncestor(extract))
        continue;
      auto type = dyn_cast<RankedTensorType>(extract.getTensor().getType());
      if (!type || !type.hasStaticShape())
        continue;
      SmallVector<int64_t> indices;
      for (Value index : extract.getIndices()) {
        APInt value;
        if (!matchPattern(index, m_ConstantInt(&value)))
          break;
        indices.push_back(value.getSExtValue());
      }
      if (indices.size() != extract.getIndices().size())
        continue;
      found = {extract, indices};
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// The index that the i64 payload argument `element` of `generic` (an index
/// scalar argument's 0-d tensor, ScalarArguments.h) holds, cast at the top
/// of the payload, once: the program the search keeps as its reference
/// has the payload as imported, op for op.
Value castToIndexInPayload(PatternRewriter &rewriter, linalg::GenericOp generic,
                           Value element) {
  Block &payload = generic.getRegion().front();
  for (Operation *user : element.getUsers())
    if (isa<arith::IndexCastOp>(user) &&
        user->getResult(0).getType().isIndex()) {
      // Above every reader: one sunk since (`%pos - %window`) is at the
      // top too.
      rewriter.moveOpBefore(user, &payload.front());
      return user->getResult(0);
    }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&payload);
  return arith::IndexCastOp::create(rewriter, element.getLoc(),
                                    rewriter.getIndexType(), element);
}

/// `op` with `tensor` as one more input, read at the constant `indices`
/// whatever the loops, whose element stands for `replaced` in the payload.
void addConstantMapInput(PatternRewriter &rewriter, linalg::GenericOp op,
                         Value tensor, ArrayRef<int64_t> indices,
                         Value replaced) {
  Type elementType = cast<ShapedType>(tensor.getType()).getElementType();
  SmallVector<AffineExpr> constants = llvm::map_to_vector(
      indices, [&](int64_t i) { return rewriter.getAffineConstantExpr(i); });
  AffineMap map =
      AffineMap::get(op.getNumLoops(), 0, constants, rewriter.getContext());
  auto readInPayload = [&](linalg::GenericOp generic, Value element) {
    if (elementType != replaced.getType()) {
      // An index read as its i64 element: casts of it to i64 (a position
      // converted for a comparison) read the element itself.
      for (Operation *user : llvm::make_early_inc_range(replaced.getUsers()))
        if (isa<arith::IndexCastOp>(user) && generic->isAncestor(user) &&
            user->getResult(0).getType() == elementType)
          rewriter.replaceOp(user, element);
      if (llvm::none_of(replaced.getUsers(), [&](Operation *user) {
            return generic->isAncestor(user);
          }))
        return;
      element = castToIndexInPayload(rewriter, generic, element);
    }
    rewriter.replaceUsesWithIf(replaced, element, [&](OpOperand &use) {
      return generic->isAncestor(use.getOwner());
    });
  };
  // A second reader of the same element (a scalar argument a sunk `%pos -
  // %window` reads again) reads the input the first one added.
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == tensor && op.getMatchingIndexingMap(input) == map) {
      readInPayload(op, op.getMatchingBlockArgument(input));
      return;
    }
  SmallVector<Value> inputs(op.getInputs());
  inputs.push_back(tensor);
  SmallVector<AffineMap> maps =
      llvm::map_to_vector(op.getDpsInputOperands(), [&](OpOperand *input) {
        return op.getMatchingIndexingMap(input);
      });
  maps.push_back(map);
  linalg::GenericOp generic =
      linalg_import::rebuildWithInputs(rewriter, op, inputs, maps);
  Block &body = generic.getRegion().front();
  readInPayload(generic, body.insertArgument(op.getNumDpsInputs(), elementType,
                                             replaced.getLoc()));
  rewriter.replaceOp(op, generic->getResults());
}

struct CapturedElementToInput : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "works on buffers");
    auto captured = findCapturedElement(op);
    if (!captured)
      return rewriter.notifyMatchFailure(
          op, "reads no element at constant indices from above");
    auto [extract, indices] = *captured;
    addConstantMapInput(rewriter, op, extract.getTensor(), indices,
                        extract.getResult());
    return success();
  }
};

/// Whether `value` is a scalar argument of a function, which the tools
/// downstream take as a 0-d tensor (ScalarArguments.h).
bool isScalarFunctionArgument(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && isScalarArgumentType(arg.getType()) &&
         arg.getOwner()->isEntryBlock() &&
         isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
}

/// Whether `op`, above a payload that reads its result, computes a scalar
/// from scalars alone and without effects, so that the payload can compute
/// it itself: `arith.divf %one, %alpha`.
bool isSinkableScalarOp(Operation *op) {
  return op && op->getNumResults() == 1 && op->getNumRegions() == 0 &&
         !op->hasTrait<OpTrait::ConstantLike>() && isMemoryEffectFree(op) &&
         llvm::all_of(op->getOperandTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); }) &&
         op->getResult(0).getType().isIntOrIndexOrFloat();
}

/// The first value from above that `op`'s payload reads and that is a
/// scalar function argument or the result of a sinkable scalar op.
Value findCapturedScalar(linalg::GenericOp op) {
  Value found;
  op.getRegion().walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      if (op->isAncestor(operand.getParentRegion()->getParentOp()))
        continue;
      if (isScalarFunctionArgument(operand) ||
          isSinkableScalarOp(operand.getDefiningOp())) {
        found = operand;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found;
}

/// The 0-d tensor holding the scalar function argument `arg`: a
/// tensor.from_elements at the top of the function, shared by its readers;
/// of the argument's cast to i64 for an index (ScalarArguments.h).
Value getScalarTensor(PatternRewriter &rewriter, BlockArgument arg) {
  for (OpOperand &use : arg.getUses())
    if (tensor::FromElementsOp tensor = getScalarArgumentTensorOf(use);
        tensor && tensor->getBlock() == arg.getOwner())
      return tensor;
  RankedTensorType type = getScalarArgumentTensorType(arg.getType());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(arg.getOwner());
  Value element = arg;
  if (arg.getType().isIndex())
    element = arith::IndexCastOp::create(rewriter, arg.getLoc(),
                                         type.getElementType(), arg);
  return tensor::FromElementsOp::create(rewriter, arg.getLoc(), type,
                                        ValueRange{element});
}

struct CapturedScalarToInput : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "works on buffers");
    // A scalar function argument passed as an input (`ins(%alpha : f32)`,
    // through a map with no results) is its 0-d tensor, read the same way.
    for (OpOperand *input : op.getDpsInputOperands())
      if (isScalarFunctionArgument(input->get())) {
        bool isIndex = input->get().getType().isIndex();
        Value tensor =
            getScalarTensor(rewriter, cast<BlockArgument>(input->get()));
        rewriter.modifyOpInPlace(op, [&] { input->set(tensor); });
        if (isIndex) {
          // The payload reads an i64 now, and casts it back.
          BlockArgument element = op.getMatchingBlockArgument(input);
          rewriter.modifyOpInPlace(
              op, [&] { element.setType(rewriter.getI64Type()); });
          Value index = castToIndexInPayload(rewriter, op, element);
          rewriter.replaceAllUsesExcept(element, index, index.getDefiningOp());
        }
        return success();
      }
    Value scalar = findCapturedScalar(op);
    if (!scalar)
      return rewriter.notifyMatchFailure(
          op, "reads no scalar argument or scalar computation from above");
    if (Operation *def = scalar.getDefiningOp()) {
      // Computed again per element: a division or two more per element
      // costs nothing next to a kernel launch, and the payload becomes
      // what the import reads.
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&op.getRegion().front());
      Operation *clone = rewriter.clone(*def);
      rewriter.replaceUsesWithIf(
          scalar, clone->getResult(0),
          [&](OpOperand &use) { return op->isAncestor(use.getOwner()); });
      return success();
    }
    Value tensor = getScalarTensor(rewriter, cast<BlockArgument>(scalar));
    addConstantMapInput(rewriter, op, tensor, {}, scalar);
    return success();
  }
};

/// Replaces `op`, which writes the scalar function argument `arg` to every
/// element of `init`, by the broadcast of the argument's 0-d tensor, which
/// the import reads as an operand.
void replaceByBroadcast(PatternRewriter &rewriter, Operation *op,
                        BlockArgument arg, Value init) {
  Value tensor = getScalarTensor(rewriter, arg);
  int64_t rank = cast<RankedTensorType>(init.getType()).getRank();
  rewriter.replaceOpWithNewOp<linalg::BroadcastOp>(
      op, tensor, init, llvm::to_vector(llvm::seq<int64_t>(0, rank)));
}

/// `linalg.fill ins(%alpha)` of a scalar function argument -> the broadcast
/// of its 0-d tensor (where the fill of a constant is the constant).
struct ScalarArgumentFillToBroadcast : public OpRewritePattern<linalg::FillOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::FillOp op,
                                PatternRewriter &rewriter) const override {
    Value value = op.getInputs().front();
    auto init = dyn_cast<RankedTensorType>(op.getOutputs().front().getType());
    if (!init || !op.hasPureTensorSemantics() ||
        !isScalarFunctionArgument(value) || value.getType().isIndex() ||
        value.getType() != init.getElementType())
      return rewriter.notifyMatchFailure(
          op, "fills no tensor with a scalar function argument");
    replaceByBroadcast(rewriter, op, cast<BlockArgument>(value),
                       op.getOutputs().front());
    return success();
  }
};

/// `tensor.splat %alpha` of a scalar function argument -> the broadcast of
/// its 0-d tensor, as for a fill.
struct ScalarArgumentSplatToBroadcast
    : public OpRewritePattern<tensor::SplatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::SplatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() ||
        !isScalarFunctionArgument(op.getInput()) ||
        op.getInput().getType().isIndex())
      return rewriter.notifyMatchFailure(
          op, "splats no scalar function argument into a static shape");
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    replaceByBroadcast(rewriter, op, cast<BlockArgument>(op.getInput()), init);
    return success();
  }
};

} // namespace

void mlsopt::populateCapturedElementPatterns(RewritePatternSet &patterns) {
  patterns.add<CapturedElementToInput, CapturedScalarToInput,
               ScalarArgumentFillToBroadcast, ScalarArgumentSplatToBroadcast>(
      patterns.getContext());
}
