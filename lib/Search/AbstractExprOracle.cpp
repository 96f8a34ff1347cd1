//===- AbstractExprOracle.cpp - Z3 decides subexpressions -----------------===//
//
// Mirage asks Z3 about quantified axioms over an uninterpreted sort; the
// answers can be "unknown" and each takes long. Here the axioms with a
// direction are applied in C++ (AbstractExprNormalForm.h), which leaves
// what the normal form cannot fix: which terms of a target a candidate's
// terms are, and with which common cofactor. That is a small ground problem
// in linear arithmetic over integers and rationals, which Z3 decides
// exactly:
//
// e = e_1 + ... + e_k is a subexpression of a place S = s_1 + ... + s_m of a
// target (the target, a denominator, an argument of sqrt, max or an opaque
// function, the sum of the exp arguments of a monomial) if some monomial f
// (the cofactor) and an injection sigma give e_i * f = s_sigma(i) for every
// i: sub-sums come from commutativity and associativity, the cofactor from
// distributivity (a*f + b*f = (a+b)*f), a part of a product from
// commutativity, a sum over fewer elements from sum splitting. In numbers:
// the atom counts of f are those of s_sigma(i) minus those of e_i, the same
// for every i; f's reduction size times e_i's is s_sigma(i)'s; f's rational
// coefficient times e_i's is s_sigma(i)'s.
//
// Denominators are compared by a necessary condition (every term of e_i's
// denominator fits some term of s_sigma(i)'s), so a hidden factorization of
// a denominator never leads to a wrong "no"; for the same reason the
// coefficients are compared only where the two denominators are the same.
//
//===----------------------------------------------------------------------===//

#include "AbstractExprNormalForm.h"

#include "mlsopt/Search/AbstractExpr.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#include "z3++.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <string>

#define DEBUG_TYPE "abstract-expr"

using namespace mlsopt::search;
using namespace mlsopt::search::detail;

namespace {
/// The answer of one place for a candidate: for every monomial of the
/// candidate, the monomials of the place it may be.
struct SiteCandidates {
  const NormPoly *site;
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>, 4> targetsOf;
};

bool screenMono(const NormMono *e, const NormMono *s);

/// A necessary condition for denominator `e` to divide denominator `s`:
/// every term of e times the first term of the quotient is a term of s.
bool denominatorMayDivide(const NormPoly *e, const NormPoly *s) {
  if (!e || e == s)
    return true;
  if (!s)
    return false;
  return llvm::all_of(e->monos, [&](const NormMono *em) {
    return llvm::any_of(s->monos,
                        [&](const NormMono *sm) { return screenMono(em, sm); });
  });
}

/// A necessary condition for e * f = s for some monomial f.
bool screenMono(const NormMono *e, const NormMono *s) {
  auto idLess = [](const NormAtom *x, const NormAtom *y) {
    return x->id < y->id;
  };
  return s->reduction % e->reduction == 0 &&
         std::includes(s->atoms.begin(), s->atoms.end(), e->atoms.begin(),
                       e->atoms.end(), idLess) &&
         denominatorMayDivide(e->den, s->den);
}

bool containsConcat(ExprRef e, llvm::DenseSet<ExprRef> &visited) {
  if (!visited.insert(e).second)
    return false;
  if (e->getKind() == ExprKind::Opaque && e->getOpName() == "concat")
    return true;
  return llvm::any_of(e->getOperands(), [&](ExprRef operand) {
    return containsConcat(operand, visited);
  });
}

bool containsConcat(ExprRef e) {
  llvm::DenseSet<ExprRef> visited;
  return containsConcat(e, visited);
}

enum class Answer { Yes, No, Unknown };

/// A Z3 numeral for a product of two int64 values.
std::string toDecimal(__int128 value) {
  bool negative = value < 0;
  unsigned __int128 magnitude =
      negative ? -static_cast<unsigned __int128>(value) : value;
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + magnitude % 10));
    magnitude /= 10;
  } while (magnitude);
  if (negative)
    digits.push_back('-');
  return {digits.rbegin(), digits.rend()};
}
} // namespace

struct SubexprOracle::Impl {
  unsigned timeoutMs;
  NormContext norm;
  /// Every place of the (stabilizer-erased) targets a subexpression may
  /// come from.
  std::vector<const NormPoly *> sites;
  /// False when a target has no normal form: nothing is pruned then.
  bool judgeable = true;

  mutable std::mutex mutex;
  llvm::DenseMap<ExprRef, bool> exprCache;
  llvm::DenseMap<const NormPoly *, bool> polyCache;
  std::map<std::pair<ExprRef, ExprRef>, bool> equivalenceCache;
  SubexprOracleStats stats;

  void addSites(const NormPoly *p, llvm::DenseSet<const NormPoly *> &seen) {
    if (!p || !seen.insert(p).second)
      return;
    sites.push_back(p);
    for (const NormMono *m : p->monos) {
      addSites(m->den, seen);
      addSites(norm.getExpArgumentSum(m), seen);
      for (const NormAtom *a : m->atoms)
        for (const NormPoly *arg : a->args)
          addSites(arg, seen);
    }
  }

  template <typename Fn> void updateStats(Fn &&fn) {
    std::lock_guard<std::mutex> lock(mutex);
    fn(stats);
  }

  std::optional<bool> lookupPoly(const NormPoly *p) {
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.queries;
    auto it = polyCache.find(p);
    if (it == polyCache.end())
      return std::nullopt;
    ++stats.cacheHits;
    return it->second;
  }

  /// Is normal form `p` a subexpression of a target?
  bool decide(const NormPoly *p) {
    if (std::optional<bool> cached = lookupPoly(p))
      return *cached;
    bool result = decideUncached(p);
    std::lock_guard<std::mutex> lock(mutex);
    polyCache[p] = result;
    return result;
  }

  bool decideUncached(const NormPoly *p) {
    llvm::SetVector<const NormPoly *> stabilized;
    const NormPoly *erased = norm.eraseStabilizers(p, stabilized);
    // A stabilizer max(n, b) is only sound to drop when b itself could be
    // computed on the way to a target.
    for (const NormPoly *b : stabilized)
      if (!decide(b))
        return false;
    // A lone max(n, b) is the stabilizer itself, before it is subtracted,
    // and so is a sum of nothing but stabilizers.
    if (llvm::all_of(erased->monos,
                     [](const NormMono *m) { return isStabilizer(m); }))
      return llvm::all_of(erased->monos, [&](const NormMono *m) {
        const NormAtom *max = nullptr;
        isStabilizer(m, &max);
        return decide(max->args[0]);
      });
    return matchSites(erased);
  }

  bool matchSites(const NormPoly *e) {
    std::vector<SiteCandidates> candidates;
    for (const NormPoly *site : sites) {
      if (e->monos.size() > site->monos.size())
        continue;
      SiteCandidates c{site, {}};
      bool possible = true;
      for (const NormMono *em : e->monos) {
        llvm::SmallVector<unsigned, 4> &targetsOfEm =
            c.targetsOf.emplace_back();
        for (auto [j, sm] : llvm::enumerate(site->monos))
          if (screenMono(em, sm))
            targetsOfEm.push_back(j);
        if (targetsOfEm.empty()) {
          possible = false;
          break;
        }
      }
      if (possible)
        candidates.push_back(std::move(c));
    }
    if (candidates.empty()) {
      updateStats([](SubexprOracleStats &s) { ++s.screenedOut; });
      return false;
    }
    Answer answer = solve(e, candidates);
    return answer != Answer::No;
  }

  /// Asks Z3 whether some place in `candidates` holds `e` with a cofactor.
  Answer solve(const NormPoly *e, llvm::ArrayRef<SiteCandidates> candidates) {
    // Z3 contexts are not thread-safe; one per thread serves every oracle.
    static thread_local z3::context c;
    // Creating a solver costs more than most checks: one per thread, each
    // query in its own scope.
    static thread_local z3::solver solver(c, z3::solver::simple());
    auto start = std::chrono::steady_clock::now();
    Answer answer = Answer::Unknown;
    try {
      z3::params params(c);
      params.set("timeout", timeoutMs);
      // Z3 would otherwise install its own SIGINT handler around each check
      // and restore the previous one after; checks on several threads
      // restore each other's, which left a handler pointing into a finished
      // check (a Ctrl-C then crashed the process, mlsopt-opt or Python).
      params.set("ctrl_c", false);
      solver.set(params);
      z3::expr_vector alternatives(c);
      for (auto [siteIndex, cand] : llvm::enumerate(candidates))
        alternatives.push_back(encodeSite(c, e, cand, siteIndex));
      solver.push();
      // The scope must close even when Z3 throws, or the next query would
      // inherit this one's assertions.
      struct PopOnExit {
        z3::solver &solver;
        ~PopOnExit() {
          try {
            solver.pop();
          } catch (const z3::exception &) {
            solver.reset();
          }
        }
      } popOnExit{solver};
      solver.add(z3::mk_or(alternatives));
      z3::check_result result = solver.check();
      switch (result) {
      case z3::sat:
        answer = Answer::Yes;
        break;
      case z3::unsat:
        answer = Answer::No;
        break;
      case z3::unknown:
        break;
      }
    } catch (const z3::exception &ex) {
      LLVM_DEBUG(llvm::dbgs() << "z3 error: " << ex.msg() << "\n");
      answer = Answer::Unknown;
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    updateStats([&](SubexprOracleStats &s) {
      ++s.solverCalls;
      if (answer == Answer::Unknown)
        ++s.unknowns;
      s.solverSeconds += seconds;
      s.maxSolverSeconds = std::max(s.maxSolverSeconds, seconds);
    });
    LLVM_DEBUG({
      llvm::dbgs() << "subexpr? ";
      print(llvm::dbgs(), e);
      llvm::dbgs() << " -> "
                   << (answer == Answer::Yes  ? "yes"
                       : answer == Answer::No ? "no"
                                              : "unknown")
                   << " (" << candidates.size() << " places, " << seconds * 1e3
                   << " ms)\n";
    });
    return answer;
  }

  /// The formula "e maps into this place with a common cofactor f".
  static z3::expr encodeSite(z3::context &c, const NormPoly *e,
                             const SiteCandidates &cand, size_t siteIndex) {
    std::string prefix = "s" + std::to_string(siteIndex) + "_";
    const NormPoly *site = cand.site;
    // A pair (e_i, s_j) fixes f's atoms (s_j's minus e_i's) and reduction
    // (s_j's over e_i's, exact after the screen): pairs that fix the same
    // ones form a class, and the chosen pairs must share one. Classes are
    // numbered here, so that Z3 compares one integer instead of a count
    // per atom.
    using Signature = std::pair<std::vector<unsigned>, uint64_t>;
    std::map<Signature, int64_t> classes;
    auto classOf = [&](const NormMono *em, const NormMono *sm) {
      std::vector<unsigned> rest;
      auto ea = em->atoms.begin();
      for (const NormAtom *a : sm->atoms) {
        if (ea != em->atoms.end() && *ea == a) {
          ++ea;
          continue;
        }
        rest.push_back(a->id);
      }
      Signature sig{std::move(rest), sm->reduction / em->reduction};
      return classes.try_emplace(sig, classes.size()).first->second;
    };
    z3::expr fClass = c.int_const((prefix + "fclass").c_str());
    z3::expr fCoef = c.real_const((prefix + "fcoef").c_str());
    z3::expr_vector conjuncts(c);

    // choice[i][j]: e's monomial i is the place's monomial j.
    // expr_vector is a shared handle: each needs its own construction.
    std::vector<z3::expr_vector> usersOf;
    for (size_t j = 0; j < site->monos.size(); ++j)
      usersOf.emplace_back(c);
    for (auto [i, em] : llvm::enumerate(e->monos)) {
      z3::expr_vector choicesOfEm(c);
      for (unsigned j : cand.targetsOf[i]) {
        const NormMono *sm = site->monos[j];
        z3::expr choice = c.bool_const(
            (prefix + "m" + std::to_string(i) + "_" + std::to_string(j))
                .c_str());
        choicesOfEm.push_back(choice);
        usersOf[j].push_back(choice);
        z3::expr_vector match(c);
        match.push_back(fClass == c.int_val(classOf(em, sm)));
        // f.coef * e.coef = s.coef, without division (rational denominators
        // are positive). Only when f has no denominator here: a denominator
        // hands its own coefficient to the numerator (canonicalDen), and
        // the denominators are only compared by a necessary condition. Not
        // over a denominator such as a - a, which erases the sign.
        if (em->den == sm->den && !em->signFree)
          match.push_back(
              fCoef *
                  c.real_val(toDecimal(__int128(em->coef.num) * sm->coef.den)
                                 .c_str()) ==
              c.real_val(
                  toDecimal(__int128(sm->coef.num) * em->coef.den).c_str()));
        conjuncts.push_back(z3::implies(choice, z3::mk_and(match)));
      }
      conjuncts.push_back(z3::mk_or(choicesOfEm));
      conjuncts.push_back(z3::atmost(choicesOfEm, 1));
    }
    // Distinct monomials of e are distinct terms of the place.
    for (z3::expr_vector &users : usersOf)
      if (users.size() > 1)
        conjuncts.push_back(z3::atmost(users, 1));
    return z3::mk_and(conjuncts);
  }
};

SubexprOracle::SubexprOracle(ExprContext &ctx, llvm::ArrayRef<ExprRef> targets,
                             unsigned timeoutMs)
    : impl(std::make_unique<Impl>()) {
  // Expressions are self-contained; `ctx` only has to outlive the queries.
  (void)ctx;
  impl->timeoutMs = timeoutMs;
  llvm::DenseSet<const NormPoly *> seen;
  for (ExprRef target : targets) {
    const NormPoly *p =
        containsConcat(target) ? nullptr : impl->norm.normalize(target);
    if (!p) {
      impl->judgeable = false;
      continue;
    }
    llvm::SetVector<const NormPoly *> stabilized;
    const NormPoly *erased = impl->norm.eraseStabilizers(p, stabilized);
    impl->addSites(erased, seen);
  }
}

SubexprOracle::~SubexprOracle() = default;

bool SubexprOracle::isSubexpression(ExprRef e) {
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    ++impl->stats.queries;
    if (auto it = impl->exprCache.find(e); it != impl->exprCache.end()) {
      ++impl->stats.cacheHits;
      return it->second;
    }
  }
  bool result = true;
  // Outside the axioms' reach (see buildOpExpr on concat): never pruned.
  if (impl->judgeable && !containsConcat(e))
    if (const NormPoly *p = impl->norm.normalize(e))
      result = impl->decide(p);
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->exprCache[e] = result;
  return result;
}

bool SubexprOracle::isEquivalent(ExprRef a, ExprRef b) {
  if (a > b)
    std::swap(a, b);
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    ++impl->stats.queries;
    if (auto it = impl->equivalenceCache.find({a, b});
        it != impl->equivalenceCache.end()) {
      ++impl->stats.cacheHits;
      return it->second;
    }
  }
  bool result = true;
  if (a != b && !containsConcat(a) && !containsConcat(b)) {
    const NormPoly *pa = impl->norm.normalize(a);
    const NormPoly *pb = impl->norm.normalize(b);
    if (pa && pb) {
      llvm::SetVector<const NormPoly *> stabilized;
      // Erasing stabilizers equates x - max(x) with x. That is right where
      // the shift cancels (inside a softmax, between exp's numerator and
      // its sum) and wrong for a value that is itself shifted by a term of
      // its own, which only a value shifted too may match.
      auto isShifted = [](const NormPoly *p) {
        return llvm::any_of(p->monos,
                            [](const NormMono *m) { return isStabilizer(m); });
      };
      result = isShifted(pa) == isShifted(pb) &&
               impl->norm.eraseStabilizers(pa, stabilized) ==
                   impl->norm.eraseStabilizers(pb, stabilized);
    } else if (pa || pb) {
      // One is past the normal form's limits (its expansion or its
      // coefficients overflow), the other not: expressions equal under the
      // axioms have one normal form and expand alike, so they differ.
      // Judged equal, every output of the candidates x * 1e-6 squared twice
      // matched an RMSNorm's, and a residual add and RMSNorm screened 32000
      // wrong kernels in a minute.
      result = false;
    }
  }
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->equivalenceCache[{a, b}] = result;
  return result;
}

SubexprOracleStats SubexprOracle::getStats() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->stats;
}
