//===- TriangleMasks.cpp - Causal-mask conditions in linalg payloads ------===//

#include "TriangleMasks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// sum over loops of coefficient * index, plus a constant, with a bound on
/// the magnitude of every value computed on the way to it.
struct LinearIndex {
  llvm::SmallMapVector<unsigned, int64_t, 2> coefficients;
  int64_t constant = 0;
  /// |v| <= magnitude for this value and every value it is computed from,
  /// over all loop indices.
  int64_t magnitude = 0;
  /// Every coefficient is +1 and the constant is >= 0: the value is never
  /// negative, so unsigned and signed comparisons of it agree.
  bool isNonNegative() const {
    return constant >= 0 && llvm::all_of(coefficients, [](auto &entry) {
             return entry.second >= 0;
           });
  }
};

/// Keeps the arithmetic below far from int64_t overflow.
constexpr int64_t kMaxMagnitude = int64_t(1) << 40;

/// The width of an integer or index value (index as 64 bits).
unsigned getWidth(Type type) {
  return type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
}

class LinearIndexMatcher {
public:
  LinearIndexMatcher(Block *body, ArrayRef<int64_t> loopShape)
      : body(body), loopShape(loopShape) {}

  /// `value` as a linear form of loop indices, if it is one and no value on
  /// the way to it can wrap around in its integer type.
  std::optional<LinearIndex> match(Value value, unsigned depth = 0) {
    std::optional<LinearIndex> r = matchUnchecked(value, depth);
    if (!r || r->magnitude > kMaxMagnitude)
      return std::nullopt;
    // A signed value of `width` bits holds |v| < 2^(width - 1): an i8 or
    // i32 index past that wraps, and the comparison the payload makes is
    // then not the one of the linear form.
    unsigned width = getWidth(value.getType());
    if (width < 2 ||
        (width <= 62 && r->magnitude >= (int64_t(1) << (width - 1))))
      return std::nullopt;
    return r;
  }

private:
  std::optional<LinearIndex> matchUnchecked(Value value, unsigned depth) {
    if (depth > 16 || !value.getType().isIntOrIndex())
      return std::nullopt;
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant))) {
      if (constant.getSignificantBits() > 41)
        return std::nullopt;
      LinearIndex r;
      r.constant = constant.getSExtValue();
      r.magnitude = std::abs(r.constant);
      return r;
    }
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != body)
      return std::nullopt;
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      if (index.getDim() >= loopShape.size() ||
          ShapedType::isDynamic(loopShape[index.getDim()]))
        return std::nullopt;
      LinearIndex r;
      r.coefficients[index.getDim()] = 1;
      r.magnitude = loopShape[index.getDim()] - 1;
      return r;
    }
    // A signed cast keeps the value when it fits, which match() checks of
    // the result; an unsigned one also needs it non-negative.
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def)) {
      std::optional<LinearIndex> in = match(def->getOperand(0), depth + 1);
      if (in && isa<arith::IndexCastUIOp>(def) && !in->isNonNegative())
        return std::nullopt;
      return in;
    }
    bool isAdd = isa<arith::AddIOp>(def), isSub = isa<arith::SubIOp>(def);
    if (!isAdd && !isSub)
      return std::nullopt;
    std::optional<LinearIndex> lhs = match(def->getOperand(0), depth + 1);
    std::optional<LinearIndex> rhs = match(def->getOperand(1), depth + 1);
    if (!lhs || !rhs)
      return std::nullopt;
    int64_t sign = isAdd ? 1 : -1;
    lhs->constant += sign * rhs->constant;
    for (auto [dim, c] : rhs->coefficients)
      lhs->coefficients[dim] += sign * c;
    lhs->magnitude += rhs->magnitude;
    return lhs;
  }

  Block *body;
  ArrayRef<int64_t> loopShape;
};

} // namespace

std::optional<TriangleCondition>
mlsopt::matchTriangleCondition(Value condition, Block *body,
                               ArrayRef<int64_t> loopShape) {
  auto cmp = condition.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp->getBlock() != body)
    return std::nullopt;
  LinearIndexMatcher matcher(body, loopShape);
  std::optional<LinearIndex> lhs = matcher.match(cmp.getLhs());
  std::optional<LinearIndex> rhs = matcher.match(cmp.getRhs());
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
  // One index against a constant (`j > past` of a decode step, whose query
  // index canonicalization folded to 0 on a loop of extent 1) is the
  // triangle over that index and a loop of extent 1, whose index is 0.
  auto unitLoop =
      [&](std::optional<unsigned> other) -> std::optional<unsigned> {
    for (auto [dim, extent] : llvm::enumerate(loopShape))
      if (extent == 1 && dim != other)
        return dim;
    return std::nullopt;
  };
  if (plus && !minus)
    minus = unitLoop(plus);
  else if (minus && !plus)
    plus = unitLoop(minus);
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

/// The triangle {c - r >= diagonal} of an R x C boolean matrix whose rows
/// hold their true elements at the end (row r: columns r + diagonal on),
/// read row-major from `bits`; none if it is not one, or holds no row that
/// is neither all true nor all false (which would leave the diagonal open).
static std::optional<int64_t> getSuffixDiagonal(ArrayRef<bool> bits,
                                                int64_t rows, int64_t cols) {
  std::optional<int64_t> diagonal;
  for (int64_t r = 0; r < rows && !diagonal; ++r) {
    int64_t count = llvm::count(bits.slice(r * cols, cols), true);
    if (count > 0 && count < cols)
      diagonal = cols - count - r;
  }
  if (!diagonal)
    return std::nullopt;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (bits[r * cols + c] != (c - r >= *diagonal))
        return std::nullopt;
  return diagonal;
}

/// The triangle where the boolean operand of `arg`'s linalg op is true,
/// when it is a constant (a causal mask buffer torch-mlir folded in, such
/// as GPT-2's `bias`) whose dims larger than 1 are two, read at loop dims.
static std::optional<TriangleCondition>
matchConstantTriangle(BlockArgument arg) {
  auto op = dyn_cast_or_null<linalg::LinalgOp>(arg.getOwner()->getParentOp());
  if (!op)
    return std::nullopt;
  OpOperand *operand = op.getMatchingOpOperand(arg);
  DenseElementsAttr mask;
  if (!op.isDpsInput(operand) ||
      !matchPattern(operand->get(), m_Constant(&mask)) ||
      !mask.getElementType().isInteger(1) || mask.isSplat())
    return std::nullopt;
  ArrayRef<int64_t> shape = mask.getType().getShape();
  SmallVector<unsigned, 2> loops;
  SmallVector<int64_t, 2> sizes;
  for (auto [size, expr] : llvm::zip_equal(
           shape, op.getMatchingIndexingMap(operand).getResults())) {
    if (size == 1)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return std::nullopt;
    loops.push_back(dim.getPosition());
    sizes.push_back(size);
  }
  if (loops.size() != 2 || loops[0] == loops[1])
    return std::nullopt;
  // With every other dim of size 1, element (r, c) is at r * cols + c.
  SmallVector<bool> bits = llvm::to_vector(mask.getValues<bool>());
  if (std::optional<int64_t> d = getSuffixDiagonal(bits, sizes[0], sizes[1]))
    return TriangleCondition{loops[0], loops[1], *d};
  for (auto &&bit : bits)
    bit = !bit;
  if (std::optional<int64_t> d = getSuffixDiagonal(bits, sizes[0], sizes[1]))
    return TriangleCondition{loops[0], loops[1], *d}.complement();
  return std::nullopt;
}

std::optional<SmallVector<TriangleCondition, 2>>
mlsopt::matchTriangleUnion(Value condition, Block *body,
                           ArrayRef<int64_t> loopShape, bool negated) {
  if (auto arg = dyn_cast<BlockArgument>(condition);
      arg && arg.getOwner() == body) {
    std::optional<TriangleCondition> t = matchConstantTriangle(arg);
    if (!t)
      return std::nullopt;
    return SmallVector<TriangleCondition, 2>{negated ? t->complement() : *t};
  }
  Operation *def = condition.getDefiningOp();
  if (!def || def->getBlock() != body)
    return std::nullopt;
  if (isa<arith::CmpIOp>(def)) {
    std::optional<TriangleCondition> t =
        matchTriangleCondition(condition, body, loopShape);
    if (!t)
      return std::nullopt;
    return SmallVector<TriangleCondition, 2>{negated ? t->complement() : *t};
  }
  if (auto xorOp = dyn_cast<arith::XOrIOp>(def)) {
    if (matchPattern(xorOp.getRhs(), m_One()))
      return matchTriangleUnion(xorOp.getLhs(), body, loopShape, !negated);
    if (matchPattern(xorOp.getLhs(), m_One()))
      return matchTriangleUnion(xorOp.getRhs(), body, loopShape, !negated);
    return std::nullopt;
  }
  // A union of unions: `or`, or a negated `and`. (An intersection of
  // triangles is no union of them.)
  if ((isa<arith::OrIOp>(def) && !negated) ||
      (isa<arith::AndIOp>(def) && negated)) {
    auto lhs = matchTriangleUnion(def->getOperand(0), body, loopShape, negated);
    auto rhs = matchTriangleUnion(def->getOperand(1), body, loopShape, negated);
    if (!lhs || !rhs)
      return std::nullopt;
    lhs->append(rhs->begin(), rhs->end());
    return lhs;
  }
  return std::nullopt;
}
