//===- AbstractExprNormalForm.cpp - Expressions modulo the axioms ---------===//

#include "AbstractExprNormalForm.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
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
} // namespace

struct NormContext::Impl {
  std::deque<NormAtom> atoms;
  std::deque<NormMono> monos;
  std::deque<NormPoly> polys;
  unsigned nextId = 0;

  using AtomKey = std::tuple<int, uint64_t, uint64_t, std::string,
                             std::vector<const NormPoly *>>;
  using MonoKey = std::tuple<bool, uint64_t, std::vector<const NormAtom *>,
                             const NormPoly *>;
  std::map<AtomKey, const NormAtom *> atomMap;
  std::map<MonoKey, const NormMono *> monoMap;
  std::map<std::vector<const NormMono *>, const NormPoly *> polyMap;

  llvm::DenseMap<ExprRef, const NormPoly *> normalized;
  llvm::DenseMap<const NormPoly *, const NormPoly *> erasedPolys;
  llvm::DenseMap<const NormMono *, const NormMono *> erasedMonos;
  llvm::DenseMap<const NormAtom *, const NormAtom *> erasedAtoms;
  /// Set while normalizing when a reduction size overflows or an expansion
  /// grows beyond kMaxMonomials.
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
  const NormMono *mono(bool negative, uint64_t reduction,
                       llvm::SmallVector<const NormAtom *, 4> atomList,
                       const NormPoly *den) {
    llvm::sort(atomList, byId<NormAtom>);
    MonoKey key{negative, reduction,
                std::vector<const NormAtom *>(atomList.begin(), atomList.end()),
                den};
    auto [it, inserted] = monoMap.try_emplace(key, nullptr);
    if (inserted) {
      monos.push_back({nextId++, negative, reduction, atomList, den});
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

  const NormPoly *one() { return poly({mono(false, 1, {}, nullptr)}); }

  const NormPoly *atomPoly(const NormAtom *a) {
    return poly({mono(false, 1, {a}, nullptr)});
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
    if (value == 1)
      return one();
    if (value == -1)
      return neg(one());
    if (value < 0)
      return neg(constant(-value));
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

  const NormPoly *neg(const NormPoly *p) {
    llvm::SmallVector<const NormMono *, 4> monoList;
    for (const NormMono *m : p->monos)
      monoList.push_back(mono(!m->negative, m->reduction, m->atoms, m->den));
    return poly(monoList);
  }

  /// Null stands for 1.
  const NormPoly *mulDen(const NormPoly *a, const NormPoly *b) {
    if (!a)
      return b;
    if (!b)
      return a;
    return mul(a, b);
  }

  const NormMono *mulMono(const NormMono *a, const NormMono *b) {
    llvm::SmallVector<const NormAtom *, 4> atomList(a->atoms);
    atomList.append(b->atoms.begin(), b->atoms.end());
    return mono(a->negative != b->negative,
                mulSizes(a->reduction, b->reduction), atomList,
                mulDen(a->den, b->den));
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
    if (b == one())
      return a;
    // x/(-y) = -(x/y): a single-monomial denominator is kept positive.
    bool flip = b->monos.size() == 1 && b->monos[0]->negative;
    if (flip)
      b = neg(b);
    llvm::SmallVector<const NormMono *, 4> monoList;
    for (const NormMono *m : a->monos)
      monoList.push_back(
          mono(m->negative != flip, m->reduction, m->atoms, mulDen(m->den, b)));
    return poly(monoList);
  }

  const NormPoly *sum(uint64_t size, const NormPoly *p) {
    llvm::SmallVector<const NormMono *, 4> monoList;
    for (const NormMono *m : p->monos)
      monoList.push_back(
          mono(m->negative, mulSizes(m->reduction, size), m->atoms, m->den));
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
      if (!m->negative && m->reduction == 1 && !m->den &&
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
    // A denominator of only stabilizer exps becomes 1: no denominator.
    const NormPoly *den = m->den ? erase(m->den) : nullptr;
    if (den == one())
      den = nullptr;
    const NormMono *result = mono(m->negative, m->reduction, atomList, den);
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
  if (m->negative)
    os << '-';
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
