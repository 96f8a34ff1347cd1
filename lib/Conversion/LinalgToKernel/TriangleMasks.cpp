//===- TriangleMasks.cpp - Causal-mask conditions in linalg payloads ------===//

#include "TriangleMasks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// sum over loops of coefficient * index, plus a constant.
struct LinearIndex {
  llvm::SmallMapVector<unsigned, int64_t, 2> coefficients;
  int64_t constant = 0;
  /// Every coefficient is +1 and the constant is >= 0: the value is never
  /// negative, so unsigned and signed comparisons of it agree.
  bool isNonNegative() const {
    return constant >= 0 && llvm::all_of(coefficients, [](auto &entry) {
             return entry.second >= 0;
           });
  }
};

/// Bounds the expressions accepted so that a pathological payload cannot
/// overflow the coefficients.
constexpr int64_t kMaxMagnitude = int64_t(1) << 40;

std::optional<LinearIndex> getLinearIndex(Value value, Block *body,
                                          unsigned depth = 0) {
  if (depth > 16)
    return std::nullopt;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    if (constant.getSignificantBits() > 41)
      return std::nullopt;
    LinearIndex r;
    r.constant = constant.getSExtValue();
    return r;
  }
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != body)
    return std::nullopt;
  if (auto index = dyn_cast<linalg::IndexOp>(def)) {
    LinearIndex r;
    r.coefficients[index.getDim()] = 1;
    return r;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    return getLinearIndex(def->getOperand(0), body, depth + 1);
  bool isAdd = isa<arith::AddIOp>(def), isSub = isa<arith::SubIOp>(def);
  if (!isAdd && !isSub)
    return std::nullopt;
  std::optional<LinearIndex> lhs =
      getLinearIndex(def->getOperand(0), body, depth + 1);
  std::optional<LinearIndex> rhs =
      getLinearIndex(def->getOperand(1), body, depth + 1);
  if (!lhs || !rhs)
    return std::nullopt;
  int64_t sign = isAdd ? 1 : -1;
  lhs->constant += sign * rhs->constant;
  for (auto [dim, c] : rhs->coefficients)
    lhs->coefficients[dim] += sign * c;
  if (std::abs(lhs->constant) > kMaxMagnitude)
    return std::nullopt;
  return lhs;
}

} // namespace

std::optional<TriangleCondition> mlsopt::matchTriangleCondition(Value condition,
                                                                Block *body) {
  auto cmp = condition.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp->getBlock() != body)
    return std::nullopt;
  std::optional<LinearIndex> lhs = getLinearIndex(cmp.getLhs(), body);
  std::optional<LinearIndex> rhs = getLinearIndex(cmp.getRhs(), body);
  if (!lhs || !rhs)
    return std::nullopt;
  using P = arith::CmpIPredicate;
  P predicate = cmp.getPredicate();
  // Unsigned comparisons of indices are signed ones while neither side can
  // be negative (what a front end writes: `j > i + past`).
  bool isUnsigned =
      llvm::is_contained({P::ugt, P::uge, P::ult, P::ule}, predicate);
  if (isUnsigned && !(lhs->isNonNegative() && rhs->isNonNegative()))
    return std::nullopt;
  // lhs - rhs = c0 * i[u] + c1 * i[v] + constant, compared with 0.
  LinearIndex difference = *lhs;
  difference.constant -= rhs->constant;
  for (auto [dim, c] : rhs->coefficients)
    difference.coefficients[dim] -= c;
  std::optional<unsigned> plus, minus;
  for (auto [dim, c] : difference.coefficients) {
    if (c == 0)
      continue;
    if (c == 1 && !plus)
      plus = dim;
    else if (c == -1 && !minus)
      minus = dim;
    else
      return std::nullopt;
  }
  if (!plus || !minus)
    return std::nullopt;
  // i[plus] - i[minus] + k P 0.
  int64_t k = difference.constant;
  TriangleCondition greaterEqual{*minus, *plus, 0};
  switch (predicate) {
  case P::sgt:
  case P::ugt: // > -k is >= 1 - k
    greaterEqual.diagonal = 1 - k;
    return greaterEqual;
  case P::sge:
  case P::uge:
    greaterEqual.diagonal = -k;
    return greaterEqual;
  case P::slt:
  case P::ult: // < -k is the complement of >= -k
    greaterEqual.diagonal = -k;
    return greaterEqual.complement();
  case P::sle:
  case P::ule: // <= -k is the complement of >= 1 - k
    greaterEqual.diagonal = 1 - k;
    return greaterEqual.complement();
  default:
    return std::nullopt;
  }
}
