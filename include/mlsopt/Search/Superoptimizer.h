//===- Superoptimizer.h - Search for the best μGraph of a subprogram -*- C++ -*-===//
//
// The search of design.md "Search": kernel graphs and, inside custom kernels,
// block graphs are enumerated op by op in a canonical order; every new value
// must be a subexpression of the reference under the axioms (abstract
// expressions, decided by Z3); every complete candidate is screened by the
// finite-field evaluator at small extents; grid, block and loop sizes of the
// survivors are chosen by the cost model, which also prunes prefixes that
// cannot beat the best program found (branch and bound).
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SEARCH_SUPEROPTIMIZER_H
#define MLSOPT_SEARCH_SUPEROPTIMIZER_H

#include "mlsopt/Search/CostModel.h"
#include "mlsopt/Search/SearchProblem.h"
#include "mlsopt/Support/Target.h"

#include "mlir/IR/MLIRContext.h"

#include <functional>

namespace mlsopt::search {

struct SearchOptions {
  unsigned maxKernelOps = 5;
  unsigned maxBlockOps = 11;
  /// Seconds; the best program found by then is kept.
  double timeoutSeconds = 60;
  /// Worker threads; 0: the context's thread pool.
  unsigned threads = 0;
  TargetInfo target = getDefaultTarget();
  uint64_t seed = 1;
  /// Prune by abstract expressions (off: only screening decides; for
  /// measuring what pruning saves).
  bool abstractPruning = true;
  /// Prune prefixes by cost lower bounds.
  bool costPruning = true;
  /// What the cost model that ranks candidates charges for.
  CostModelOptions cost;
  /// The seconds a full-shape check of a candidate is predicted to take
  /// (the caller's, which runs it after the search). When set,
  /// `timeoutSeconds` covers the search and that check: the search ends
  /// 1.5 times its best program's check before the timeout, or
  /// `minCheckSeconds` before it while the input is the best, and a
  /// candidate whose check could no longer fit is not taken.
  std::function<double(const KernelGraph &)> checkSeconds;
  /// The least any check takes: the reference's evaluation.
  double minCheckSeconds = 0;
  /// Seconds; where nonzero, a search that has found nothing faster than
  /// the input by then ends (the caller searches the subprogram in smaller
  /// pieces with the time left), and one that has runs to its timeout.
  double giveUpSeconds = 0;
  /// Rewrites a function the search costs as the caller's closing fusion
  /// rewrites the answer (--fuse-kernel-elementwise does, after
  /// --superoptimize): a pre-defined op that reads or stores through a
  /// kernel.convert (an f16 program's op computed in f32) becomes the
  /// kernel of its default block graph, whose loads or stores convert.
  /// Called only on functions that hold a conversion; when null, they are
  /// costed as materialized, a launch per conversion.
  std::function<void(mlir::func::FuncOp)> foldConversions;
  /// Rewrites the custom kernels of a function as the caller rewrites an
  /// answer before it replaces the subprogram: block elementwise ops become
  /// thread graphs, whose steps the latency term counts apart from their
  /// ops' (one more per element for a graph of one op). The latency veto
  /// judges a candidate with it, as it will be emitted; sizes and ranks
  /// stay those of the block graph. When null, the veto judges the block
  /// graph.
  std::function<void(mlir::func::FuncOp)> fuseThreadGraphs;
};

struct SearchStatistics {
  uint64_t enumerated = 0;
  uint64_t prunedByAbstractExpr = 0;
  uint64_t prunedByCost = 0;
  uint64_t screened = 0;
  uint64_t screenPassed = 0;
  /// Candidates the roofline ranked ahead that the latency veto refused
  /// (CostModelOptions::latencyVeto).
  uint64_t vetoedByLatency = 0;
  uint64_t blockGraphs = 0;
  uint64_t oracleQueries = 0;
  uint64_t oracleCacheHits = 0;
  bool timedOut = false;
  /// The search ended at SearchOptions::giveUpSeconds, before its timeout,
  /// with nothing faster than the input.
  bool gaveUp = false;
  /// The search stopped early because the best program costs no more than
  /// any program can: one launch that reads the inputs and writes the
  /// results once (the cost model's lower bound for the whole subprogram).
  bool reachedLowerBound = false;
  /// Nothing was searched: the input costs less than 1% more than that
  /// lower bound, and a program must save 1% to replace it.
  bool inputAtLowerBound = false;
  /// The reference cannot be evaluated over the finite field (it is not
  /// LAX: an exp of a square root, say), so nothing was searched.
  bool unverifiable = false;
  /// Candidates better than the best so far that were not taken because
  /// their check would not have fit in the time left
  /// (SearchOptions::checkSeconds).
  uint64_t tooLateToCheck = 0;
  double seconds = 0;
  /// When the best program was found, in seconds into the search (0 when
  /// nothing beat the reference): a search that runs to its timeout long
  /// after this could be given a shorter one.
  double bestSeconds = 0;
};

struct SearchResult {
  /// The best program: the reference itself when nothing beat it.
  KernelGraph best;
  KernelCost bestCost;
  KernelCost referenceCost;
  bool improved = false;
  SearchStatistics stats;
};

/// Searches `problem`. Deterministic for given options whatever the thread
/// count, unless the timeout cuts the search short.
SearchResult superoptimize(const SearchProblem &problem,
                           const SearchOptions &options,
                           mlir::MLIRContext *context);

/// While set, every search in the process stops as at its timeout, with
/// the best program it has: an interactive interrupt (Ctrl-C in the Python
/// package, which runs searches in the caller's process). Whoever sets it
/// clears it before the next search.
void setSearchesCancelled(bool cancelled);
bool areSearchesCancelled();

} // namespace mlsopt::search

#endif // MLSOPT_SEARCH_SUPEROPTIMIZER_H
