//===- PayloadPlanner.h - linalg payloads as kernel ops ----------*- C++
//-*-===//
//
// The planner that translates the payload of a linalg op, one iteration of
// its loops, into kernel ops on whole tensors. PayloadPlanner.cpp holds the
// op-by-op translation, PayloadIdioms.cpp the payload forms that become one
// kernel op (sigmoid, silu, rsqrt, gelu, relu and clamp selects, masks,
// softplus, elu, causal fills).
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_CONVERSION_LINALGTOKERNEL_PAYLOADPLANNER_H
#define MLSOPT_LIB_CONVERSION_LINALGTOKERNEL_PAYLOADPLANNER_H

#include "ImportSupport.h"
#include "TriangleMasks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallBitVector.h"

#include <optional>
#include <string>

namespace mlsopt::linalg_import {

namespace arith = mlir::arith;
namespace linalg = mlir::linalg;
using mlir::APFloat;
using mlir::ArrayRef;
using mlir::BlockArgument;
using mlir::DenseMap;
using mlir::FailureOr;
using mlir::Float32Type;
using mlir::Location;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::PatternRewriter;
using mlir::SmallVector;
using mlir::Twine;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;

/// Creates the kernel op of one step from the values of its arguments.
using StepBuilder = Value (*)(OpBuilder &, Location, ValueRange, double);

template <typename OpTy>
Value buildUnary(OpBuilder &b, Location loc, ValueRange args, double) {
  return OpTy::create(b, loc, args[0]);
}

template <typename OpTy>
Value buildBinary(OpBuilder &b, Location loc, ValueRange args, double) {
  return OpTy::create(b, loc, args[0], args[1]);
}

template <typename OpTy>
Value buildScalar(OpBuilder &b, Location loc, ValueRange args, double scalar) {
  return OpTy::create(b, loc, args[0], b.getF64FloatAttr(scalar));
}

/// One tensor of the replacement: an operand of the linalg op read in loop
/// order (`build` null), or a kernel op applied to earlier steps. A step the
/// kernel dialect cannot express says why in `invalid`; that fails the plan
/// only if the result depends on it, so the parts of an idiom that became
/// one kernel op (the exp of a sigmoid) need not be expressible themselves.
struct Step {
  StepBuilder build = nullptr;
  unsigned operand = 0;
  SmallVector<unsigned, 2> args;
  double scalar = 0.0;
  SmallVector<int64_t> shape;
  std::string invalid;
  /// The mask of a triangle_fill of args[0] by `scalar`, in the dims of
  /// the step (`build` is null).
  std::optional<TriangleCondition> triangle;
  /// `where(mask, on_true, on_false)` of the boolean operand `operand`
  /// (`build` is null): the mask is mapped before it is reshaped or
  /// transposed, so that only float tensors move between kernel ops.
  std::optional<std::pair<double, double>> where;
  /// `int_to_float` of the integer operand `operand`, unsigned if true
  /// (`build` is null), made before it is reshaped, as `where`.
  std::optional<bool> intToFloat;
  /// A constant of `scalar` in every element of `shape` (`build` is null):
  /// what a triangle fills when both sides of its select are constants.
  bool splat = false;
};

/// How a payload value relates to the tensor of its step. Kernel ops on f16
/// and bf16 compute in f32 and round once, so a payload that extends to f32,
/// computes one op and truncates back (as --convert-kernel-to-linalg writes
/// a kernel op) is that kernel op; between the op and the truncation the
/// payload value is the unrounded f32 result.
struct PlannedValue {
  unsigned step;
  bool unrounded = false;
};

/// Translates the payload of a linalg op, computed for one iteration of its
/// loops, into kernel ops computed on tensors over all iterations at once. A
/// payload value becomes a tensor whose dims are the op's loop dims in order,
/// with size 1 where the value does not vary along a loop, and leading size-1
/// dims left to numpy broadcasting. The plan is made in full before anything
/// is created, so a payload it cannot express leaves the IR untouched.
class PayloadPlanner {
public:
  PayloadPlanner(linalg::LinalgOp op, PatternRewriter &rewriter,
                 Type elementType, ArrayRef<int64_t> loopShape)
      : op(op), rewriter(rewriter), elementType(elementType),
        // f16 and bf16 payloads may compute in f32 (see PlannedValue).
        wideType(elementType.isF32() ? Type()
                                     : Float32Type::get(op.getContext())),
        loopShape(loopShape),
        loopOrder(llvm::to_vector(llvm::seq<unsigned>(0, loopShape.size()))) {}

  /// Plans the computation of the payload value `root`. `accumulator`, when
  /// given, is a block argument the computation must not read.
  FailureOr<unsigned> plan(Value root, BlockArgument accumulator = {});

  /// True if `step` varies along every loop.
  bool coversAllLoops(unsigned step) const {
    return isLoopShape(steps[step].shape);
  }

  /// True if some operand the plan reads covers every loop, so no tensor of
  /// the plan is larger than an operand.
  bool readsFullOperand() const {
    return llvm::any_of(llvm::seq<unsigned>(0, steps.size()), [&](unsigned i) {
      return live.test(i) && isOperandStep(steps[i]) &&
             isLoopShape(steps[i].shape);
    });
  }

  /// Creates the kernel ops of `root` and of the steps it depends on. The
  /// result has the op's loop shape: the leading size-1 dims that
  /// broadcasting left out are put back.
  Value emit(Location loc, unsigned root);

private:
  static bool isOperandStep(const Step &step) {
    return !step.build && !step.triangle && !step.where && !step.intToFloat &&
           !step.splat;
  }
  bool isLoopShape(ArrayRef<int64_t> shape) const {
    return dropLeadingUnitDims(shape) == dropLeadingUnitDims(loopShape);
  }
  std::optional<APFloat> getScalar(Value value);
  PlannedValue getTensor(Value value);
  PlannedValue planOp(Operation *payloadOp);
  std::optional<PlannedValue> planSelect(arith::SelectOp select);
  std::optional<PlannedValue> planMaskSelect(arith::SelectOp select);
  BlockArgument getTensorArgument(Value value);
  std::optional<std::pair<BlockArgument, bool>> getMask(Value condition);
  Step &addInputConversion(BlockArgument input);
  unsigned addWhere(BlockArgument mask, double onTrue, double onFalse);
  unsigned addIntToFloat(BlockArgument integers, bool isUnsigned);
  std::optional<PlannedValue> planTriangleFill(arith::SelectOp select);
  /// Fills `fill` into `masked` on each of `triangles`, whose loops are
  /// `shift` more than the step's dims (the leading size-1 loops it drops).
  PlannedValue fillTriangles(unsigned masked,
                             ArrayRef<TriangleCondition> triangles, double fill,
                             int64_t shift);
  std::optional<PlannedValue> planSoftplus(arith::SelectOp select);
  std::optional<PlannedValue> planElu(arith::SelectOp select);
  Value matchScaledBy(Value value, std::optional<APFloat> &factor);
  struct OrderedSides {
    Value ifGreater, otherwise;
    APFloat bound;
  };
  std::optional<OrderedSides> getOrderedSides(arith::SelectOp select, Value x);
  unsigned addInvalid(const Twine &reason);
  unsigned addStep(StepBuilder build, ArrayRef<unsigned> args,
                   double scalar = 0.0);
  unsigned addBinary(StepBuilder build, unsigned lhs, unsigned rhs);
  bool isConstant(Value value, double expected);
  Value matchNegation(Value value);
  Value matchSigmoid(Value value);
  Value matchSiluQuotient(Value value);
  Value matchRsqrt(Value value);
  Value matchGelu(Value value);

  linalg::LinalgOp op;
  PatternRewriter &rewriter;
  Type elementType;
  Type wideType;
  ArrayRef<int64_t> loopShape;
  SmallVector<unsigned> loopOrder;
  BlockArgument accumulator;
  SmallVector<Step> steps;
  DenseMap<Value, PlannedValue> planned;
  llvm::SmallBitVector live;
};

} // namespace mlsopt::linalg_import

#endif // MLSOPT_LIB_CONVERSION_LINALGTOKERNEL_PAYLOADPLANNER_H
