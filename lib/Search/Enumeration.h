//===- Enumeration.h - What the kernel and block enumerations share -*- C++ -*-===//
//
// Private to lib/Search. Both levels of the search grow a graph one op at a
// time over typed values (dims and an abstract expression each) in a
// canonical order, so that no graph is produced twice: a new op's key
// (its highest operand, then kind, operands and attributes) must be larger
// than the previous op's. Every ordering of a DAG's ops that respects this
// key is the same ordering, so each DAG appears once.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_SEARCH_ENUMERATION_H
#define MLSOPT_LIB_SEARCH_ENUMERATION_H

#include "mlsopt/Search/AbstractExpr.h"
#include "mlsopt/Search/SearchProblem.h"
#include "mlsopt/Search/Superoptimizer.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <atomic>
#include <chrono>
#include <tuple>
#include <unordered_set>

namespace mlsopt::search::enumeration {

/// A value the enumeration can use: its dims and abstract expression.
struct SearchValue {
  Dims dims;
  ExprRef expr = nullptr;
  /// The expression the value would have if the for-loop did not cut its
  /// dim: a tile's partial sum over a chunk of k is the sum over all of k.
  /// The literal pass compares these with the reference, so a for-loop
  /// whose accumulators rebuild what the reference computes is literal too.
  /// Outside the literal pass it is just `expr`.
  ExprRef whole = nullptr;
};

/// Whether `value` is a partial result of a split reduction: a dim of it
/// holds one slice per chunk (Dim::chunks).
inline bool isPartialResult(const SearchValue &value) {
  return llvm::any_of(value.dims, [](Dim d) { return d.isChunked(); });
}

/// Whether `op` scales `operand` again: a mul_scalar of a scaled value, or
/// an rms_norm without epsilon (scale-free) of one (SearchCore::
/// chainsScales). The rule that judges the candidates, and the reference.
inline bool rescales(const SOp &op, ExprRef operand) {
  return (op.kind == OpKind::MulScalar ||
          (op.kind == OpKind::RmsNorm && op.scalar.literal == 0)) &&
         operand->isScaled();
}

/// The canonical-order key of an op.
using OpKey = std::tuple<int, int, int, int, int64_t, int>;
OpKey getKey(const SOp &op, int scalarIndex);
constexpr OpKey kNoKey{-1, -1, -1, -1, -1, -1};

/// Counters shared by all threads of one search.
struct Counters {
  std::atomic<uint64_t> enumerated{0};
  std::atomic<uint64_t> prunedByAbstractExpr{0};
  std::atomic<uint64_t> prunedByCost{0};
  std::atomic<uint64_t> screened{0};
  std::atomic<uint64_t> screenPassed{0};
  std::atomic<uint64_t> vetoedByLatency{0};
  std::atomic<uint64_t> tooLateToCheck{0};
  std::atomic<uint64_t> blockGraphs{0};
};

/// What every enumeration needs to know about the search it belongs to.
struct SearchCore {
  const SearchProblem &problem;
  const SearchOptions &options;
  ExprContext &exprs;
  SubexprOracle &oracle;
  Counters &counters;
  /// When the search ends, in steady_clock ticks: moved as the best
  /// program's check needs (SearchOptions::checkSeconds).
  std::atomic<std::chrono::steady_clock::rep> &deadline;
  /// Set once the deadline passed: every loop unwinds.
  std::atomic<bool> &stop;
  /// The first pass of the search keeps only values whose whole
  /// expressions are literally subterms of the reference's (or of its
  /// form with row scales sunk past matmuls): the fusions that compute what
  /// the reference computes, found in seconds. The second pass asks the
  /// oracle, which also admits what the axioms allow. Subterms are compared
  /// by unordered hash: the enumeration orders a commutative op's operands
  /// its own way (mul(g, rms_norm(x)) for the program's mul(rms_norm(x), g)).
  const std::unordered_set<uint64_t> *literalSubterms = nullptr;
  /// Every exp of the reference takes a value a maximum was subtracted
  /// from (AbstractExpr::subtractsMax), as a safe softmax takes
  /// exp(x - max(x)). The axioms let a maximum that is subtracted before
  /// exp cancel (online softmax relies on it), so exp(x) / sum(exp(x)), or
  /// exp(x - m) / exp(m) over the sum, is equivalent; but it overflows where
  /// the program does not (exp(12) is past f16's range), so the enumeration
  /// then takes exp only of values that subtract a maximum. Decided on the
  /// reference's expressions, by the rule that judges the candidates'.
  bool stableExp = false;
  /// Whether the reference scales a value it scaled already. The oracle
  /// admits x * c * c' wherever x * c is a subterm (coefficients fold), and
  /// rms_norm(c * x) wherever rms_norm(x) is (it is scale-free without an
  /// epsilon), so the enumeration could chain scalings at no cost the
  /// model sees: the search once normalized x * (1/1024)^4, which is zero
  /// in f16, where the program normalizes x. Unless the reference chains
  /// scalings itself, a scaled value is not scaled again, and an rms_norm
  /// without epsilon takes no scaled value.
  bool chainsScales = false;
  /// The expressions of the subprogram's outputs. An epilogue value that
  /// computes one is also stored where other epilogue ops read it (exp(x)
  /// and its row sums, both outputs, from one kernel).
  llvm::ArrayRef<ExprRef> outputExprs;

  bool timedOut() {
    if (stop.load(std::memory_order_relaxed))
      return true;
    // Reading the clock at every op tried took a fifteenth of the search;
    // every 64th call per thread keeps the timeout within microseconds.
    thread_local unsigned calls = 0;
    if (++calls % 64 != 0)
      return false;
    if (std::chrono::steady_clock::now().time_since_epoch().count() <
            deadline.load(std::memory_order_relaxed) &&
        !areSearchesCancelled())
      return false;
    stop = true;
    return true;
  }

  /// Whether `expr` may be part of a program equivalent to the reference;
  /// counts a pruned one.
  bool keep(ExprRef expr, ExprRef whole);
};

/// Where ops are being generated: at the kernel level (no layout), in a
/// for-loop body or in a block graph's epilogue.
struct Site {
  const Layout *layout = nullptr;
};

/// The abstract expression of `op` over `operands`, with `extent` giving
/// the extent of a dim where the op is and `wholeExtent` (default: extent)
/// the uncut extent, which the 1/n of a mean always uses.
ExprRef buildExpr(ExprContext &exprs, const SOp &op,
                  llvm::ArrayRef<const SearchValue *> operands,
                  llvm::function_ref<int64_t(Dim)> extent,
                  llvm::function_ref<int64_t(Dim)> wholeExtent = nullptr);

/// The extent function of a site: real extents at the kernel level; in a
/// block graph, tile extents with the representative iteration count (and
/// chunk count of a split reduction). With `whole`, the extent the dim would
/// have if neither the for-loop nor a split reduction cut it.
int64_t getSiteExtent(const SearchProblem &problem, const Site &site, Dim d,
                      bool whole = false);

/// Calls `fn` for every op over `values` whose key exceeds `last`, that
/// type-checks, is allowed at `site` (no reduction over a grid-split dim,
/// rms_norm only over a whole dim the reference normalizes over), and whose
/// result is not already among `values`. fn returns false to stop. With
/// `admit`, only ops it admits are tried (it sees the op before anything is
/// computed for it).
void forEachOp(
    SearchCore &core, const Site &site, llvm::ArrayRef<SearchValue> values,
    OpKey last,
    llvm::function_ref<bool(const SOp &, const OpKey &, SearchValue &&)> fn,
    llvm::function_ref<bool(const SOp &)> admit = nullptr);

/// The expression of a for-loop accumulator over a body value; for
/// rescale, `maxValue` is the body value its max accumulator yields.
ExprRef accumulate(ExprContext &exprs, block::AccumKind kind,
                   int64_t iterations, ExprRef value,
                   ExprRef maxValue = nullptr);

/// A custom kernel found by the block enumeration, with its outputs.
struct CustomCandidate {
  BlockGraph graph;
  llvm::SmallVector<SearchValue, 2> outputs;
};

/// Enumerates the block graphs of custom kernels over kernel values
/// `inputs` (ids `inputIds`) with the layout skeleton `skeleton` (grid and
/// loop classes; sizes are chosen later) and exactly `blockOps` block ops,
/// calling `fn` on every complete one whose outputs are all new (not among
/// `existing`). The search raises `blockOps` step by step (iterative
/// deepening), so small kernels are found before the space of large ones
/// is explored.
void enumerateBlockGraphs(SearchCore &core,
                          llvm::ArrayRef<unsigned> inputIds,
                          llvm::ArrayRef<SearchValue> inputs,
                          const Layout &skeleton, unsigned blockOps,
                          llvm::ArrayRef<SearchValue> existing,
                          llvm::function_ref<void(CustomCandidate &&)> fn);

/// Which grid dims a layout skeleton may have.
enum class GridScope {
  /// Classes of the program's outputs: every kernel that stores a result.
  Results,
  /// Only skeletons that also grid a class of an intermediate value no
  /// result has (a gated MLP's hidden dim before its down projection): for
  /// a kernel whose outputs another kernel reads.
  Intermediates,
};

/// The layout skeletons worth trying for a custom kernel over `inputs`.
llvm::SmallVector<Layout>
getLayoutSkeletons(const SearchProblem &problem,
                   llvm::ArrayRef<SearchValue> inputs,
                   GridScope scope = GridScope::Results);

} // namespace mlsopt::search::enumeration

#endif // MLSOPT_LIB_SEARCH_ENUMERATION_H
