//===- AbstractExprNormalForm.cpp - Expressions modulo the axioms ---------===//

#include "AbstractExprNormalForm.h"

#include "mlsopt/Support/Constants.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

using namespace mlsopt::search;
using namespace mlsopt::search::detail;

namespace {
/// The most terms a normal form may have.
constexpr size_t kMaxMonomials = 4096;

template <typename T> bool byId(const T *a, const T *b) {
  return a->id < b->id;
}

uint64_t bitsOf(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// Integers and reciprocals of integers up to this fold into coefficients.
constexpr double kMaxFoldedInteger = double(1 << 30);

/// `value` as an exact rational when it is an integer n or 1/n rounded to an
/// element type (what 1.0 / n gives: a mean, x/4096, -1), as the verifier
/// reads it (mlsopt/Support/Constants.h).
std::optional<Rational> asFoldedConstant(double value) {
  double magnitude = std::fabs(value);
  int64_t sign = value < 0 ? -1 : 1;
  if (magnitude >= 1 && magnitude <= kMaxFoldedInteger &&
      magnitude == std::floor(magnitude))
    return Rational{sign * static_cast<int64_t>(magnitude), 1};
  if (std::optional<int64_t> n = mlsopt::getRoundedReciprocal(magnitude))
    return Rational{sign, *n};
  return std::nullopt;
}

/// a * b in lowest terms; nullopt on overflow.
std::optional<Rational> multiply(Rational a, Rational b) {
  int64_t g1 = std::gcd(a.num, b.den), g2 = std::gcd(b.num, a.den);
  int64_t num, den;
  if (llvm::MulOverflow(a.num / g1, b.num / g2, num) ||
      llvm::MulOverflow(a.den / g2, b.den / g1, den))
    return std::nullopt;
  return Rational{num, den};
}
} // namespace

struct NormContext::Impl {
  std::deque<NormAtom> atoms;
  std::deque<NormMono> monos;
  std::deque<NormPoly> polys;
  unsigned nextId = 0;

  using AtomKey = std::tuple<int, uint64_t, uint64_t, std::string,
                             std::vector<const NormPoly *>>;
  using MonoKey = std::tuple<Rational, uint64_t, std::vector<const NormAtom *>,
                             const NormPoly *>;
  std::map<AtomKey, const NormAtom *> atomMap;
  std::map<MonoKey, const NormMono *> monoMap;
  std::map<std::vector<const NormMono *>, const NormPoly *> polyMap;

  llvm::DenseMap<ExprRef, const NormPoly *> normalized;
  llvm::DenseMap<const NormPoly *, const NormPoly *> erasedPolys;
  llvm::DenseMap<const NormMono *, const NormMono *> erasedMonos;
  llvm::DenseMap<const NormAtom *, const NormAtom *> erasedAtoms;
  /// Whether a denominator is its own negation (contentOf).
  llvm::DenseMap<const NormPoly *, bool> symmetricDens;
  /// Set while normalizing when a reduction size or a coefficient
  /// overflows or an expansion grows beyond kMaxMonomials.
  bool overflow = false;

  //===--------------------------------------------------------------------===//
  // Uniquing
  //===--------------------------------------------------------------------===//

  const NormAtom *atom(AtomKind kind, uint64_t size, double value,
                       llvm::StringRef name,
                       llvm::ArrayRef<const NormPoly *> args) {
    AtomKey key{static_cast<int>(kind), size, bitsOf(value), name.str(),
                std::vector<const NormPoly *>(args.begin(), args.end())};
    auto [it, inserted] = atomMap.try_emplace(key, nullptr);
    if (inserted) {
      atoms.push_back({nextId++,
                       kind,
                       size,
                       value,
                       std::get<3>(it->first),
                       {args.begin(), args.end()}});
      it->second = &atoms.back();
    }
    return it->second;
  }

  /// `atomList` need not be sorted.
  const NormMono *mono(Rational coef, uint64_t reduction,
                       llvm::SmallVector<const NormAtom *, 4> atomList,
                       const NormPoly *den) {
    // Over a denominator that holds a - a, x/d = -x/d: one sign for both.
    bool signFree = den && isSymmetric(den);
    if (signFree)
      coef = magnitude(coef);
    llvm::sort(atomList, byId<NormAtom>);
    MonoKey key{coef, reduction,
                std::vector<const NormAtom *>(atomList.begin(), atomList.end()),
                den};
    auto [it, inserted] = monoMap.try_emplace(key, nullptr);
    if (inserted) {
      monos.push_back({nextId++, coef, reduction, atomList, den, signFree});
      it->second = &monos.back();
    }
    return it->second;
  }

  /// `monoList` need not be sorted.
  const NormPoly *poly(llvm::SmallVector<const NormMono *, 4> monoList) {
    llvm::sort(monoList, byId<NormMono>);
    std::vector<const NormMono *> key(monoList.begin(), monoList.end());
    auto [it, inserted] = polyMap.try_emplace(key, nullptr);
    if (inserted) {
      polys.push_back({nextId++, monoList});
      it->second = &polys.back();
    }
    return it->second;
  }

  //===--------------------------------------------------------------------===//
  // Arithmetic on normal forms
  //===--------------------------------------------------------------------===//

  const NormPoly *one() { return poly({mono({}, 1, {}, nullptr)}); }

  const NormPoly *atomPoly(const NormAtom *a) {
    return poly({mono({}, 1, {a}, nullptr)});
  }

  Rational mulCoefs(Rational a, Rational b) {
    std::optional<Rational> product = multiply(a, b);
    if (!product) {
      overflow = true;
      return a;
    }
    return *product;
  }

  /// `p` with every coefficient multiplied by `factor`.
  const NormPoly *scale(const NormPoly *p, Rational factor) {
    llvm::SmallVector<const NormMono *, 4> monoList;
    for (const NormMono *m : p->monos)
      monoList.push_back(
          mono(mulCoefs(m->coef, factor), m->reduction, m->atoms, m->den));
    return poly(monoList);
  }

  uint64_t mulSizes(uint64_t a, uint64_t b) {
    bool saturated = false;
    uint64_t result = llvm::SaturatingMultiply(a, b, &saturated);
    if (saturated || result > (uint64_t(1) << 63)) {
      overflow = true;
      return 1;
    }
    return result;
  }

  const NormPoly *constant(double value) {
    if (std::optional<Rational> folded = asFoldedConstant(value))
      return poly({mono(*folded, 1, {}, nullptr)});
    if (value < 0)
      return neg(constant(-value));
    // 0 stays an atom: a zero coefficient would match any cofactor.
    if (value == 0)
      value = 0; // -0.0 is 0.
    return atomPoly(atom(AtomKind::Constant, 0, value, "", {}));
  }

  const NormPoly *add(const NormPoly *a, const NormPoly *b) {
    // x + 0 stays as it is: Mirage's axioms have no zero, and dropping it
    // would prune the 0 of a program that adds it.
    llvm::SmallVector<const NormMono *, 4> monoList(a->monos);
    monoList.append(b->monos.begin(), b->monos.end());
    return poly(monoList);
  }

  const NormPoly *neg(const NormPoly *p) { return scale(p, {-1, 1}); }

  /// Null stands for 1.
  const NormPoly *mulDen(const NormPoly *a, const NormPoly *b) {
    if (!a)
      return b;
    if (!b)
      return a;
    return mul(a, b);
  }

  static Rational reciprocal(Rational r) {
    return r.num < 0 ? Rational{-r.den, -r.num} : Rational{r.den, r.num};
  }

  static bool lessThan(Rational a, Rational b) {
    return __int128(a.num) * b.den < __int128(b.num) * a.den;
  }
  static Rational magnitude(Rational r) {
    return {r.num < 0 ? -r.num : r.num, r.den};
  }

  /// The coefficient that a denominator hands to its numerator, so that
  /// denominators differing by a constant factor are the same:
  /// x/(c*y) = (1/c)*(x/y), x/(2a + 2b) = (1/2)*(x/(a + b)). It has to scale
  /// with the denominator (content(l*d) = l*content(d)): its magnitude is the
  /// smallest among the terms that come first when coefficients are
  /// ignored, its sign tells d from -d. `symmetric` is set when d = -d as a
  /// multiset (d holds a - a): then x/d = -x/d and the numerator's sign is
  /// meaningless.
  static Rational contentOf(const NormPoly *d, bool &symmetric) {
    using Key = std::tuple<uint64_t, std::vector<unsigned>, unsigned>;
    auto key = [](const NormMono *m) {
      std::vector<unsigned> ids;
      for (const NormAtom *a : m->atoms)
        ids.push_back(a->id);
      return Key(m->reduction, ids, m->den ? m->den->id + 1 : 0);
    };
    // The terms as (key, coefficient), sorted, for d and for -d.
    using Term = std::pair<Key, Rational>;
    auto termLess = [](const Term &a, const Term &b) {
      if (a.first != b.first)
        return a.first < b.first;
      return lessThan(a.second, b.second);
    };
    std::vector<Term> plus, minus;
    for (const NormMono *m : d->monos) {
      plus.push_back({key(m), m->coef});
      minus.push_back({key(m), Rational{-m->coef.num, m->coef.den}});
    }
    llvm::sort(plus, termLess);
    llvm::sort(minus, termLess);
    Rational size = magnitude(plus.front().second);
    for (const Term &t : plus)
      if (t.first == plus.front().first && lessThan(magnitude(t.second), size))
        size = magnitude(t.second);
    symmetric = plus == minus;
    // Positive when d sorts after -d, as a positive constant does.
    bool negative = !symmetric && std::lexicographical_compare(
                                      plus.begin(), plus.end(), minus.begin(),
                                      minus.end(), termLess);
    return negative ? Rational{-size.num, size.den} : size;
  }

  /// A denominator in canonical form, and the factor its numerator takes.
  std::pair<Rational, const NormPoly *> canonicalDen(const NormPoly *d) {
    if (!d)
      return {Rational(), nullptr};
    bool symmetric = false;
    Rational inverse = reciprocal(contentOf(d, symmetric));
    d = scale(d, inverse);
    return {inverse, d == one() ? nullptr : d};
  }

  bool isSymmetric(const NormPoly *d) {
    auto [it, inserted] = symmetricDens.try_emplace(d, false);
    if (inserted)
      contentOf(d, it->second);
    return it->second;
  }

  const NormMono *mulMono(const NormMono *a, const NormMono *b) {
    llvm::SmallVector<const NormAtom *, 4> atomList(a->atoms);
    atomList.append(b->atoms.begin(), b->atoms.end());
    auto [factor, den] = canonicalDen(mulDen(a->den, b->den));
    return mono(mulCoefs(mulCoefs(a->coef, b->coef), factor),
                mulSizes(a->reduction, b->reduction), atomList, den);
  }

  const NormPoly *mul(const NormPoly *a, const NormPoly *b) {
    // Expansion is exponential in the nesting of products of sums
    // ((a+b)^32 has 2^32 terms); such an expression is not judged.
    if (overflow || a->monos.size() * b->monos.size() > kMaxMonomials) {
      overflow = true;
      return a;
    }
    llvm::SmallVector<const NormMono *, 4> monoList;
    for (const NormMono *x : a->monos)
      for (const NormMono *y : b->monos)
        monoList.push_back(mulMono(x, y));
    return poly(monoList);
  }

  const NormPoly *div(const NormPoly *a, const NormPoly *b) {
    // Denominators hand their coefficient to the numerator (canonicalDen):
    // x/4096 is x*(1/4096) and x/(-y) is -(x/y).
    llvm::SmallVector<const NormMono *, 4> monoList;
    for (const NormMono *m : a->monos) {
      auto [factor, den] = canonicalDen(mulDen(m->den, b));
      monoList.push_back(
          mono(mulCoefs(m->coef, factor), m->reduction, m->atoms, den));
    }
    return poly(monoList);
  }

  const NormPoly *sum(uint64_t size, const NormPoly *p) {
    llvm::SmallVector<const NormMono *, 4> monoList;
    for (const NormMono *m : p->monos)
      monoList.push_back(
          mono(m->coef, mulSizes(m->reduction, size), m->atoms, m->den));
    return poly(monoList);
  }

  const NormPoly *exp(const NormPoly *p) {
    const NormPoly *result = one();
    for (const NormMono *m : p->monos)
      result =
          mul(result, atomPoly(atom(AtomKind::Exp, 0, 0, "", {poly({m})})));
    return result;
  }

  const NormPoly *max(uint64_t size, const NormPoly *p) {
    // max(i, max(j, x)) = max(i*j, x).
    if (p->monos.size() == 1) {
      const NormMono *m = p->monos[0];
      if (m->coef == Rational() && m->reduction == 1 && !m->den &&
          m->atoms.size() == 1 && m->atoms[0]->kind == AtomKind::Max) {
        const NormAtom *inner = m->atoms[0];
        return atomPoly(atom(AtomKind::Max, mulSizes(size, inner->size), 0, "",
                             {inner->args[0]}));
      }
    }
    return atomPoly(atom(AtomKind::Max, size, 0, "", {p}));
  }

  const NormPoly *normalize(ExprRef e) {
    if (auto it = normalized.find(e); it != normalized.end())
      return it->second;
    llvm::SmallVector<const NormPoly *, 2> ops;
    for (ExprRef operand : e->getOperands())
      ops.push_back(normalize(operand));
    const NormPoly *result = nullptr;
    switch (e->getKind()) {
    case ExprKind::Input:
      result = atomPoly(atom(AtomKind::Input, e->getSize(), 0, "", {}));
      break;
    case ExprKind::Constant:
      result = constant(e->getValue());
      break;
    case ExprKind::Add:
      result = add(ops[0], ops[1]);
      break;
    case ExprKind::Sub:
      result = add(ops[0], neg(ops[1]));
      break;
    case ExprKind::Mul:
      result = mul(ops[0], ops[1]);
      break;
    case ExprKind::Div:
      result = div(ops[0], ops[1]);
      break;
    case ExprKind::Neg:
      result = neg(ops[0]);
      break;
    case ExprKind::Exp:
      result = exp(ops[0]);
      break;
    case ExprKind::Sqrt:
      result = atomPoly(atom(AtomKind::Sqrt, 0, 0, "", {ops[0]}));
      break;
    case ExprKind::Rsqrt:
      result = div(one(), atomPoly(atom(AtomKind::Sqrt, 0, 0, "", {ops[0]})));
      break;
    case ExprKind::Square:
      result = mul(ops[0], ops[0]);
      break;
    case ExprKind::Sum:
      result = sum(static_cast<uint64_t>(e->getSize()), ops[0]);
      break;
    case ExprKind::Max:
      result = max(static_cast<uint64_t>(e->getSize()), ops[0]);
      break;
    case ExprKind::Opaque:
      result = atomPoly(atom(AtomKind::Opaque, 0, 0, e->getOpName(), ops));
      break;
    }
    normalized[e] = result;
    return result;
  }

  //===--------------------------------------------------------------------===//
  // Stabilizer erasure
  //===--------------------------------------------------------------------===//

  const NormPoly *erase(const NormPoly *p) {
    if (auto it = erasedPolys.find(p); it != erasedPolys.end())
      return it->second;
    bool hasOtherTerms = llvm::any_of(
        p->monos, [](const NormMono *m) { return !isStabilizer(m); });
    llvm::SmallVector<const NormMono *, 4> monoList;
    for (const NormMono *m : p->monos)
      if (!hasOtherTerms || !isStabilizer(m))
        monoList.push_back(erase(m));
    const NormPoly *result = poly(monoList);
    erasedPolys[p] = result;
    return result;
  }

  const NormMono *erase(const NormMono *m) {
    if (auto it = erasedMonos.find(m); it != erasedMonos.end())
      return it->second;
    llvm::SmallVector<const NormAtom *, 4> atomList;
    for (const NormAtom *a : m->atoms)
      if (!isStabilizerExp(a))
        atomList.push_back(erase(a));
    // The erased denominator is brought to its canonical form again (it
    // may become 1: no denominator).
    auto [factor, den] = canonicalDen(m->den ? erase(m->den) : nullptr);
    const NormMono *result =
        mono(mulCoefs(m->coef, factor), m->reduction, atomList, den);
    erasedMonos[m] = result;
    return result;
  }

  const NormAtom *erase(const NormAtom *a) {
    if (a->args.empty())
      return a;
    if (auto it = erasedAtoms.find(a); it != erasedAtoms.end())
      return it->second;
    llvm::SmallVector<const NormPoly *, 2> args;
    for (const NormPoly *arg : a->args)
      args.push_back(erase(arg));
    const NormAtom *result = atom(a->kind, a->size, a->value, a->name, args);
    erasedAtoms[a] = result;
    return result;
  }

  static bool isStabilizerExp(const NormAtom *a) {
    return a->kind == AtomKind::Exp && isStabilizer(a->args[0]->monos[0]);
  }

  /// Appends the b of every max(n, b) that erase(p) drops.
  void collectStabilized(const NormPoly *p,
                         llvm::SetVector<const NormPoly *> &stabilized,
                         llvm::DenseSet<const void *> &visited) {
    if (!visited.insert(p).second)
      return;
    bool hasOtherTerms = llvm::any_of(
        p->monos, [](const NormMono *m) { return !isStabilizer(m); });
    for (const NormMono *m : p->monos) {
      const NormAtom *max = nullptr;
      if (hasOtherTerms && isStabilizer(m, &max)) {
        stabilized.insert(max->args[0]);
        continue;
      }
      if (m->den)
        collectStabilized(m->den, stabilized, visited);
      for (const NormAtom *a : m->atoms) {
        if (isStabilizerExp(a)) {
          isStabilizer(a->args[0]->monos[0], &max);
          stabilized.insert(max->args[0]);
          continue;
        }
        for (const NormPoly *arg : a->args)
          collectStabilized(arg, stabilized, visited);
      }
    }
  }
};

bool mlsopt::search::detail::isStabilizer(const NormMono *m,
                                          const NormAtom **max) {
  if (m->den || m->reduction != 1)
    return false;
  const NormAtom *found = nullptr;
  for (const NormAtom *a : m->atoms) {
    if (a->kind == AtomKind::Constant)
      continue;
    if (a->kind != AtomKind::Max || found)
      return false;
    found = a;
  }
  if (max)
    *max = found;
  return found != nullptr;
}

NormContext::NormContext() : impl(std::make_unique<Impl>()) {}
NormContext::~NormContext() = default;

const NormPoly *NormContext::normalize(ExprRef e) {
  std::lock_guard<std::mutex> lock(mutex);
  impl->overflow = false;
  const NormPoly *result = impl->normalize(e);
  if (impl->overflow) {
    // Memoized parts may be truncated: forget them all.
    impl->normalized.clear();
    return nullptr;
  }
  return result;
}

const NormPoly *
NormContext::eraseStabilizers(const NormPoly *p,
                              llvm::SetVector<const NormPoly *> &stabilized) {
  std::lock_guard<std::mutex> lock(mutex);
  llvm::DenseSet<const void *> visited;
  impl->collectStabilized(p, stabilized, visited);
  return impl->erase(p);
}

const NormPoly *NormContext::getExpArgumentSum(const NormMono *m) {
  std::lock_guard<std::mutex> lock(mutex);
  llvm::SmallVector<const NormMono *, 4> args;
  for (const NormAtom *a : m->atoms)
    if (a->kind == AtomKind::Exp)
      args.push_back(a->args[0]->monos[0]);
  return args.empty() ? nullptr : impl->poly(args);
}

const NormPoly *NormContext::getMonoPoly(const NormMono *m) {
  std::lock_guard<std::mutex> lock(mutex);
  return impl->poly({m});
}

//===----------------------------------------------------------------------===//
// Printing (debug output)
//===----------------------------------------------------------------------===//

static void print(llvm::raw_ostream &os, const NormAtom *a) {
  switch (a->kind) {
  case AtomKind::Input:
    os << "in" << a->size;
    return;
  case AtomKind::Constant:
    os << llvm::format("%.17g", a->value);
    return;
  case AtomKind::Exp:
    os << "exp";
    break;
  case AtomKind::Sqrt:
    os << "sqrt";
    break;
  case AtomKind::Max:
    os << "max" << a->size;
    break;
  case AtomKind::Opaque:
    os << a->name;
    break;
  }
  os << '(';
  llvm::interleaveComma(a->args, os,
                        [&](const NormPoly *p) { detail::print(os, p); });
  os << ')';
}

void mlsopt::search::detail::print(llvm::raw_ostream &os, const NormMono *m) {
  if (m->coef.num == -1 && m->coef.den == 1)
    os << '-';
  else if (!(m->coef == Rational()))
    os << m->coef.num
       << (m->coef.den != 1 ? "/" + std::to_string(m->coef.den) : std::string())
       << ' ';
  if (m->reduction != 1)
    os << "sum" << m->reduction << ' ';
  if (m->atoms.empty())
    os << '1';
  llvm::interleave(
      m->atoms, os, [&](const NormAtom *a) { ::print(os, a); }, "*");
  if (m->den) {
    os << " / (";
    print(os, m->den);
    os << ')';
  }
}

void mlsopt::search::detail::print(llvm::raw_ostream &os, const NormPoly *p) {
  llvm::interleave(
      p->monos, os, [&](const NormMono *m) { print(os, m); }, " + ");
}
