//===- PayloadIdioms.cpp - Payload forms that become one kernel op --------===//
//
// Front ends spell activations and masks out in a linalg payload: sigmoid as
// 1 / (1 + exp(-x)), relu and clamp as a select on a comparison, a padding
// mask as a select on a boolean operand, softplus and elu with their
// thresholds, a causal mask as a select on loop indices or on a constant
// boolean triangle. The payload planner matches each form here and plans
// its kernel op.
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

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::linalg_import;

/// The operands of `value`'s defining op when it is an `OpTy` of the payload,
/// in both orders; none otherwise.
template <typename OpTy>
static SmallVector<std::pair<Value, Value>, 2> commutedOperands(Value value,
                                                                Block *body) {
  auto binary = value.getDefiningOp<OpTy>();
  if (!binary || binary->getBlock() != body)
    return {};
  return {{binary.getLhs(), binary.getRhs()},
          {binary.getRhs(), binary.getLhs()}};
}

bool PayloadPlanner::isConstant(Value value, double expected) {
  std::optional<APFloat> constant = getScalar(value);
  if (!constant)
    return false;
  APFloat rounded(expected);
  bool losesInfo = false;
  rounded.convert(constant->getSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  return constant->bitwiseIsEqual(rounded);
}

/// Returns `x` when `value` is `-x` as front ends write it (`arith.negf`,
/// `0 - x`, `x * -1`), else a null value. Under exp, as in sigmoid and
/// silu, the three agree (they differ at x = 0 in the sign of zero only).
Value PayloadPlanner::matchNegation(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != op.getBlock())
    return {};
  if (auto neg = dyn_cast<arith::NegFOp>(def))
    return neg.getOperand();
  if (auto sub = dyn_cast<arith::SubFOp>(def))
    return isConstant(sub.getLhs(), 0) ? sub.getRhs() : Value();
  if (auto mul = dyn_cast<arith::MulFOp>(def)) {
    if (isConstant(mul.getRhs(), -1))
      return mul.getLhs();
    if (isConstant(mul.getLhs(), -1))
      return mul.getRhs();
  }
  return {};
}

/// Returns `x` when `value` is the payload form of `sigmoid(x)`,
/// `1 / (1 + exp(-x))`, else a null value.
Value PayloadPlanner::matchSigmoid(Value value) {
  auto div = value.getDefiningOp<arith::DivFOp>();
  if (!div || div->getBlock() != op.getBlock() || !isConstant(div.getLhs(), 1))
    return {};
  for (auto [e, one] :
       commutedOperands<arith::AddFOp>(div.getRhs(), op.getBlock())) {
    auto exp = e.getDefiningOp<math::ExpOp>();
    Value x = exp ? matchNegation(exp.getOperand()) : Value();
    if (isConstant(one, 1) && x)
      return x;
  }
  return {};
}

/// Returns `x` when `value` is `x / (1 + exp(-x))`, silu written as one
/// quotient, else a null value.
Value PayloadPlanner::matchSiluQuotient(Value value) {
  auto div = value.getDefiningOp<arith::DivFOp>();
  if (!div || div->getBlock() != op.getBlock())
    return {};
  for (auto [e, one] :
       commutedOperands<arith::AddFOp>(div.getRhs(), op.getBlock())) {
    auto exp = e.getDefiningOp<math::ExpOp>();
    Value x = exp ? matchNegation(exp.getOperand()) : Value();
    if (isConstant(one, 1) && x && x == div.getLhs())
      return div.getLhs();
  }
  return {};
}

/// Returns `x` when `value` is the payload form of `rsqrt(x)`, `1 / sqrt(x)`
/// with the constant exactly 1, computed in f32, else a null value. In f32 the
/// kernel op computes the same two roundings; in f16 or bf16 each payload op
/// would round where the kernel op (computing in f32) rounds once, so only an
/// f32 payload (on f32 values, or extended f16/bf16 ones) matches.
Value PayloadPlanner::matchRsqrt(Value value) {
  auto div = value.getDefiningOp<arith::DivFOp>();
  if (!div || div->getBlock() != op.getBlock() || !div.getType().isF32() ||
      !isConstant(div.getLhs(), 1))
    return {};
  auto sqrt = div.getRhs().getDefiningOp<math::SqrtOp>();
  if (!sqrt || sqrt->getBlock() != op.getBlock())
    return {};
  return sqrt.getOperand();
}

/// Returns `x` when `value` is the payload form of `gelu(x)`,
/// `x * (1 + erf(x * c)) * 0.5` with `c` the constant 1/sqrt(2) (as the kernel
/// op computes it; or `x / sqrt(2)`, torch-mlir's), the halving applied to
/// any factor, else a null value.
/// Halving is exact, so where it happens changes no result.
Value PayloadPlanner::matchGelu(Value value) {
  Block *body = op.getBlock();
  // x when t is 1 + erf(x * c).
  auto cdfOf = [&](Value t) -> Value {
    for (auto [e, one] : commutedOperands<arith::AddFOp>(t, body)) {
      auto erf = e.getDefiningOp<math::ErfOp>();
      if (!isConstant(one, 1) || !erf)
        continue;
      for (auto [x, c] :
           commutedOperands<arith::MulFOp>(erf.getOperand(), body))
        if (isConstant(c, M_SQRT1_2))
          return x;
      // torch-mlir writes x / sqrt(2).
      if (auto div = erf.getOperand().getDefiningOp<arith::DivFOp>();
          div && div->getBlock() == body && isConstant(div.getRhs(), M_SQRT2))
        return div.getLhs();
    }
    return {};
  };
  for (auto [p, q] : commutedOperands<arith::MulFOp>(value, body)) {
    // (x * cdf) * 0.5
    if (isConstant(q, 0.5))
      for (auto [x, t] : commutedOperands<arith::MulFOp>(p, body))
        if (cdfOf(t) == x)
          return x;
    // (x * 0.5) * cdf
    for (auto [x, half] : commutedOperands<arith::MulFOp>(p, body))
      if (isConstant(half, 0.5) && cdfOf(q) == x)
        return x;
    // x * (cdf * 0.5)
    for (auto [t, half] : commutedOperands<arith::MulFOp>(q, body))
      if (isConstant(half, 0.5) && cdfOf(t) == p)
        return p;
  }
  return {};
}

/// Whether `cmp`, an order (strict or not), holds where `x`, one of its
/// operands, is the greater: true for `x > y` and `y < x`, false for
/// `x < y` and `y > x`; none for an equality or when x is neither operand.
static std::optional<bool> holdsWhereGreater(arith::CmpFOp cmp, Value x) {
  using P = arith::CmpFPredicate;
  P predicate = cmp.getPredicate();
  bool greater =
      llvm::is_contained({P::OGT, P::OGE, P::UGT, P::UGE}, predicate);
  if (!greater &&
      !llvm::is_contained({P::OLT, P::OLE, P::ULT, P::ULE}, predicate))
    return std::nullopt;
  if (cmp.getLhs() == x)
    return greater;
  if (cmp.getRhs() == x)
    return !greater;
  return std::nullopt;
}

/// torch-mlir's relu, clamp, threshold and leaky relu are a select on a
/// comparison of its own operands: `select(x > c, x, c)` and its mirror
/// images are max(x, c), the others min(x, c), and `select(x > 0, x, x * a)`
/// is a leaky relu. The comparison itself has no kernel op; it stays an
/// unused invalid step. NaN aside: an unordered comparison picks one side
/// for it, where the kernel ops keep the NaN.
/// `select(j - i >= d, c, x)` (or its complement with the operands swapped)
/// is the triangle_fill of x by the constant c: a causal mask. A condition
/// that is a union of triangles (a sliding window with its causal edge)
/// fills each in turn.
std::optional<PlannedValue>
PayloadPlanner::planTriangleFill(arith::SelectOp select) {
  if (select.getType() != elementType)
    return std::nullopt;
  Value x = select.getFalseValue();
  std::optional<APFloat> fill = getScalar(select.getTrueValue());
  bool negated = false;
  if (!fill) {
    x = select.getTrueValue();
    fill = getScalar(select.getFalseValue());
    negated = true;
  }
  if (!fill)
    return std::nullopt;
  std::optional<SmallVector<TriangleCondition, 2>> triangles =
      matchTriangleUnion(select.getCondition(), op.getBlock(), loopShape,
                         negated);
  if (!triangles)
    return std::nullopt;
  // Both sides constant: a causal mask built as a tensor of its own (0 and
  // -inf), which the scores are added to later. The triangle fills a splat
  // of the other side that varies along the compared loops only.
  if (std::optional<APFloat> base = getScalar(x)) {
    Step splat;
    splat.splat = true;
    splat.scalar = toDouble(*base);
    splat.shape.assign(loopShape.size(), 1);
    for (const TriangleCondition &t : *triangles)
      for (unsigned loop : {t.rows, t.cols})
        splat.shape[loop] = loopShape[loop];
    steps.push_back(std::move(splat));
    return fillTriangles(steps.size() - 1, *triangles, toDouble(*fill),
                         /*shift=*/0);
  }
  PlannedValue arg = getTensor(x);
  if (arg.unrounded)
    return std::nullopt;
  // The masked value must vary along both compared loops: the mask does.
  // Its step drops leading size-1 loops, so loop dims shift by their count.
  SmallVector<int64_t> shape = steps[arg.step].shape;
  int64_t shift = static_cast<int64_t>(loopShape.size()) -
                  static_cast<int64_t>(shape.size());
  for (const TriangleCondition &t : *triangles)
    for (unsigned loop : {t.rows, t.cols})
      if (static_cast<int64_t>(loop) < shift ||
          shape[loop - shift] != loopShape[loop])
        return std::nullopt;
  return fillTriangles(arg.step, *triangles, toDouble(*fill), shift);
}

PlannedValue
PayloadPlanner::fillTriangles(unsigned masked,
                              ArrayRef<TriangleCondition> triangles,
                              double fill, int64_t shift) {
  SmallVector<int64_t> shape = steps[masked].shape;
  for (const TriangleCondition &t : triangles) {
    Step step;
    step.args = {masked};
    step.scalar = fill;
    step.shape = shape;
    step.triangle =
        TriangleCondition{static_cast<unsigned>(t.rows - shift),
                          static_cast<unsigned>(t.cols - shift), t.diagonal};
    steps.push_back(std::move(step));
    masked = steps.size() - 1;
  }
  return PlannedValue{masked};
}

std::optional<PlannedValue> PayloadPlanner::planSelect(arith::SelectOp select) {
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp->getBlock() != op.getBlock() ||
      select.getType() != elementType)
    return std::nullopt;
  Value onTrue = select.getTrueValue(), onFalse = select.getFalseValue();
  // The comparison of x, the value the select may pass on, with c.
  Value x = getScalar(cmp.getLhs()) ? cmp.getRhs() : cmp.getLhs();
  Value c = x == cmp.getLhs() ? cmp.getRhs() : cmp.getLhs();
  std::optional<bool> holdsWhereXIsGreater = holdsWhereGreater(cmp, x);
  if (!holdsWhereXIsGreater)
    return std::nullopt;
  bool greater = *holdsWhereXIsGreater;
  std::optional<APFloat> bound = getScalar(c);
  // `select(x > y, x, y)` of two values (torch.where on their comparison)
  // is max(x, y), and its mirror images max or min.
  if (!bound && !getScalar(x)) {
    if (!((onTrue == x && onFalse == c) || (onTrue == c && onFalse == x)))
      return std::nullopt;
    PlannedValue lhs = getTensor(x), rhs = getTensor(c);
    if (lhs.unrounded || rhs.unrounded)
      return std::nullopt;
    bool isMax = (onTrue == x) == greater;
    return PlannedValue{
        isMax ? addBinary(buildBinary<kernel::MaxOp>, lhs.step, rhs.step)
              : addBinary(buildBinary<kernel::MinOp>, lhs.step, rhs.step)};
  }
  if (!bound || getScalar(x))
    return std::nullopt;
  PlannedValue arg = getTensor(x);
  if (arg.unrounded)
    return std::nullopt;

  // The constant may be another op of the same value (the front end
  // materialized it twice).
  auto isBound = [&](Value v) {
    std::optional<APFloat> other = getScalar(v);
    return v == c || (other && other->bitwiseIsEqual(*bound));
  };
  if ((onTrue == x && isBound(onFalse)) || (isBound(onTrue) && onFalse == x)) {
    // Picking x when it is the greater is the maximum.
    bool isMax = (onTrue == x) == greater;
    if (isMax && bound->isZero())
      return PlannedValue{addStep(buildUnary<kernel::ReluOp>, arg.step)};
    return PlannedValue{addStep(isMax ? buildScalar<kernel::MaxScalarOp>
                                      : buildScalar<kernel::MinScalarOp>,
                                arg.step, toDouble(*bound))};
  }
  // Leaky relu: x where x > 0, else x * a with 0 <= a <= 1, which is
  // relu(x) - a * relu(-x) exactly (one term is zero; negation is exact).
  Value scaled = onTrue == x ? onFalse : onTrue;
  auto mul = scaled.getDefiningOp<arith::MulFOp>();
  if (!bound->isZero() || (onTrue == x) != greater || !mul ||
      mul->getBlock() != op.getBlock())
    return std::nullopt;
  for (auto [factor, slope] : {std::pair(mul.getLhs(), mul.getRhs()),
                               std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<APFloat> a = getScalar(slope);
    if (factor != x || !a || a->isNegative() || toDouble(*a) > 1.0)
      continue;
    unsigned positive = addStep(buildUnary<kernel::ReluOp>, arg.step);
    unsigned negated = addStep(buildUnary<kernel::NegOp>, arg.step);
    unsigned negative = addStep(buildUnary<kernel::ReluOp>, negated);
    unsigned leak =
        addStep(buildScalar<kernel::MulScalarOp>, negative, -toDouble(*a));
    return PlannedValue{addBinary(buildBinary<kernel::AddOp>, positive, leak)};
  }
  return std::nullopt;
}

/// The boolean operand that `condition` reads, and whether it reads its
/// negation (`arith.xori` with true, as torch-mlir writes `~mask`).
std::optional<std::pair<BlockArgument, bool>>
PayloadPlanner::getMask(Value condition) {
  bool negated = false;
  while (auto xori = condition.getDefiningOp<arith::XOrIOp>()) {
    if (xori->getBlock() != op.getBlock())
      return std::nullopt;
    if (matchPattern(xori.getRhs(), m_One()))
      condition = xori.getLhs();
    else if (matchPattern(xori.getLhs(), m_One()))
      condition = xori.getRhs();
    else
      return std::nullopt;
    negated = !negated;
  }
  BlockArgument arg = getTensorArgument(condition);
  if (!arg || !arg.getType().isInteger(1))
    return std::nullopt;
  return std::pair(arg, negated);
}

/// `value` if it is the payload's element of a tensor operand (not the
/// accumulator); null otherwise.
BlockArgument PayloadPlanner::getTensorArgument(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBlock() || arg == accumulator ||
      !isa<RankedTensorType>(op.getMatchingOpOperand(arg)->get().getType()))
    return {};
  return arg;
}

/// A step that makes floats of the mask or integer operand `input`, with
/// the shape the operand would have as a tensor step; the caller says how
/// (`where` or `intToFloat`).
Step &PayloadPlanner::addInputConversion(BlockArgument input) {
  Step step;
  step.shape = steps[getTensor(input).step].shape;
  step.operand = op.getMatchingOpOperand(input)->getOperandNumber();
  steps.push_back(std::move(step));
  return steps.back();
}

unsigned PayloadPlanner::addWhere(BlockArgument mask, double onTrue,
                                  double onFalse) {
  addInputConversion(mask).where = std::pair(onTrue, onFalse);
  return steps.size() - 1;
}

unsigned PayloadPlanner::addIntToFloat(BlockArgument integers,
                                       bool isUnsigned) {
  addInputConversion(integers).intToFloat = isUnsigned;
  return steps.size() - 1;
}

/// A select on a boolean operand (torch.where(mask, x, y), masked_fill).
/// A tensor x kept where the mask is `keptWhen` is `x + where(mask, 0,
/// -inf)` (or its mirror): x where kept, -inf where dropped, which is the
/// additive mask attention adds to its scores, and all a fill of -inf
/// needs. Another fill c is the max of that and `where(mask, -inf, c)`, and
/// a select of two tensors the max of both kept forms. Exact wherever x (or
/// y) is finite or -inf, where a product by a 0/1 mask would make NaN of a
/// masked-off -inf (scores a causal mask has filled); a dropped +inf or NaN
/// gives NaN, not the fill.
std::optional<PlannedValue>
PayloadPlanner::planMaskSelect(arith::SelectOp select) {
  std::optional<std::pair<BlockArgument, bool>> mask =
      getMask(select.getCondition());
  if (!mask || select.getType() != elementType)
    return std::nullopt;
  auto [arg, negated] = *mask;
  Value onTrue = select.getTrueValue(), onFalse = select.getFalseValue();
  if (negated)
    std::swap(onTrue, onFalse);
  std::optional<APFloat> trueValue = getScalar(onTrue);
  std::optional<APFloat> falseValue = getScalar(onFalse);
  if (trueValue && falseValue)
    return PlannedValue{
        addWhere(arg, toDouble(*trueValue), toDouble(*falseValue))};
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  // x where the mask is `keptWhen`, -inf elsewhere.
  auto kept = [&](Value value, bool keptWhen) -> std::optional<unsigned> {
    PlannedValue x = getTensor(value);
    if (x.unrounded)
      return std::nullopt;
    unsigned bias =
        keptWhen ? addWhere(arg, 0.0, kNegInf) : addWhere(arg, kNegInf, 0.0);
    return addBinary(buildBinary<kernel::AddOp>, x.step, bias);
  };
  if (!trueValue && !falseValue) {
    std::optional<unsigned> x = kept(onTrue, true), y = kept(onFalse, false);
    if (!x || !y)
      return std::nullopt;
    return PlannedValue{addBinary(buildBinary<kernel::MaxOp>, *x, *y)};
  }
  bool keptWhen = !trueValue;
  std::optional<unsigned> x = kept(keptWhen ? onTrue : onFalse, keptWhen);
  if (!x)
    return std::nullopt;
  double c = toDouble(keptWhen ? *falseValue : *trueValue);
  if (c == kNegInf)
    return PlannedValue{*x};
  unsigned fill =
      keptWhen ? addWhere(arg, kNegInf, c) : addWhere(arg, c, kNegInf);
  return PlannedValue{addBinary(buildBinary<kernel::MaxOp>, *x, fill)};
}

/// `x` when `value` is `x * c` or `c * x` for a constant c (then `factor`
/// is c), or `value` itself (no factor).
Value PayloadPlanner::matchScaledBy(Value value,
                                    std::optional<APFloat> &factor) {
  factor.reset();
  auto mul = value.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != op.getBlock())
    return value;
  for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())})
    if (std::optional<APFloat> constant = getScalar(c);
        constant && !getScalar(x)) {
      factor = constant;
      return x;
    }
  return value;
}

/// The sides of `select(x P c, ...)` or `select(c P x, ...)`, with c a
/// constant and P an order (strict or not): the one taken where x is the
/// greater, the other, and c; none for another comparison.
std::optional<PayloadPlanner::OrderedSides>
PayloadPlanner::getOrderedSides(arith::SelectOp select, Value x) {
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp)
    return std::nullopt;
  std::optional<bool> greater = holdsWhereGreater(cmp, x);
  if (!greater)
    return std::nullopt;
  std::optional<APFloat> bound =
      getScalar(cmp.getLhs() == x ? cmp.getRhs() : cmp.getLhs());
  if (!bound)
    return std::nullopt;
  Value onTrue = select.getTrueValue(), onFalse = select.getFalseValue();
  return OrderedSides{*greater ? onTrue : onFalse, *greater ? onFalse : onTrue,
                      *bound};
}

/// torch's softplus, `select(b x > 20, x, log1p(exp(b x)) / b)` (torch-mlir
/// decomposes F.softplus, and Mish, so), is softplus(b x) / b: the threshold
/// must be torch's 20, kernel.softplus's. In f16 the payload's exp
/// overflows past 11, where the op, in f32, still gives x: the op is the
/// more accurate, as the sigmoid and silu idioms are.
std::optional<PlannedValue>
PayloadPlanner::planSoftplus(arith::SelectOp select) {
  if (select.getType() != elementType && select.getType() != wideType)
    return std::nullopt;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp->getBlock() != op.getBlock())
    return std::nullopt;
  for (Value scaled : {cmp.getLhs(), cmp.getRhs()}) {
    std::optional<APFloat> beta;
    Value x = matchScaledBy(scaled, beta);
    // 20 is exact in every element type.
    std::optional<OrderedSides> sides = getOrderedSides(select, scaled);
    if (!sides || sides->ifGreater != x || getScalar(x) ||
        toDouble(sides->bound) != 20.0)
      continue;
    double b = beta ? toDouble(*beta) : 1.0;
    // In f32 on f16 or bf16 values, the scaling by b would round where the
    // payload does not.
    bool unrounded = select.getType() != elementType;
    if (!(b > 0) || (unrounded && b != 1.0))
      continue;
    // The other side: log1p(exp(b x)), divided by b (or times 1 / b).
    Value smooth = sides->otherwise;
    std::optional<APFloat> unscale;
    Value log1p = matchScaledBy(smooth, unscale);
    if (unscale && toDouble(*unscale) * b != 1.0)
      continue;
    if (auto div = smooth.getDefiningOp<arith::DivFOp>();
        !unscale && div && div->getBlock() == op.getBlock()) {
      if (!isConstant(div.getRhs(), b))
        continue;
      log1p = div.getLhs();
    } else if (!unscale && b != 1.0) {
      continue;
    }
    auto log = log1p.getDefiningOp<math::Log1pOp>();
    auto exp = log ? log.getOperand().getDefiningOp<math::ExpOp>() : nullptr;
    if (!exp || exp.getOperand() != scaled ||
        log->getBlock() != op.getBlock() || exp->getBlock() != op.getBlock())
      continue;
    PlannedValue arg = getTensor(x);
    if (arg.unrounded)
      return std::nullopt;
    unsigned step = arg.step;
    if (b != 1.0)
      step = addStep(buildScalar<kernel::MulScalarOp>, step, b);
    step = addStep(buildUnary<kernel::SoftplusOp>, step);
    if (b != 1.0)
      step = addStep(buildScalar<kernel::MulScalarOp>, step, 1.0 / b);
    return PlannedValue{step, unrounded};
  }
  return std::nullopt;
}

/// torch's elu, `select(x > 0, x, a (exp(x) - 1))` with a > 0 (either
/// order, non-strict too: at 0 both sides are 0), is relu(x) +
/// min(a (exp(x) - 1), 0) exactly: one term is zero, and the other is
/// computed as the payload computes it. (x = inf: inf + 0.) SELU and the
/// input scale of torch-mlir's elu, `select(x > 0, c x, a (exp(s x) - 1))`
/// with c, s > 0, are c relu(x) and exp(s x) in those terms.
std::optional<PlannedValue> PayloadPlanner::planElu(arith::SelectOp select) {
  if (select.getType() != elementType)
    return std::nullopt;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp->getBlock() != op.getBlock())
    return std::nullopt;
  auto isPositive = [](const std::optional<APFloat> &c) {
    return !c || toDouble(*c) > 0;
  };
  for (Value x : {cmp.getLhs(), cmp.getRhs()}) {
    std::optional<OrderedSides> sides = getOrderedSides(select, x);
    if (!sides || !sides->bound.isZero() || getScalar(x))
      continue;
    std::optional<APFloat> scale, alpha, inputScale;
    if (matchScaledBy(sides->ifGreater, scale) != x || !isPositive(scale))
      continue;
    Value expMinusOne = matchScaledBy(sides->otherwise, alpha);
    if (!isPositive(alpha) || !expMinusOne)
      continue;
    // exp(s x) - 1, or math.expm1(s x) (torch.expm1, StableHLO's
    // exponential_minus_one): computed as the former, within an ulp of f16
    // and bf16 results and about 1e-7 * alpha absolute in f32, where
    // expm1 keeps the relative precision of tiny |x| that exp - 1 loses.
    Value exponentOf;
    if (auto sub = expMinusOne.getDefiningOp<arith::SubFOp>();
        sub && sub->getBlock() == op.getBlock() &&
        isConstant(sub.getRhs(), 1.0)) {
      if (auto exp = sub.getLhs().getDefiningOp<math::ExpOp>();
          exp && exp->getBlock() == op.getBlock())
        exponentOf = exp.getOperand();
    } else if (auto expm1 = expMinusOne.getDefiningOp<math::ExpM1Op>();
               expm1 && expm1->getBlock() == op.getBlock()) {
      exponentOf = expm1.getOperand();
    }
    if (!exponentOf || matchScaledBy(exponentOf, inputScale) != x ||
        !isPositive(inputScale))
      continue;
    PlannedValue arg = getTensor(x);
    if (arg.unrounded)
      return std::nullopt;
    unsigned positive = addStep(buildUnary<kernel::ReluOp>, arg.step);
    if (scale)
      positive =
          addStep(buildScalar<kernel::MulScalarOp>, positive, toDouble(*scale));
    unsigned exponent = arg.step;
    if (inputScale)
      exponent = addStep(buildScalar<kernel::MulScalarOp>, exponent,
                         toDouble(*inputScale));
    unsigned negative =
        addStep(buildScalar<kernel::AddScalarOp>,
                addStep(buildUnary<kernel::ExpOp>, exponent), -1.0);
    if (alpha)
      negative =
          addStep(buildScalar<kernel::MulScalarOp>, negative, toDouble(*alpha));
    negative = addStep(buildScalar<kernel::MinScalarOp>, negative, 0.0);
    return PlannedValue{
        addBinary(buildBinary<kernel::AddOp>, positive, negative)};
  }
  return std::nullopt;
}
