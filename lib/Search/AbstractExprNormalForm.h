//===- AbstractExprNormalForm.h - Expressions modulo the axioms -*- C++ -*-===//
//
// The normal form that SubexprOracle reasons on: an expression with every
// axiom of Mirage that has a direction applied, so that two expressions
// equal under the axioms have the same normal form (pointer-equal, since
// normal forms are hash-consed):
//
//   - products are expanded over sums (distributivity), and sums and
//     products are multisets (commutativity, associativity);
//   - a quotient is a numerator monomial over a denominator polynomial:
//     (a+b)/c = a/c + b/c, x/(y*z) = (x/y)/z, x*(y/z) = (x*y)/z; the
//     denominator is expanded and hands a constant factor to the numerator
//     (x/(2a + 2b) = (1/2)*(x/(a + b))), so that it has one form;
//   - a monomial carries the product of the sizes of the sums around it:
//     sum(i, sum(j, x)) = sum(i*j, x), sum over + distributes, and
//     sum(k, x*s) = sum(k, x)*s lets the sum float over every numerator
//     factor, as in Mirage, which cannot tell which factors the summed dim
//     indexes;
//   - exp(a+b) = exp(a)*exp(b): exp atoms hold one monomial each;
//   - max(i, max(j, x)) = max(i*j, x); 1*x = x;
//   - constants that are integers or their reciprocals multiply exactly
//     into a rational coefficient (signs, 1/n of means, x/4096 =
//     x*(1/4096)); any other constant is an atom, so 0.044715 stays
//     distinct from 0.044716.
//
// Nothing cancels: x - x and x/x stay as they are, and sums never add up
// like terms (x + x is not 2*x).
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_SEARCH_ABSTRACTEXPRNORMALFORM_H
#define MLSOPT_LIB_SEARCH_ABSTRACTEXPRNORMALFORM_H

#include "mlsopt/Search/AbstractExpr.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <tuple>

namespace mlsopt::search::detail {

struct NormPoly;

enum class AtomKind : uint8_t { Input, Constant, Exp, Sqrt, Max, Opaque };

/// A factor that no axiom looks into. Exp holds one single-monomial
/// argument; Max holds its size.
struct NormAtom {
  unsigned id;
  AtomKind kind;
  /// The input index of Input, the size of Max.
  uint64_t size;
  /// The (positive) value of Constant.
  double value;
  llvm::StringRef name;
  llvm::SmallVector<const NormPoly *, 1> args;
};

/// An exact rational num/den, den > 0, in lowest terms.
struct Rational {
  int64_t num = 1;
  int64_t den = 1;
  bool operator==(const Rational &o) const {
    return num == o.num && den == o.den;
  }
  bool operator<(const Rational &o) const {
    return std::tie(num, den) < std::tie(o.num, o.den);
  }
};

/// coef * (reduction-fold sum of) the product of `atoms`, over `den`.
struct NormMono {
  unsigned id;
  /// The product of the constants that are integers or reciprocals of
  /// integers (1/4096, -1, 2): folded exactly, so the mean of means
  /// (1/64)*(1/64) is 1/4096. Other constants (0.044715) are atoms.
  Rational coef;
  /// The product of the sizes of the sums around the numerator.
  uint64_t reduction;
  /// A multiset, sorted by id.
  llvm::SmallVector<const NormAtom *, 4> atoms;
  /// The denominator, null for 1.
  const NormPoly *den;
  /// Set when `den` equals its own negation (it holds a - a): x/den =
  /// -x/den, so `coef` is kept positive and its sign means nothing.
  bool signFree;

  bool isOne() const {
    return coef == Rational() && reduction == 1 && atoms.empty() && !den;
  }
};

/// The sum of `monos`, a multiset sorted by id.
struct NormPoly {
  unsigned id;
  llvm::SmallVector<const NormMono *, 4> monos;
};

/// Owns and hash-conses normal forms, and computes them. Thread-safe: every
/// public entry point takes the context's lock. Normal forms are immutable
/// once returned.
class NormContext {
public:
  NormContext();
  ~NormContext();

  /// The normal form of `e`, or null when it does not fit (a product of
  /// reduction sizes beyond 2^63, or more than 4096 terms).
  const NormPoly *normalize(ExprRef e);

  /// `p` with the online-softmax stabilizer erased: in a sum that has other
  /// terms, a term +/-c*max(n, b) is dropped (a - max(n, b) counts as a),
  /// and so is a factor exp(+/-c*max(n, b)). The b of every erased max is
  /// appended to `stabilized`, for the caller to check.
  const NormPoly *
  eraseStabilizers(const NormPoly *p,
                   llvm::SetVector<const NormPoly *> &stabilized);

  /// The polynomial that sums the arguments of the exp atoms of `m`, or
  /// null when `m` has none: exp(a)*exp(b) = exp(a+b) holds a+b.
  const NormPoly *getExpArgumentSum(const NormMono *m);

  /// A single-monomial polynomial.
  const NormPoly *getMonoPoly(const NormMono *m);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
  std::mutex mutex;
};

/// True when `m` is c*max(n, b) for constants c: the shape of an
/// online-softmax stabilizer. Its max atom is returned through `max`.
bool isStabilizer(const NormMono *m, const NormAtom **max = nullptr);

void print(llvm::raw_ostream &os, const NormPoly *p);
void print(llvm::raw_ostream &os, const NormMono *m);

} // namespace mlsopt::search::detail

#endif // MLSOPT_LIB_SEARCH_ABSTRACTEXPRNORMALFORM_H
