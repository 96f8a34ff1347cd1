//===- PayloadPlanner.cpp - linalg payloads as kernel ops, op by op -------===//
//
// The payload planner's steps and the translation of each payload op
// (arith, math, conversions) into kernel ops; the forms that become one
// kernel op are in PayloadIdioms.cpp.
//
//===----------------------------------------------------------------------===//

#include "PayloadPlanner.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/Constants.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::linalg_import;

namespace {

/// The largest |n| of x^n imported as products: 2 log2(n) kernel ops at
/// most. A larger integer power has no kernel op (exp(n log x) would lose
/// the sign of a negative base).
constexpr int64_t kMaxIntegerPower = 64;

/// c / x (torch's reciprocal, `c / x`, `x.pow(-1)`): kernel.div of a splat
/// constant of x's rank, size 1 along every dim (broadcast), by x. No
/// reciprocal op: Mirage has none, and as an operand the constant is one
/// more input the kernels load (a dense constant, which the GPU pipeline
/// copies to the device).
Value buildConstantDividedBy(OpBuilder &b, Location loc, ValueRange args,
                             double scalar) {
  auto type = cast<RankedTensorType>(args[0].getType());
  auto constantType = RankedTensorType::get(
      SmallVector<int64_t>(type.getRank(), 1), type.getElementType());
  Value constant = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(constantType,
                             b.getFloatAttr(type.getElementType(), scalar)));
  return kernel::DivOp::create(b, loc, constant, args[0]);
}

} // namespace

unsigned PayloadPlanner::addInvalid(const Twine &reason) {
  Step step;
  step.invalid = reason.str();
  steps.push_back(std::move(step));
  return steps.size() - 1;
}

unsigned PayloadPlanner::addStep(StepBuilder build, ArrayRef<unsigned> args,
                                 double scalar) {
  Step step;
  step.build = build;
  step.args.assign(args.begin(), args.end());
  step.scalar = scalar;
  step.shape = steps[args.front()].shape;
  steps.push_back(std::move(step));
  return steps.size() - 1;
}

unsigned PayloadPlanner::addBinary(StepBuilder build, unsigned lhs,
                                   unsigned rhs) {
  ShapeOrError shape = broadcastShapes(steps[lhs].shape, steps[rhs].shape);
  if (!shape.ok())
    return addInvalid(shape.error);
  unsigned index = addStep(build, {lhs, rhs});
  steps[index].shape = shape.shape;
  return index;
}

std::optional<APFloat> PayloadPlanner::getScalar(Value value) {
  FloatAttr attr;
  if (matchPattern(value, m_Constant(&attr)))
    return attr.getValue();
  // A constant cast to the payload's type (torch-mlir's f64 scalars, an
  // eps, truncated in the body): the cast constant, rounded to nearest.
  if (isa_and_nonnull<arith::TruncFOp, arith::ExtFOp>(value.getDefiningOp()) &&
      matchPattern(value.getDefiningOp()->getOperand(0), m_Constant(&attr))) {
    APFloat converted = attr.getValue();
    bool losesInfo = false;
    converted.convert(cast<FloatType>(value.getType()).getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &losesInfo);
    return converted;
  }
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBlock() || arg == accumulator)
    return std::nullopt;
  Value operand = op.getMatchingOpOperand(arg)->get();
  if (isa<RankedTensorType>(operand.getType()))
    return getSplatValue(operand);
  return getConstantOfType(operand, elementType);
}

PlannedValue PayloadPlanner::getTensor(Value value) {
  if (auto it = planned.find(value); it != planned.end())
    return it->second;
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBlock())
    return {addInvalid("payload reads a value from outside its block that is "
                       "not a constant")};
  if (arg == accumulator)
    return {addInvalid("payload reads the accumulator outside the combiner")};
  OpOperand *operand = op.getMatchingOpOperand(arg);
  auto type = dyn_cast<RankedTensorType>(operand->get().getType());
  if (!type)
    return {addInvalid("payload reads a scalar operand that is not a "
                       "constant")};
  AffineMap map = op.getMatchingIndexingMap(operand);
  if (!isProjectedPermutationWithZeros(map))
    return {addInvalid("an operand map is not a projected permutation")};
  SmallVector<int64_t> shape(loopShape.size(), 1);
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    int64_t size = type.getDimSize(i);
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      // The linalg verifier checks that the size is the loop's.
      shape[dim.getPosition()] = size;
    } else if (size != 1) {
      // A constant index into a larger dim reads a slice, not a broadcast.
      return {addInvalid("an operand is read at a constant index of a dim "
                         "> 1")};
    }
  }
  Step step;
  step.operand = operand->getOperandNumber();
  // Numpy broadcasting supplies leading size-1 dims: a bias `[n]` is used as
  // it is, not reshaped to `[1, n]`, and a `[1, n]` operand is not reshaped
  // to `[n]` either.
  ArrayRef<int64_t> stepShape(shape);
  while (stepShape.size() > static_cast<size_t>(type.getRank()) &&
         !stepShape.empty() && stepShape.front() == 1)
    stepShape = stepShape.drop_front();
  step.shape.assign(stepShape.begin(), stepShape.end());
  steps.push_back(std::move(step));
  PlannedValue result{static_cast<unsigned>(steps.size() - 1)};
  planned[value] = result;
  return result;
}

PlannedValue PayloadPlanner::planOp(Operation *payloadOp) {
  auto invalid = [&](const Twine &reason) -> PlannedValue {
    return {addInvalid("payload op '" + payloadOp->getName().getStringRef() +
                       "' " + reason)};
  };
  if (payloadOp->getNumResults() != 1 || payloadOp->getNumRegions() != 0)
    return invalid("has no kernel op");
  // An embedding lookup or any other gather: which element is read is
  // computed in the payload, which no kernel op's fixed access pattern
  // expresses. (Its index types were reported as the cause before.)
  if (isa<tensor::ExtractOp>(payloadOp))
    return invalid("reads a tensor at indices it computes (a gather), "
                   "which no kernel op does");
  Type type = payloadOp->getResult(0).getType();
  if (type != elementType && type != wideType)
    return invalid("computes in a type kernel ops do not have");

  // Extending to f32 and truncating back change no value of the element
  // type; a truncation rounds an unrounded kernel op result as the op would.
  if (auto ext = dyn_cast<arith::ExtFOp>(payloadOp)) {
    if (ext.getIn().getType() != elementType)
      return invalid("extends from a type other than the element type");
    PlannedValue in = getTensor(ext.getIn());
    if (in.unrounded)
      return invalid("extends an unrounded value");
    return in;
  }
  if (auto trunc = dyn_cast<arith::TruncFOp>(payloadOp)) {
    if (trunc.getIn().getType() != wideType ||
        trunc.getRoundingmode().value_or(
            arith::RoundingMode::to_nearest_even) !=
            arith::RoundingMode::to_nearest_even)
      return invalid("is not a rounding to nearest from f32");
    return {getTensor(trunc.getIn()).step};
  }

  // Small integer powers (torch-mlir's x.pow(2) in an RMSNorm, x^3 in the
  // tanh form of gelu): x^2 is square(x), exact; x^3 square(x) * x, within
  // an ulp. Before the type check: the exponent is an integer.
  if (isa<math::FPowIOp, math::PowFOp>(payloadOp)) {
    Value base = payloadOp->getOperand(0), exponent = payloadOp->getOperand(1);
    std::optional<APFloat> floatPower = getScalar(exponent);
    std::optional<int64_t> power;
    APInt intPower;
    if (matchPattern(exponent, m_ConstantInt(&intPower)))
      power = intPower.getSExtValue();
    else if (floatPower && floatPower->isInteger() &&
             std::abs(toDouble(*floatPower)) <= kMaxIntegerPower)
      power = static_cast<int64_t>(toDouble(*floatPower));
    // An infinite or NaN exponent has no kernel op.
    if (floatPower && !floatPower->isFinite())
      floatPower.reset();
    // In f32 on f16 or bf16 values the op is the kernel op before it
    // rounds (see PlannedValue); x^3 would round its square in between.
    bool unrounded = type != elementType;
    // Each form computes on the base as the element type holds it.
    auto getRoundedBase = [&](Value value) -> std::optional<unsigned> {
      PlannedValue x = getTensor(value);
      return x.unrounded ? std::nullopt : std::optional<unsigned>(x.step);
    };
    auto unroundedBase = [&] {
      return invalid("computes on an f32 result that a kernel op would have "
                     "rounded");
    };
    if (power == 2 || (power == 3 && !unrounded)) {
      // |x|^2 (a vector norm's) is x^2.
      if (auto abs = base.getDefiningOp<math::AbsFOp>();
          abs && abs->getBlock() == op.getBlock() && power == 2)
        base = abs.getOperand();
      std::optional<unsigned> x = getRoundedBase(base);
      if (!x)
        return unroundedBase();
      unsigned square = addStep(buildUnary<kernel::SquareOp>, *x);
      if (power == 2)
        return {square, unrounded};
      return {addBinary(buildBinary<kernel::MulOp>, square, *x), unrounded};
    }
    // x^-1 is 1 / x, exact.
    if (power == -1) {
      std::optional<unsigned> x = getRoundedBase(base);
      if (!x)
        return unroundedBase();
      return {addStep(buildConstantDividedBy, *x, 1.0), unrounded};
    }
    // x^0.5 is sqrt(x) and x^-0.5 rsqrt(x), torch's `x.pow(-0.5)` in a
    // norm (each pair differs at -0 and -inf only).
    double half = floatPower ? toDouble(*floatPower) : 0;
    if (half == 0.5 || half == -0.5) {
      if (std::optional<unsigned> x = getRoundedBase(base))
        return {half > 0 ? addStep(buildUnary<kernel::SqrtOp>, *x)
                         : addStep(buildUnary<kernel::RsqrtOp>, *x),
                unrounded};
    }
    // Other constant powers, where the payload computes in the element
    // type: a chain of kernel ops rounds where the op would round once, so
    // one computed in f32 on f16 or bf16 values is not imported.
    if ((power || floatPower) && !unrounded) {
      std::optional<unsigned> x = getRoundedBase(base);
      if (!x)
        return unroundedBase();
      // An integer power by squaring (x^4 = square(square(x))), within an
      // ulp per product; a negative one is its reciprocal. Either keeps
      // the sign of a negative base, which exp(c log x) would not.
      if (power && *power != 0 && std::abs(*power) <= kMaxIntegerPower) {
        uint64_t n = std::abs(*power);
        std::optional<unsigned> result;
        unsigned square = *x;
        for (; n; n >>= 1) {
          if (n & 1)
            result =
                result ? addBinary(buildBinary<kernel::MulOp>, *result, square)
                       : square;
          if (n > 1)
            square = addStep(buildUnary<kernel::SquareOp>, square);
        }
        if (*power < 0)
          result = addStep(buildConstantDividedBy, *result, 1.0);
        return {*result};
      }
      // x^c = exp(c log x) for any other constant c: like powf, NaN for a
      // negative x, 0 or inf for a zero one (as c > 0 or c < 0), within
      // about |c log x| ulps.
      if (floatPower && !floatPower->isInteger()) {
        unsigned log = addStep(buildUnary<kernel::LogOp>, *x);
        unsigned scaled = addStep(buildScalar<kernel::MulScalarOp>, log,
                                  toDouble(*floatPower));
        return {addStep(buildUnary<kernel::ExpOp>, scaled)};
      }
    }
    return invalid("is a power with no kernel op");
  }
  // A boolean mask as a number (torch's `mask.float()`, `mask.to(dtype)`):
  // 1 or 0, and -1 or 0 for a signed conversion of the one-bit value.
  if (isa<arith::UIToFPOp, arith::SIToFPOp>(payloadOp) && type == elementType) {
    // Through an integer extension of the mask (`mask.long().float()`): a
    // zero extension is 1 or 0, a sign extension -1 or 0, as an integer of
    // its width.
    Value converted = payloadOp->getOperand(0);
    bool signExtended = false;
    unsigned width = 1;
    if (auto ext = converted.getDefiningOp<arith::ExtUIOp>();
        ext && ext->getBlock() == op.getBlock() &&
        ext.getIn().getType().isInteger(1)) {
      converted = ext.getIn();
      width = ext.getType().getIntOrFloatBitWidth();
    } else if (auto ext = converted.getDefiningOp<arith::ExtSIOp>();
               ext && ext->getBlock() == op.getBlock() &&
               ext.getIn().getType().isInteger(1)) {
      converted = ext.getIn();
      signExtended = true;
      width = ext.getType().getIntOrFloatBitWidth();
    }
    if (auto mask = getMask(converted)) {
      // The set bits read as a signed or an unsigned integer of `width`.
      bool allOnes = signExtended || width == 1;
      double one = !allOnes ? 1.0
                   : isa<arith::SIToFPOp>(payloadOp)
                       ? -1.0
                       : std::ldexp(1.0, width) - 1;
      return {mask->second ? addWhere(mask->first, 0.0, one)
                           : addWhere(mask->first, one, 0.0)};
    }
    // An integer operand as a number (Hugging Face's int64 attention_mask
    // `.to(dtype)`).
    BlockArgument arg = getTensorArgument(payloadOp->getOperand(0));
    if (arg && isa<IntegerType>(arg.getType()) && !arg.getType().isInteger(1))
      return {addIntToFloat(arg, isa<arith::UIToFPOp>(payloadOp))};
  }
  if (auto select = dyn_cast<arith::SelectOp>(payloadOp)) {
    // Before the boolean masks: a constant mask that is a triangle (a
    // causal mask buffer) is a triangle_fill, which loads no mask.
    if (std::optional<PlannedValue> fill = planTriangleFill(select))
      return *fill;
    if (std::optional<PlannedValue> masked = planMaskSelect(select))
      return *masked;
    if (std::optional<PlannedValue> bound = planSelect(select))
      return *bound;
    if (std::optional<PlannedValue> softplus = planSoftplus(select))
      return *softplus;
    if (std::optional<PlannedValue> elu = planElu(select))
      return *elu;
    return invalid("is no maximum or minimum with a constant, leaky relu, "
                   "elu or softplus");
  }
  if (llvm::any_of(payloadOp->getOperandTypes(),
                   [&](Type operandType) { return operandType != type; }))
    return invalid("mixes types");
  // An op in f32 on f16 or bf16 values is the kernel op before it rounds.
  bool unrounded = type != elementType;

  // Idioms that are one kernel op, matched before their parts: in f32 the
  // parts would each need a rounding the idiom does not have.
  // 1 / (1 + exp(-x)) is sigmoid(x), 1 / sqrt(x) (in f32) is rsqrt(x),
  // x * sigmoid(x) (in either order) and x / (1 + exp(-x)) are silu(x), and
  // x * (1 + erf(x / sqrt(2))) / 2 is gelu(x).
  auto idiom = [&](StepBuilder build, Value x) -> std::optional<unsigned> {
    PlannedValue arg = getTensor(x);
    if (arg.unrounded)
      return std::nullopt;
    return addStep(build, arg.step);
  };
  if (auto div = dyn_cast<arith::DivFOp>(payloadOp)) {
    if (Value x = matchSigmoid(div.getResult()))
      if (std::optional<unsigned> step =
              idiom(buildUnary<kernel::SigmoidOp>, x))
        return {*step, unrounded};
    if (Value x = matchRsqrt(div.getResult()))
      if (std::optional<unsigned> step = idiom(buildUnary<kernel::RsqrtOp>, x))
        return {*step, unrounded};
    // x / (1 + exp(-x)) is silu(x) in any type, as 1 / (1 + exp(-x)) is
    // sigmoid(x): kernel.silu rounds once where the payload's steps may
    // each round, so the op is the more accurate (within an ulp per step),
    // and one op instead of four keeps a gated MLP within max-kernel-ops.
    if (Value x = matchSiluQuotient(div.getResult()))
      if (std::optional<unsigned> step = idiom(buildUnary<kernel::SiluOp>, x))
        return {*step, unrounded};
  }
  if (auto mul = dyn_cast<arith::MulFOp>(payloadOp)) {
    if (Value x = matchGelu(mul.getResult()))
      if (std::optional<unsigned> step = idiom(buildUnary<kernel::GeluOp>, x))
        return {*step, unrounded};
    for (auto [x, s] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())})
      if (matchSigmoid(s) == x)
        if (std::optional<unsigned> step = idiom(buildUnary<kernel::SiluOp>, x))
          return {*step, unrounded};
  }
  // Operands are tensors (steps) or constants (scalars). A kernel op rounds
  // its result, so it cannot compute on an unrounded f32 value.
  SmallVector<std::optional<APFloat>, 2> scalars;
  SmallVector<unsigned, 2> tensors;
  for (Value operand : payloadOp->getOperands()) {
    scalars.push_back(getScalar(operand));
    if (scalars.back())
      continue;
    PlannedValue value = getTensor(operand);
    if (value.unrounded)
      return invalid("computes on an f32 result that a kernel op would have "
                     "rounded");
    tensors.push_back(value.step);
  }
  if (tensors.empty())
    return invalid("computes on constants only");

  auto unary = [&](StepBuilder build) { return addStep(build, tensors[0]); };
  // For a binary op with one constant operand: the constant, and whether it
  // is the left operand.
  std::optional<APFloat> constant = scalars.size() == 2
                                        ? (scalars[0] ? scalars[0] : scalars[1])
                                        : std::nullopt;
  bool constantIsLhs = scalars.size() == 2 && scalars[0].has_value();

  auto kernelStep =
      llvm::TypeSwitch<Operation *, std::optional<unsigned>>(payloadOp)
          .Case([&](arith::NegFOp) { return unary(buildUnary<kernel::NegOp>); })
          .Case([&](math::ExpOp) { return unary(buildUnary<kernel::ExpOp>); })
          .Case([&](math::Exp2Op) {
            // 2^x is e^(x ln 2) (a base-2 softmax, as Triton's and
            // FlashAttention's kernels write it): no exp2 kernel op, as
            // Mirage has none; the scaled exponent rounds once more, which
            // costs |x ln 2| ulps of the result at most.
            unsigned scaled = addStep(buildScalar<kernel::MulScalarOp>,
                                      tensors[0], llvm::numbers::ln2);
            return addStep(buildUnary<kernel::ExpOp>, scaled);
          })
          .Case([&](math::LogOp) { return unary(buildUnary<kernel::LogOp>); })
          // log2(x) and log10(x) are log(x) / ln 2 and log(x) / ln 10: no
          // kernel op of their own (Mirage has none); the product rounds
          // once more, within an ulp and a half of the result.
          .Case<math::Log2Op, math::Log10Op>([&](Operation *logOp) {
            double base = isa<math::Log2Op>(logOp) ? llvm::numbers::ln2
                                                   : llvm::numbers::ln10;
            unsigned log = addStep(buildUnary<kernel::LogOp>, tensors[0]);
            return addStep(buildScalar<kernel::MulScalarOp>, log, 1.0 / base);
          })
          .Case([&](math::SqrtOp) { return unary(buildUnary<kernel::SqrtOp>); })
          .Case(
              [&](math::RsqrtOp) { return unary(buildUnary<kernel::RsqrtOp>); })
          .Case([&](math::TanhOp) { return unary(buildUnary<kernel::TanhOp>); })
          .Case([&](math::ErfOp) { return unary(buildUnary<kernel::ErfOp>); })
          .Case([&](math::SinOp) { return unary(buildUnary<kernel::SinOp>); })
          .Case([&](math::CosOp) { return unary(buildUnary<kernel::CosOp>); })
          .Case(
              [&](math::Log1pOp) { return unary(buildUnary<kernel::Log1pOp>); })
          .Case(
              [&](math::FloorOp) { return unary(buildUnary<kernel::FloorOp>); })
          .Case([&](math::CeilOp) { return unary(buildUnary<kernel::CeilOp>); })
          .Case([&](math::RoundEvenOp) {
            return unary(buildUnary<kernel::RoundOp>);
          })
          .Case([&](math::AbsFOp) {
            // |x| == max(x, -x) exactly, -0.0 and NaN included: the negation
            // is exact. (No abs kernel op: Mirage has none either.)
            unsigned negated = addStep(buildUnary<kernel::NegOp>, tensors[0]);
            return addBinary(buildBinary<kernel::MaxOp>, tensors[0], negated);
          })
          .Case([&](arith::AddFOp) {
            if (constant)
              return addStep(buildScalar<kernel::AddScalarOp>, tensors[0],
                             toDouble(*constant));
            return addBinary(buildBinary<kernel::AddOp>, tensors[0],
                             tensors[1]);
          })
          .Case([&](arith::SubFOp) {
            if (!constant)
              return addBinary(buildBinary<kernel::SubOp>, tensors[0],
                               tensors[1]);
            // x - c == x + (-c) and c - x == (-x) + c exactly in IEEE
            // arithmetic; the negation is exact, so rounding it is too.
            double c = toDouble(*constant);
            if (!constantIsLhs)
              return addStep(buildScalar<kernel::AddScalarOp>, tensors[0], -c);
            unsigned negated = addStep(buildUnary<kernel::NegOp>, tensors[0]);
            return addStep(buildScalar<kernel::AddScalarOp>, negated, c);
          })
          .Case([&](arith::MulFOp mul) {
            if (constant)
              return addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                             toDouble(*constant));
            if (mul.getLhs() == mul.getRhs())
              return addStep(buildUnary<kernel::SquareOp>, tensors[0]);
            return addBinary(buildBinary<kernel::MulOp>, tensors[0],
                             tensors[1]);
          })
          .Case([&](arith::DivFOp) -> std::optional<unsigned> {
            if (!constant)
              return addBinary(buildBinary<kernel::DivOp>, tensors[0],
                               tensors[1]);
            // c / x (but for the sigmoid and rsqrt idioms above): exact,
            // the constant is the payload's.
            if (constantIsLhs)
              return addStep(buildConstantDividedBy, tensors[0],
                             toDouble(*constant));
            // x / c == x * (1 / c) exactly when 1 / c is exact.
            APFloat inverse(constant->getSemantics());
            if (constant->getExactInverse(&inverse))
              return addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                             toDouble(inverse));
            // A mean's x / n (torch-mlir's mean: a sum, then a division by
            // the count): x * (1.0 / n), within an ulp of the quotient, and
            // the same program over the verifier's field, which reads the
            // rounded 1/n as 1/n (mlsopt/Support/Constants.h).
            double c = toDouble(*constant);
            if (c >= 2 && c <= static_cast<double>(kMaxReciprocalDenominator) &&
                c == std::floor(c) && getRoundedReciprocal(1.0 / c))
              return addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                             1.0 / c);
            // Any other scale (attention scores / sqrt(128), whose
            // reciprocal is not exact): x * (1.0 / c) with the reciprocal
            // in f64, within an ulp of the quotient in the element type.
            // The verifier compares kernel programs, which share the
            // constant; only the comparison with the linalg program's
            // quotient is within an ulp.
            if (std::isfinite(1.0 / c) && 1.0 / c != 0.0)
              return addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                             1.0 / c);
            return std::nullopt;
          })
          // fma(a, b, c) is a * b + c, rounded twice where fma rounds once
          // (within an ulp).
          .Case([&](math::FmaOp fma) -> std::optional<unsigned> {
            if (scalars[0] && scalars[1])
              return std::nullopt;
            unsigned product =
                scalars[0] || scalars[1]
                    ? addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                              toDouble(scalars[0] ? *scalars[0] : *scalars[1]))
                : fma.getA() == fma.getB()
                    ? addStep(buildUnary<kernel::SquareOp>, tensors[0])
                    : addBinary(buildBinary<kernel::MulOp>, tensors[0],
                                tensors[1]);
            if (scalars[2])
              return addStep(buildScalar<kernel::AddScalarOp>, product,
                             toDouble(*scalars[2]));
            return addBinary(buildBinary<kernel::AddOp>, product,
                             tensors.back());
          })
          // maxnumf and minnumf (torch.fmax, torch.fmin) differ from
          // maximumf and minimumf only where one operand is NaN: they return
          // the other, where the kernel ops give NaN.
          .Case<arith::MaximumFOp, arith::MaxNumFOp>(
              [&](Operation *) -> std::optional<unsigned> {
                // max(x, +0.0) is relu(x); with another constant (a clamp's
                // lower bound) it is max_scalar; of two tensors
                // (torch.maximum), max.
                if (!constant)
                  return addBinary(buildBinary<kernel::MaxOp>, tensors[0],
                                   tensors[1]);
                if (constant->isPosZero())
                  return unary(buildUnary<kernel::ReluOp>);
                return addStep(buildScalar<kernel::MaxScalarOp>, tensors[0],
                               toDouble(*constant));
              })
          .Case<arith::MinimumFOp, arith::MinNumFOp>(
              [&](Operation *) -> std::optional<unsigned> {
                // A clamp's upper bound, or torch.minimum of two tensors.
                if (!constant)
                  return addBinary(buildBinary<kernel::MinOp>, tensors[0],
                                   tensors[1]);
                return addStep(buildScalar<kernel::MinScalarOp>, tensors[0],
                               toDouble(*constant));
              })
          .Default([&](Operation *) { return std::nullopt; });
  if (!kernelStep) {
    if (isa<arith::DivFOp>(payloadOp))
      return invalid("divides by a constant without a finite reciprocal");
    return invalid("has no kernel op");
  }
  return {*kernelStep, unrounded};
}

FailureOr<unsigned> PayloadPlanner::plan(Value root,
                                         BlockArgument accumulatorArg) {
  accumulator = accumulatorArg;
  Block *body = op.getBlock();
  // Only the ops `root` depends on are translated; the payload is one block
  // in SSA order, so a walk over the block sees operands first.
  SmallPtrSet<Operation *, 16> needed;
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body || !needed.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &payloadOp : body->without_terminator())
    if (needed.contains(&payloadOp) &&
        !payloadOp.hasTrait<OpTrait::ConstantLike>())
      planned[payloadOp.getResult(0)] = planOp(&payloadOp);

  if (getScalar(root))
    return rewriter.notifyMatchFailure(op, "payload yields a constant");
  PlannedValue result = getTensor(root);
  if (result.unrounded)
    return rewriter.notifyMatchFailure(op, "payload yields an f32 value");

  // Steps refer to earlier steps only: one backward sweep finds the ones the
  // result depends on.
  live.resize(steps.size());
  live.set(result.step);
  for (unsigned i = result.step + 1; i-- > 0;) {
    if (!live.test(i))
      continue;
    if (!steps[i].invalid.empty())
      return rewriter.notifyMatchFailure(op, steps[i].invalid);
    for (unsigned arg : steps[i].args)
      live.set(arg);
  }
  return result.step;
}

/// The float constant of `type` that `where` or `int_to_float` (as `step`
/// says) makes of the integer constant `constant`.
static DenseElementsAttr convertConstant(DenseElementsAttr constant,
                                         RankedTensorType type,
                                         const Step &step) {
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  auto toFloat = [&](double value) {
    APFloat result(value);
    bool losesInfo = false;
    result.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    return result;
  };
  SmallVector<APFloat> values;
  values.reserve(constant.getNumElements());
  if (step.where) {
    APFloat onTrue = toFloat(step.where->first);
    APFloat onFalse = toFloat(step.where->second);
    for (bool bit : constant.getValues<bool>())
      values.push_back(bit ? onTrue : onFalse);
  } else {
    for (const APInt &integer : constant.getValues<APInt>()) {
      APFloat value(semantics);
      value.convertFromAPInt(integer, /*IsSigned=*/!*step.intToFloat,
                             APFloat::rmNearestTiesToEven);
      values.push_back(value);
    }
  }
  return DenseElementsAttr::get(type, values);
}

Value PayloadPlanner::emit(Location loc, unsigned root) {
  SmallVector<Value> values(root + 1);
  for (unsigned i = 0; i <= root; ++i) {
    if (!live.test(i))
      continue;
    const Step &step = steps[i];
    if (isOperandStep(step)) {
      OpOperand &operand = op->getOpOperand(step.operand);
      values[i] = readOperand(rewriter, loc, operand.get(),
                              op.getMatchingIndexingMap(&operand), loopOrder,
                              step.shape);
      continue;
    }
    SmallVector<Value, 2> args = llvm::map_to_vector(
        step.args, [&](unsigned arg) { return values[arg]; });
    if (step.where || step.intToFloat) {
      OpOperand &operand = op->getOpOperand(step.operand);
      auto floatType =
          cast<RankedTensorType>(operand.get().getType()).clone(elementType);
      // A constant mask or integer tensor (a boolean buffer torch-mlir
      // folded in) is mapped here: a float constant runs where an integer
      // one could not (the GPU pipeline copies float constants only).
      DenseElementsAttr constant;
      Value mapped;
      if (matchPattern(operand.get(), m_Constant(&constant)))
        mapped = arith::ConstantOp::create(
            rewriter, loc, convertConstant(constant, floatType, step));
      else if (step.where)
        mapped = kernel::WhereOp::create(
            rewriter, loc, floatType, operand.get(),
            rewriter.getF64FloatAttr(step.where->first),
            rewriter.getF64FloatAttr(step.where->second));
      else
        mapped = kernel::IntToFloatOp::create(rewriter, loc, floatType,
                                              operand.get(), *step.intToFloat);
      values[i] = readOperand(rewriter, loc, mapped,
                              op.getMatchingIndexingMap(&operand), loopOrder,
                              step.shape);
      continue;
    }
    if (step.splat) {
      auto type = RankedTensorType::get(step.shape, elementType);
      values[i] = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(
              type, rewriter.getFloatAttr(elementType, step.scalar)));
      continue;
    }
    if (step.triangle) {
      values[i] = kernel::TriangleFillOp::create(
          rewriter, loc, args[0],
          rewriter.getDenseI64ArrayAttr(
              {step.triangle->rows, step.triangle->cols}),
          rewriter.getI64IntegerAttr(step.triangle->diagonal),
          rewriter.getF64FloatAttr(step.scalar));
      continue;
    }
    values[i] = step.build(rewriter, loc, args, step.scalar);
  }
  return reshapeUnitDims(rewriter, loc, values[root], loopShape);
}
