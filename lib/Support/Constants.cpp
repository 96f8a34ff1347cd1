//===- Constants.cpp - What float constants stand for ---------------------===//

#include "mlsopt/Support/Constants.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

#include <cmath>

using namespace mlsopt;

namespace {
/// A float type a front end may have rounded 1.0 / n to, by its precision
/// (significant bits) and the frexp exponent of its smallest normal value.
struct RoundingType {
  const llvm::fltSemantics *semantics;
  int precision;
  int minExponent;
};

constexpr int64_t kMinDenominator = 2;

/// Whether 1.0 / n, rounded to `type`, is `value`.
bool roundsTo(int64_t n, double value, const RoundingType &type) {
  return roundTo(1.0 / static_cast<double>(n), *type.semantics) == value;
}
} // namespace

double mlsopt::roundTo(double value, const llvm::fltSemantics &semantics) {
  llvm::APFloat rounded(value);
  bool losesInfo = false;
  rounded.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return rounded.convertToDouble();
}

bool mlsopt::isRoundingOf(double value, double exact) {
  for (const llvm::fltSemantics *semantics :
       {&llvm::APFloat::IEEEdouble(), &llvm::APFloat::IEEEsingle(),
        &llvm::APFloat::IEEEhalf(), &llvm::APFloat::BFloat()})
    if (roundTo(exact, *semantics) == value)
      return true;
  return false;
}

static std::optional<int64_t>
computeRoundedReciprocal(double value, llvm::ArrayRef<int64_t> extents,
                         mlir::Type roundingType);

std::optional<int64_t>
mlsopt::getRoundedReciprocal(double value, llvm::ArrayRef<int64_t> extents,
                             mlir::Type roundingType) {
  if (!(value > 0 && value <= 0.5))
    return std::nullopt;
  if (!extents.empty() || roundingType)
    return computeRoundedReciprocal(value, extents, roundingType);
  // The search's normal form reads the same few constants millions of
  // times; each thread remembers its answers.
  thread_local llvm::DenseMap<uint64_t, std::optional<int64_t>> cache;
  auto [it, inserted] =
      cache.try_emplace(llvm::bit_cast<uint64_t>(value), std::nullopt);
  if (inserted)
    it->second = computeRoundedReciprocal(value, {}, {});
  return it->second;
}

static std::optional<int64_t>
computeRoundedReciprocal(double value, llvm::ArrayRef<int64_t> extents,
                         mlir::Type roundingType) {
  // In f64 at most one n has 1.0 / n == value; a narrower type may have
  // rounded several others to it (2^-12 is f16(1 / 4097) too).
  static const RoundingType kTypes[] = {
      {&llvm::APFloat::IEEEdouble(), 53, -1021},
      {&llvm::APFloat::IEEEsingle(), 24, -125},
      {&llvm::APFloat::IEEEhalf(), 11, -13},
      {&llvm::APFloat::BFloat(), 8, -125},
  };
  // The n that each type may have rounded to `value`: those whose 1/n lies
  // within an ulp of it (a superset, checked by roundsTo).
  struct Range {
    int64_t lo, hi;
    const RoundingType *type;
  };
  llvm::SmallVector<Range, 3> ranges;
  int exponent = 0;
  std::frexp(value, &exponent);
  const llvm::fltSemantics *narrow =
      roundingType
          ? &llvm::cast<mlir::FloatType>(roundingType).getFloatSemantics()
          : nullptr;
  for (const RoundingType &type : kTypes) {
    // A program of one narrow type wrote no constant rounded to the other.
    if (narrow && type.precision < 24 && type.semantics != narrow)
      continue;
    // Only a type that holds `value` can have rounded 1/n to it.
    if (roundTo(value, *type.semantics) != value)
      continue;
    double ulp =
        std::ldexp(1.0, std::max(exponent, type.minExponent) - type.precision);
    double lo = std::floor(1.0 / (value + ulp));
    double hi = value > ulp ? std::ceil(1.0 / (value - ulp))
                            : static_cast<double>(kMaxReciprocalDenominator);
    lo = std::max(lo, static_cast<double>(kMinDenominator));
    hi = std::min(hi, static_cast<double>(kMaxReciprocalDenominator));
    if (lo <= hi)
      ranges.push_back(
          {static_cast<int64_t>(lo), static_cast<int64_t>(hi), &type});
  }
  auto rounds = [&](int64_t n) {
    return llvm::any_of(ranges, [&](const Range &r) {
      return n >= r.lo && n <= r.hi && roundsTo(n, value, *r.type);
    });
  };
  // Of several n, the one nearest 1 / value (the smaller on a tie).
  auto closer = [&](int64_t a, std::optional<int64_t> b) {
    if (!b)
      return true;
    double da = std::fabs(static_cast<double>(a) - 1.0 / value);
    double db = std::fabs(static_cast<double>(*b) - 1.0 / value);
    return da < db || (da == db && a < *b);
  };

  // An extent of the program: the count its mean divides by.
  std::optional<int64_t> best;
  for (int64_t n : extents)
    if (rounds(n) && closer(n, best))
      best = n;
  if (best)
    return best;
  // Else the n divisible by the highest power of two: extents are, and a
  // rule that does not depend on how near 1 / value the n falls reads the
  // rounded 1 / 3072 as 3072, not 3073.
  for (int k = 30; k >= 0; --k) {
    int64_t step = int64_t(1) << k;
    for (const Range &r : ranges)
      for (int64_t n = (r.lo + step - 1) / step * step; n <= r.hi; n += step)
        if (roundsTo(n, value, *r.type) && closer(n, best))
          best = n;
    if (best)
      return best;
  }
  return std::nullopt;
}

llvm::SmallVector<int64_t> mlsopt::getReciprocalExtents(mlir::Operation *root) {
  llvm::SmallVector<int64_t> extents;
  auto addType = [&](mlir::Type type) {
    auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape())
      return;
    llvm::ArrayRef<int64_t> shape = shaped.getShape();
    // Every contiguous run of dims: a mean over [H, W] divides by H * W.
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t product = 1;
      for (size_t j = i; j < shape.size(); ++j) {
        product *= shape[j];
        if (product > kMaxReciprocalDenominator)
          break;
        if (product >= kMinDenominator)
          extents.push_back(product);
      }
    }
  };
  root->walk([&](mlir::Operation *op) {
    for (mlir::Type type : op->getResultTypes())
      addType(type);
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          addType(arg.getType());
  });
  llvm::sort(extents);
  extents.erase(std::unique(extents.begin(), extents.end()), extents.end());
  return extents;
}

mlir::Type mlsopt::getReciprocalRoundingType(mlir::FunctionType type) {
  mlir::Type narrow;
  bool several = false;
  for (mlir::Type t :
       llvm::concat<const mlir::Type>(type.getInputs(), type.getResults())) {
    mlir::Type element = mlir::getElementTypeOrSelf(t);
    if (!llvm::isa<mlir::Float16Type, mlir::BFloat16Type>(element))
      continue;
    several |= narrow && narrow != element;
    narrow = element;
  }
  if (several)
    return {};
  return narrow ? narrow : mlir::Float32Type::get(type.getContext());
}
