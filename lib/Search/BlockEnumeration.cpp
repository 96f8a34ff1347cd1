//===- BlockEnumeration.cpp - Block graphs of custom kernels --------------===//
//
// A block graph is grown in the order its IR runs: one load per input, the
// for-loop body op by op, the accumulators (every body value nothing else in
// the body consumes; an input the loop does not walk and the body does not
// read is loaded after the loop instead), the epilogue op by op, and the
// stores (every epilogue value nothing else consumes). Taking every leaf as an
// accumulator and as an output means no graph with dead code is produced, and
// no two graphs differ only by it.
//
//===----------------------------------------------------------------------===//

#include "Enumeration.h"

#include "mlsopt/Search/GridChoices.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "superoptimize"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;
using namespace mlsopt::search::enumeration;

namespace {
class BlockEnumerator {
public:
  BlockEnumerator(SearchCore &core, ArrayRef<unsigned> inputIds,
                  ArrayRef<SearchValue> inputs, const Layout &skeleton,
                  unsigned blockOps, ArrayRef<SearchValue> existing,
                  function_ref<void(CustomCandidate &&)> fn)
      : core(core), limit(blockOps), existing(existing), fn(fn) {
    graph.inputs.assign(inputIds.begin(), inputIds.end());
    graph.layout = skeleton;
    site.layout = &graph.layout;
    // forEachOp reads `body` and `post` while its callback appends to them:
    // they must not reallocate. A stabilizing maximum and its subtraction
    // count as one op, as does a chain of distinct masks, and a load with
    // its one reader (BlockGraph::getNumBlockOps).
    unsigned perOp = 2 + core.problem.triangles.size();
    body.reserve(2 * inputs.size() + perOp * limit + 1);
    post.reserve(perOp * limit + 8);
    for (const SearchValue &in : inputs) {
      SearchValue tile = in;
      for (Dim &d : tile.dims)
        d.loopSplit = skeleton.walks(d);
      body.push_back(std::move(tile));
    }
  }

  void run() {
    // Partial results are combined by a for-loop over their chunks, one
    // chunk per iteration, with the grid cutting none of them.
    for (unsigned i = 0; i < graph.inputs.size(); ++i)
      for (Dim d : body[i].dims)
        if (d.isChunked() &&
            (d.chunks != graph.layout.loopClass ||
             (d.cls != Dim::kOne && graph.layout.getGridDimOf(d.cls))))
          return;
    // A loop that no input walks computes the same tile in every iteration.
    if (graph.layout.loopClass != Dim::kOne &&
        llvm::none_of(body, [](const SearchValue &v) {
          return llvm::any_of(v.dims, [](Dim d) { return d.loopSplit; });
        }))
      return;
    growBody(kNoKey);
  }

private:
  unsigned opsLeft() const {
    unsigned used = graph.getNumBlockOps();
    return limit > used ? limit - used : 0;
  }

  /// Tries `atNode` on the graph as it is, then every next op over
  /// `values` (the loop body's or the epilogue's), appended to `ops`.
  void grow(SmallVectorImpl<SearchValue> &values, SmallVectorImpl<SOp> &ops,
            OpKey last, void (BlockEnumerator::*atNode)()) {
    if (core.timedOut())
      return;
    (this->*atNode)();
    // Every op needs at least one store after it. Where only the store's
    // room is left, a body op that takes an input no op reads yet as part
    // of its own op (readsInputWithOp) still fits: it counts with the load,
    // which counted already.
    unsigned left = opsLeft();
    bool inBody = &ops == &graph.body;
    if (left < 1 || (left < 2 && !inBody))
      return;
    unsigned numInputs = graph.inputs.size();
    auto readsUnreadInputWithOp = [&](const SOp &op) {
      return llvm::any_of(op.operands, [&](unsigned v) {
        return v < numInputs && llvm::count(op.operands, v) == 1 &&
               readsInputWithOp(graph.body, op, v, numInputs) &&
               llvm::none_of(graph.body, [&](const SOp &other) {
                 return llvm::is_contained(other.operands, v);
               });
      });
    };
    // An epilogue op of two operands reads what the loop accumulated: two
    // tiles loaded after the loop (the query of an attention and a mask,
    // after a loop over its keys) combine in a kernel of their own, or in
    // the body. Ops of one operand may prepare such a tile (the rsqrt of a
    // row statistic that scales a product); finish stores none of them.
    auto dependsOnLoop = [&](const SOp &op) {
      return llvm::any_of(op.operands, [&](unsigned v) { return fromLoop[v]; });
    };
    auto readsLoopResult = [&](const SOp &op) {
      return op.operands.size() < 2 || dependsOnLoop(op);
    };
    function_ref<bool(const SOp &)> admit = nullptr;
    if (left < 2)
      admit = readsUnreadInputWithOp;
    else if (!inBody)
      admit = readsLoopResult;
    forEachOp(
        core, site, values, last,
        [&](const SOp &op, const OpKey &key, SearchValue &&value) {
          ops.push_back(op);
          values.push_back(std::move(value));
          if (!inBody)
            fromLoop.push_back(dependsOnLoop(op));
          grow(values, ops, key, atNode);
          if (!inBody)
            fromLoop.pop_back();
          values.pop_back();
          ops.pop_back();
          return !core.timedOut();
        },
        admit);
  }

  void growBody(OpKey last) {
    grow(body, graph.body, last, &BlockEnumerator::closeLoop);
  }

  /// Of `numValues` values, the ones no op of `ops` consumes.
  static SmallVector<unsigned> getLeaves(unsigned numValues,
                                         ArrayRef<SOp> ops) {
    SmallVector<bool> used(numValues, false);
    for (const SOp &op : ops)
      for (unsigned v : op.operands)
        used[v] = true;
    SmallVector<unsigned> leaves;
    for (unsigned v = 0; v < numValues; ++v)
      if (!used[v])
        leaves.push_back(v);
    return leaves;
  }

  void closeLoop() {
    // A loop body that only loads is a copy, which pre-defined ops or an
    // epilogue do better; unless it walks the chunks of partial results,
    // which its accumulators sum.
    bool combines = llvm::any_of(body, [](const SearchValue &v) {
      return llvm::any_of(v.dims,
                          [](Dim d) { return d.isChunked() && d.loopSplit; });
    });
    if (graph.body.empty() && !combines)
      return;
    SmallVector<unsigned> leaves = getLeaves(body.size(), graph.body);
    int loopClass = graph.layout.loopClass;
    int64_t iterations = loopClass == Dim::kOne
                             ? 1
                             : getRepresentativeIterations(
                                   core.problem.shapes.extents[loopClass]);
    if (leaves.size() > 4)
      return;
    // Over one iteration, sum and max both pass the value through: only
    // sum is tried (a split reduction's maximum still gets a max, for the
    // reader).
    SmallVector<block::AccumKind, 3> kinds = {block::AccumKind::sum};
    if (iterations > 1 && core.problem.uses(OpKind::ReduceMax))
      kinds.push_back(block::AccumKind::max);
    // Which body values change from one iteration to the next: those that
    // depend on a load the loop walks. Summing one that does not gives n
    // times it, which no equivalent program has (no axiom brings in the
    // iteration count), so such a sum is never tried.
    SmallVector<bool> varies = dependsOn([&](unsigned v) {
      return llvm::any_of(body[v].dims, [](Dim d) { return d.loopSplit; });
    });
    closeLoopWith(leaves, kinds, iterations, varies, /*maximum=*/-1, {});
    // A loop that runs once passes a body value through its accumulator:
    // one that is an output and that other body ops read is accumulated
    // too, as the epilogue stores such values (exp(x) and x * exp(x), both
    // outputs, from one loop; before, x * exp(x) left no leaf for exp(x),
    // and a body that only loads x is not enumerated). The graphs without
    // it stay: the output may be another kernel's.
    if (iterations == 1 && !graph.layout.splitsReduction()) {
      SmallVector<unsigned> withOutputs(leaves);
      for (unsigned v = graph.inputs.size(); v < body.size(); ++v)
        if (!llvm::is_contained(leaves, v) && isOutput(body[v].expr))
          withOutputs.push_back(v);
      if (withOutputs.size() > leaves.size() && withOutputs.size() <= 4)
        closeLoopWith(withOutputs, kinds, iterations, varies,
                      /*maximum=*/-1, {});
    }
    if (graph.layout.splitsReduction()) {
      closeSplitWithMaxima(leaves, kinds);
      return;
    }
    // Online softmax: a row maximum m_i that the body also uses (in
    // exp(s - m_i)) goes to a max accumulator, and the leaves computed
    // relative to it may be `rescale by` it, which brings every iteration's
    // values to the common maximum. Only over a real loop: one iteration has
    // nothing to rescale.
    if (iterations == 1)
      return;
    kinds.push_back(block::AccumKind::rescale);
    if (combines) {
      closeCombineWithMaxima(leaves, kinds, iterations, varies);
      return;
    }
    for (auto [j, op] : llvm::enumerate(graph.body)) {
      unsigned m = graph.inputs.size() + j;
      if (op.kind != OpKind::ReduceMax || llvm::is_contained(leaves, m) ||
          !varies[m])
        continue;
      SmallVector<bool> follows = dependsOn([&](unsigned v) { return v == m; });
      closeLoopWith(leaves, kinds, iterations, varies, m, follows);
    }
  }

  /// Flash-decoding of a safe softmax, first kernel: a block's maximum m_c
  /// over its own chunk, which its body subtracts before exp, is stored
  /// beside the partial results computed relative to it, so that the
  /// kernel combining the chunks can bring them to the row's maximum.
  /// Without it the combining kernel would not know what each chunk's exps
  /// were stabilized by, and a safe softmax (the stable-exp rule admits no
  /// other exp) could not be split at all.
  void closeSplitWithMaxima(ArrayRef<unsigned> leaves,
                            ArrayRef<block::AccumKind> kinds) {
    int split = graph.layout.splitClass;
    SmallVector<bool> all(body.size(), true);
    for (auto [j, op] : llvm::enumerate(graph.body)) {
      unsigned m = graph.inputs.size() + j;
      if (op.kind != OpKind::ReduceMax || llvm::is_contained(leaves, m) ||
          body[op.operands[0]].dims[op.dim].cls != split)
        continue;
      closeLoopWith(leaves, kinds, /*iterations=*/1, all, m, all,
                    /*needsRescale=*/false);
    }
  }

  /// Flash-decoding of a safe softmax, second kernel: its for-loop walks
  /// the chunks, one per iteration; a chunk's maximum m_c (a loaded partial
  /// result that is a max) goes to a max accumulator and the partial
  /// results that hold a maximum (computed relative to m_c) may be
  /// `rescale by` it: sum_c v_c * exp(m_c - M). A rescale of a value that
  /// is not relative to m_c fails screening.
  void closeCombineWithMaxima(ArrayRef<unsigned> leaves,
                              ArrayRef<block::AccumKind> kinds,
                              int64_t iterations, ArrayRef<bool> varies) {
    for (unsigned m : leaves) {
      if (m >= graph.inputs.size() || !varies[m] ||
          body[m].expr->getKind() != ExprKind::Max)
        continue;
      SmallVector<unsigned> rest;
      SmallVector<bool> follows(body.size(), false);
      for (unsigned v : leaves)
        if (v != m) {
          rest.push_back(v);
          follows[v] = body[v].expr->holdsMax();
        }
      if (llvm::is_contained(follows, true))
        closeLoopWith(rest, kinds, iterations, varies, m, follows);
    }
  }

  /// For each body value, whether it or a value it depends on satisfies
  /// `seed`.
  SmallVector<bool> dependsOn(function_ref<bool(unsigned)> seed) const {
    SmallVector<bool> result;
    for (unsigned i = 0; i < graph.inputs.size(); ++i)
      result.push_back(seed(i));
    for (auto [j, op] : llvm::enumerate(graph.body))
      result.push_back(
          seed(graph.inputs.size() + j) ||
          llvm::any_of(op.operands, [&](unsigned v) { return result[v]; }));
    return result;
  }

  /// Grows the epilogue after every assignment of `kinds` to `leaves`. With
  /// a `maximum` (a body value), its max accumulator comes first and, if
  /// `needsRescale`, at least one leaf, which must follow it (`follows`:
  /// computed relative to it), is rescaled by it; without one (-1), `kinds`
  /// has no rescale.
  void closeLoopWith(ArrayRef<unsigned> leaves,
                     ArrayRef<block::AccumKind> kinds, int64_t iterations,
                     ArrayRef<bool> varies, int maximum, ArrayRef<bool> follows,
                     bool needsRescale = true) {
    // Every combination of kinds over the leaves.
    SmallVector<unsigned> choice(leaves.size(), 0);
    while (true) {
      graph.accums.clear();
      post.clear();
      fromLoop.clear();
      bool ok = true;
      if (maximum >= 0) {
        ok = !needsRescale || llvm::any_of(choice, [&](unsigned c) {
          return kinds[c] == block::AccumKind::rescale;
        });
        if (ok)
          ok = pushAccum(maximum, block::AccumKind::max, iterations, nullptr);
      }
      for (auto [i, leaf] : llvm::enumerate(leaves)) {
        if (!ok)
          break;
        block::AccumKind kind = kinds[choice[i]];
        // An input tile the loop does not walk, which the body does not
        // read, is the same in every iteration: it is loaded after the
        // loop, for the epilogue (a bias, a residual), and has no kind.
        if (iterations > 1 && leaf < graph.inputs.size() && !varies[leaf]) {
          ok = choice[i] == 0 && pushAfterLoop(leaf);
          continue;
        }
        if (iterations > 1 && kind != block::AccumKind::max && !varies[leaf])
          ok = false;
        else if (kind == block::AccumKind::rescale && !follows[leaf])
          ok = false;
        else
          ok = pushAccum(leaf, kind, iterations,
                         kind == block::AccumKind::rescale ? body[maximum].expr
                                                           : nullptr);
      }
      if (ok)
        growPost(kNoKey);
      unsigned i = 0;
      while (i < choice.size() && ++choice[i] == kinds.size())
        choice[i++] = 0;
      if (i == choice.size())
        break;
    }
    graph.accums.clear();
    post.clear();
    fromLoop.clear();
  }

  /// Appends an accumulator of `kind` over body value `value` and its result
  /// to the epilogue, unless its expression is pruned. A rescale follows the
  /// loop's first accumulator, the maximum whose per-iteration value is
  /// `maxValue`.
  bool pushAccum(unsigned value, block::AccumKind kind, int64_t iterations,
                 ExprRef maxValue) {
    ++core.counters.enumerated;
    ExprRef expr =
        accumulate(core.exprs, kind, iterations, body[value].expr, maxValue);
    // Sums and maxima of the chunks of a whole are the whole.
    if (!core.keep(expr, body[value].whole))
      return false;
    graph.accums.push_back(
        Accum{value, kind, kind == block::AccumKind::rescale ? 0 : -1});
    post.push_back(
        SearchValue{getAccumulatedDims(graph.layout, body[value].dims), expr,
                    body[value].whole});
    fromLoop.push_back(true);
    return true;
  }

  /// Appends input `value`'s tile, loaded after the loop, to the epilogue.
  bool pushAfterLoop(unsigned value) {
    ++core.counters.enumerated;
    if (!core.keep(body[value].expr, body[value].whole))
      return false;
    Accum acc{value};
    acc.afterLoop = true;
    graph.accums.push_back(acc);
    post.push_back(body[value]);
    fromLoop.push_back(false);
    return true;
  }

  void growPost(OpKey last) {
    grow(post, graph.post, last, &BlockEnumerator::finish);
  }

  /// Whether a tile of `dims` can be stored: the for-loop is over, so no
  /// dim may still be cut by it, and every grid dim must place it. Under a
  /// split reduction, a tile is either cut along the split class like any
  /// grid-split tile, or is a partial result (`partial`) that the split
  /// grid dim places chunk by chunk.
  bool isStorable(const Dims &dims, bool partial) const {
    const Layout &layout = graph.layout;
    if (llvm::any_of(dims, [](Dim d) { return d.loopSplit || d.isChunked(); }))
      return false;
    for (auto [g, cls] : llvm::enumerate(layout.gridClass)) {
      if (cls == Dim::kOne)
        continue;
      // The split grid dim places the split class's tiles, or none when
      // the tile is a partial result; every other grid dim places its own.
      bool split = static_cast<int>(g) == layout.splitGridDim;
      int placed = split ? layout.splitClass : cls;
      int count = llvm::count_if(dims, [&](Dim d) { return d.cls == placed; });
      if (count != (split && partial ? 0 : 1))
        return false;
    }
    return !layout.splitsReduction() || !partial ||
           getStoredDims(layout, dims).has_value();
  }

  /// Under a split reduction, which epilogue values are partial: they
  /// depend on a reduction over the split class, which each block did over
  /// its own chunk only.
  SmallVector<bool> getPartialPostValues() const {
    SmallVector<bool> bodyPartial(graph.inputs.size(), false);
    int split = graph.layout.splitClass;
    for (const SOp &op : graph.body) {
      bool reducesSplit = false;
      const Dims &in = body[op.operands[0]].dims;
      if (op.kind == OpKind::Matmul)
        reducesSplit = in.back().cls == split;
      else if (op.kind == OpKind::ReduceSum || op.kind == OpKind::ReduceMax)
        reducesSplit = in[op.dim].cls == split;
      bodyPartial.push_back(
          split != Dim::kOne &&
          (reducesSplit || llvm::any_of(op.operands, [&](unsigned v) {
             return bodyPartial[v];
           })));
    }
    SmallVector<bool> partial;
    for (const Accum &acc : graph.accums)
      partial.push_back(bodyPartial[acc.value]);
    for (const SOp &op : graph.post)
      partial.push_back(llvm::any_of(
          op.operands, [&](unsigned v) { return partial[v]; }));
    return partial;
  }

  void finish() {
    SmallVector<unsigned> leaves = getLeaves(post.size(), graph.post);
    // A stored tile depends on the loop: one computed from tiles loaded
    // after it alone (a query scaled after a loop over keys) is another
    // kernel's work, and storing it only multiplied the block graphs that
    // a grouped-query attention's search weighs (1951 to 5383, 9 s to 16 s).
    if (llvm::any_of(leaves, [&](unsigned v) { return !fromLoop[v]; }))
      return;
    // The maximum that rescale accumulators follow (the first accumulator)
    // is stored only if the program needs it: FlashAttention's is not.
    ArrayRef<unsigned> stores = leaves;
    bool rescales = llvm::any_of(graph.accums, [](const Accum &acc) {
      return acc.kind == block::AccumKind::rescale;
    });
    // Smaller graphs were reported by an earlier, smaller limit.
    unsigned ops = graph.getNumBlockOps();
    if (rescales && leaves.size() > 1 && leaves.front() == 0 &&
        leaves.size() + ops == limit + 1)
      stores = stores.drop_front();
    if (stores.size() + ops == limit)
      finishWith(stores);
    // An epilogue value that other epilogue ops read is stored too where it
    // is one of the program's outputs: a kernel that computes exp(x) and
    // its row sums stores both. Only then, since storing every consumed
    // value would multiply the graphs for values no one needs (isOutput:
    // compared by its exact expression, a kernel that computes m * b + g * b
    // as (m + g) * b and reads it did not store it).
    if (rescales)
      return;
    SmallVector<unsigned> withOutputs;
    for (unsigned v = 0; v < post.size(); ++v)
      if (llvm::is_contained(leaves, v) ||
          (fromLoop[v] && isOutput(post[v].expr)))
        withOutputs.push_back(v);
    if (withOutputs.size() > leaves.size() && withOutputs.size() + ops == limit)
      finishWith(withOutputs);
  }

  /// Whether `expr` computes one of the program's outputs: the same
  /// expression up to the order of commutative operands (unordered hash;
  /// the enumeration puts the lower value first, so a kernel computes
  /// add(g, x * c) where the program has add(x * c, g)), or, past the
  /// literal pass, an equivalent one by the axioms, as the kernel level
  /// matches outputs (a kernel that computes m * b + g * b as (m + g) * b).
  /// A false match only adds a graph, which the kernel level matches again.
  bool isOutput(ExprRef expr) const {
    return llvm::any_of(core.outputExprs, [&](ExprRef out) {
      return out == expr ||
             out->getUnorderedHash() == expr->getUnorderedHash() ||
             (!core.literalSubterms && core.oracle.isEquivalent(out, expr));
    });
  }

  /// Reports the graph with stores of the epilogue values `leaves`.
  void finishWith(ArrayRef<unsigned> leaves) {
    SmallVector<bool> partial = getPartialPostValues();
    CustomCandidate candidate;
    for (unsigned leaf : leaves) {
      SearchValue v = post[leaf];
      if (!isStorable(v.dims, partial[leaf]))
        return;
      v.dims = *getStoredDims(graph.layout, v.dims);
      for (const SearchValue &e : existing)
        if (e.expr == v.expr && e.dims == v.dims)
          return;
      candidate.outputs.push_back(std::move(v));
    }
    graph.stores.assign(leaves.begin(), leaves.end());
    candidate.graph = graph;
    graph.stores.clear();
    ++core.counters.blockGraphs;
    fn(std::move(candidate));
  }

  SearchCore &core;
  unsigned limit;
  ArrayRef<SearchValue> existing;
  function_ref<void(CustomCandidate &&)> fn;
  BlockGraph graph;
  Site site;
  SmallVector<SearchValue> body;
  SmallVector<SearchValue> post;
  /// Per epilogue value: whether it depends on a loop accumulator (not only
  /// on tiles loaded after the loop).
  SmallVector<bool> fromLoop;
};
} // namespace

void enumeration::enumerateBlockGraphs(SearchCore &core, ArrayRef<unsigned> inputIds,
                                  ArrayRef<SearchValue> inputs,
                                  const Layout &skeleton, unsigned blockOps,
                                  ArrayRef<SearchValue> existing,
                                  function_ref<void(CustomCandidate &&)> fn) {
  BlockEnumerator(core, inputIds, inputs, skeleton, blockOps, existing, fn)
      .run();
}

SmallVector<Layout>
enumeration::getLayoutSkeletons(const SearchProblem &problem,
                                ArrayRef<SearchValue> inputs, GridScope scope) {
  // Grid candidates: the classes of the program's outputs (a grid dim must
  // place every stored tile); loop candidates: the other classes the
  // inputs have (the dims the program reduces), the chunks of partial
  // results, or no loop. A kernel whose outputs other kernels read may
  // also grid a class of the values in between (GridScope::Intermediates).
  llvm::SmallSetVector<int, 8> outputClasses, inputClasses, intermediateClasses;
  for (unsigned r : problem.reference.results)
    for (Dim d : problem.referenceDims[r])
      if (!d.isOne())
        outputClasses.insert(d.cls);
  if (scope == GridScope::Intermediates)
    for (const Dims &dims : ArrayRef(problem.referenceDims)
                                .drop_front(problem.reference.numInputs))
      for (Dim d : dims)
        if (!d.isOne() && !outputClasses.contains(d.cls))
          intermediateClasses.insert(d.cls);
  bool combines = false;
  for (const SearchValue &in : inputs)
    for (Dim d : in.dims) {
      if (d.isChunked()) {
        inputClasses.insert(d.chunks);
        combines = true;
      } else if (!d.isOne()) {
        inputClasses.insert(d.cls);
      }
    }
  SmallVector<int> gridClasses, loopClasses = {Dim::kOne};
  for (int c : inputClasses) {
    if (!outputClasses.contains(c)) {
      loopClasses.push_back(c);
      if (intermediateClasses.contains(c))
        gridClasses.push_back(c);
      continue;
    }
    gridClasses.push_back(c);
    // The statistics kernel of a softmax over rows longer than shared
    // memory walks the rows (max and rescale accumulators) though the
    // program outputs that dim: the kernel's own outputs do not have it.
    // So may a kernel that sums over a long row the program outputs, which
    // has chunks to split it into (a mean subtracted from rows of 32768).
    if (problem.maxClasses.contains(c) || problem.getChunkClass(c) != Dim::kOne)
      loopClasses.push_back(c);
  }
  llvm::sort(gridClasses);
  llvm::sort(loopClasses);

  SmallVector<Layout> skeletons;
  unsigned n = gridClasses.size();
  // Every subset of at most `maxGridDims` grid classes, in class order on
  // x, y, z, calling `fn` with the layout and its next free grid dim.
  auto forEachGrid = [&](unsigned maxGridDims,
                         function_ref<void(Layout &, unsigned)> fn) {
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
      if (llvm::popcount(mask) > static_cast<int>(maxGridDims))
        continue;
      Layout layout;
      unsigned g = 0;
      for (unsigned i = 0; i < n; ++i)
        if (mask & (1u << i)) {
          layout.gridClass[g] = gridClasses[i];
          layout.gridSize[g] = 2;
          ++g;
        }
      fn(layout, g);
    }
  };
  for (int loop : loopClasses)
    forEachGrid(3, [&](Layout &layout, unsigned) {
      if (loop != Dim::kOne && llvm::is_contained(layout.gridClass, loop))
        return;
      // The other scope has the skeletons that grid no intermediate class.
      if (scope == GridScope::Intermediates &&
          llvm::none_of(layout.gridClass,
                        [&](int c) { return intermediateClasses.contains(c); }))
        return;
      layout.loopClass = loop;
      layout.iterations =
          loop == Dim::kOne
              ? 1
              : getRepresentativeIterations(problem.shapes.extents[loop]);
      skeletons.push_back(layout);
    });
  // Split reductions (flash-decoding): the last grid dim walks the chunks
  // of a reduced class, with no for-loop; only over inputs that are not
  // partial results themselves, and only for kernels that store results
  // the program has (or their chunks).
  if (combines || scope == GridScope::Intermediates)
    return skeletons;
  for (int split : loopClasses) {
    int chunks = problem.getChunkClass(split);
    if (chunks == Dim::kOne)
      continue;
    forEachGrid(2, [&](Layout &layout, unsigned g) {
      layout.gridClass[g] = chunks;
      layout.gridSize[g] =
          getRepresentativeIterations(problem.shapes.extents[chunks]);
      layout.splitClass = split;
      layout.splitGridDim = g;
      skeletons.push_back(layout);
    });
  }
  return skeletons;
}
