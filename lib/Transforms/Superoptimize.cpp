//===- Superoptimize.cpp - Replace subprograms by their best μGraph -------===//
//
// The pass cuts functions into subprograms, hands each to the search
// (lib/Search), verifies the winner over the finite field at full shapes and
// splices it in. docs/search.md describes the search.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Block/IR/BlockDialect.h"
#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"
#include "mlsopt/Dialect/Thread/Transforms/Passes.h"
#include "mlsopt/Search/CostModel.h"
#include "mlsopt/Search/ResultCache.h"
#include "mlsopt/Search/SearchProblem.h"
#include "mlsopt/Search/Superoptimizer.h"
#include "mlsopt/Transforms/KernelElementwiseFusion.h"
#include "mlsopt/Transforms/KernelIdioms.h"
#include "mlsopt/Transforms/Passes.h"
#include "mlsopt/Transforms/ScoreChains.h"
#include "mlsopt/Transforms/Subprograms.h"
#include "mlsopt/Verify/EvaluationWork.h"
#include "mlsopt/Verify/Evaluator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"

#include <chrono>

#define DEBUG_TYPE "superoptimize"

namespace mlsopt {
#define GEN_PASS_DEF_SUPEROPTIMIZE
#include "mlsopt/Transforms/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

namespace {
/// The most field elements a full-shape verification may hold at once
/// (16 bytes each: 4 GiB); past it the pass says so instead of running out
/// of memory.
constexpr int64_t kMaxVerifiedElements = int64_t(1) << 28;
/// The largest max-block-ops accepted. Enumeration grows combinatorially
/// with the block graph, so no timeout reaches graphs this long; the cap
/// keeps the loops over block-graph sizes short.
constexpr unsigned kMaxBlockOpsOption = 64;

/// What the search made of each subprogram of one run, by its cache key
/// (getResultCacheKey: the subprogram's ops, shapes and types, and the
/// options). A model repeats its layers, and each layer's subprograms are
/// the same search problems as the first layer's, which get the same
/// answer: searched again, 40 LLaMA-style MLP layers ran out of time after
/// about 11 of them.
struct SearchedSubprograms {
  struct Outcome {
    /// The μGraph that replaced the subprogram, in `answers`; null where a
    /// search that ran to its end found nothing faster.
    func::FuncOp answer;
    /// Where the subprogram searched was, as file:line:col.
    std::string where;
    /// Whether its search gave up and it was searched in pieces.
    bool inPieces = false;
  };
  explicit SearchedSubprograms(MLIRContext *context)
      : answers(ModuleOp::create(UnknownLoc::get(context))) {}
  OwningOpRef<ModuleOp> answers;
  llvm::StringMap<Outcome> outcomes;
};

struct SuperoptimizePass
    : public mlsopt::impl::SuperoptimizeBase<SuperoptimizePass> {
  using Base::Base;
  void runOnOperation() override;

private:
  /// Searches, verifies and splices in one subprogram, or gives it the
  /// answer of an identical one in `searched`, and records its own there
  /// under `key` (getSubprogramKey). Where `mayGiveUp`, a search that has
  /// found nothing faster than the subprogram after `give-up-after` seconds
  /// (or half its time, if later) ends there and sets `inPieces`. Returns
  /// false on an error already emitted.
  bool optimize(Subprogram &sub, const SearchOptions &options,
                double secondsLeft, SearchedSubprograms &searched,
                StringRef key, bool mayGiveUp, bool &inPieces);
  /// optimize, and where its search gives up, the same for the pieces of
  /// the subprogram (splitSubprogram, half its weight at most), each with
  /// its share of the time left, down to pieces of one op.
  bool optimizeOrSplit(Subprogram &sub, const SearchOptions &options,
                       double secondsLeft, SearchedSubprograms &searched,
                       StringRef key);
  /// Computes the elementwise ops, transposes and conversions beside the
  /// custom kernels under `root` inside them (elementwiseFusion), then the
  /// kernels' thread graphs, where those fit the target's shared memory.
  void fuseBesideKernels(Operation *root, const SearchOptions &options);

  /// Whether `answer` in `sub`'s place leaves the function dearer, once
  /// fused, than `sub` as it is, fused; the remark says so if it does.
  bool fusionBeatsAnswer(const Subprogram &sub, func::FuncOp answer,
                         ArrayRef<Value> inputs, const SearchOptions &options,
                         Location loc, StringRef figures);

  /// The threads the full-shape evaluations share (verify::FieldEvaluator::
  /// setThreadPool), `threads` of them; null for one thread. Shared, as
  /// the pass is copied.
  std::shared_ptr<llvm::StdThreadPool> evaluationPool;

  /// Outputs of subprograms already replaced, and what replaced them: the
  /// later subprograms of a function were cut before and may read them.
  DenseMap<Value, Value> replaced;
  /// The patterns that compute elementwise ops, transposes and conversions
  /// inside the custom kernels beside them (--fuse-kernel-elementwise).
  std::optional<FrozenRewritePatternSet> elementwiseFusion;
};
} // namespace

namespace {
/// The reference evaluated once over the field at full shapes, before the
/// search: how long it took tells how much of the budget the final check
/// needs, and the winner is checked against its outputs without evaluating
/// the reference again.
class ReferenceRun {
public:
  static std::optional<ReferenceRun> create(func::FuncOp reference,
                                            uint64_t seed,
                                            llvm::ThreadPoolInterface *pool) {
    auto start = std::chrono::steady_clock::now();
    ScopedDiagnosticHandler quiet(reference.getContext(),
                                  [](Diagnostic &) { return success(); });
    FailureOr<verify::FieldEvaluator> evaluator =
        verify::FieldEvaluator::create(reference);
    if (failed(evaluator))
      return std::nullopt;
    evaluator->setThreadPool(pool);
    ReferenceRun run;
    run.pool = pool;
    // A division by a zero residue proves nothing; a second draw is all but
    // certain not to hit one again.
    for (uint64_t attempt = 0; attempt < 2; ++attempt) {
      uint64_t testSeed = verify::mix64(seed + 0x100 + attempt);
      verify::FieldRandom random(testSeed);
      verify::fillRandomInputs(run.inputs, reference, random);
      run.options.functionSeed = verify::mix64(testSeed ^ 0x5851f42d4c957f2dULL);
      FailureOr<verify::FieldEvaluation> result =
          evaluator->evaluate(run.inputs, run.options);
      if (failed(result))
        return std::nullopt;
      if (result->divisionByZero)
        continue;
      run.outputs = std::move(result->results);
      run.seconds = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      return run;
    }
    return std::nullopt;
  }

  /// Runs `candidate` on the same inputs and compares every output element.
  /// One test bounds a false positive by degree / p (about 1e-17 for these
  /// programs, docs/verification.md).
  verify::FieldVerdict check(func::FuncOp candidate) const {
    ScopedDiagnosticHandler quiet(candidate.getContext(),
                                  [](Diagnostic &) { return success(); });
    FailureOr<verify::FieldEvaluator> evaluator =
        verify::FieldEvaluator::create(candidate);
    if (failed(evaluator))
      return verify::FieldVerdict::Inconclusive;
    evaluator->setThreadPool(pool);
    FailureOr<verify::FieldEvaluation> result =
        evaluator->evaluate(inputs, options);
    if (succeeded(result) && result->divisionByZero) {
      // The zero may be padding past a ragged tile's end, which no result
      // reads: with random padding there the check proves as much
      // (docs/verification.md, "Division by zero").
      verify::FieldOptions padded = options;
      padded.paddingSeed = verify::getPaddingSeed(options.functionSeed);
      result = evaluator->evaluate(inputs, padded);
    }
    if (failed(result) || result->divisionByZero)
      return verify::FieldVerdict::Inconclusive;
    if (result->results.size() != outputs.size())
      return verify::FieldVerdict::Different;
    for (auto [got, want] : llvm::zip_equal(result->results, outputs))
      if (got.p != want.p)
        return verify::FieldVerdict::Different;
    return verify::FieldVerdict::Equal;
  }

  double seconds = 0;

private:
  llvm::ThreadPoolInterface *pool = nullptr;
  SmallVector<verify::FieldTensor> inputs;
  verify::FieldOptions options;
  SmallVector<verify::FieldTensor> outputs;
};
} // namespace

static bool isKernelOp(Operation *op) {
  return isa_and_nonnull<kernel::KernelDialect>(op->getDialect());
}

static bool isView(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

/// Whether a kernel op computes `value`, or the value it is a view of. A
/// mask's where and an input's int_to_float do not count: each reads an
/// input, and joins its reader's kernel as a prologue rather than taking in
/// an op beside it.
static bool isComputedByKernelOp(Value value) {
  Operation *def = value.getDefiningOp();
  while (def && isView(def))
    def = def->getOperand(0).getDefiningOp();
  return def && isKernelOp(def) && !kernel::isInputConversion(def);
}

/// Whether `sub` is one op that --fuse-kernel-elementwise computes in a
/// kernel beside it (isFusableElementwise) beside another kernel op: one
/// that produces an operand of it or reads its result, through views. The
/// pass does so where the cost model finds it faster, which it cannot once
/// the op is a custom kernel of its own; and a search of one op only
/// matches its default block graph's grid or refines it by a few percent.
static bool isLeftToFusion(const Subprogram &sub) {
  if (sub.ops.size() != 1)
    return false;
  Operation *op = sub.ops.front();
  if (!isFusableElementwise(op))
    return false;
  if (llvm::any_of(op->getOperands(), isComputedByKernelOp))
    return true;
  SmallVector<Operation *> users(op->getUsers());
  while (!users.empty()) {
    Operation *user = users.pop_back_val();
    if (isKernelOp(user))
      return true;
    if (isView(user))
      llvm::append_range(users, user->getUsers());
  }
  return false;
}

/// Whether `sub` has more than one op, each elementwise, and reads only
/// values no kernel op computes (arguments, constants, views of them): a
/// chain on an input, a column's scale sqrt(c * c + 1), say, whose result
/// a larger subprogram reads broadcast.
static bool isInputChain(const Subprogram &sub) {
  // One op is left to fusion unsearched (isLeftToFusion) where it is
  // in its place.
  return sub.ops.size() > 1 && llvm::all_of(sub.ops, isFusableElementwise) &&
         llvm::none_of(sub.inputs, isComputedByKernelOp);
}

/// `value` with `decimals` digits after the point, for diagnostics.
static std::string formatFixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

/// How long one evaluation of `func` over the field at full shapes takes,
/// roughly: each of its `elements` tensor elements is drawn or computed (an
/// exp is a modular power), and each FLOP of a matmul or a reduction is a
/// modular multiply-add. The rates are twice those measured on the idle
/// 2-core development machine (docs/reliability.md: an 8192x8192 exp*mul,
/// 2e-8 s per element; a 64x4096x4096 matmul, 7e-10 s per FLOP), for a
/// machine as busy as a parallel lit run keeps it; a machine busier still
/// can overrun the timeout by the difference.
static double predictEvaluationSeconds(func::FuncOp func, uint64_t elements,
                                       const TargetInfo &target,
                                       unsigned threads) {
  constexpr double kSecondsPerElement = 4e-8;
  constexpr double kSecondsPerFlop = 1.5e-9;
  double flops = 0;
  FailureOr<KernelCost> cost = estimateFunctionCost(func, target);
  if (succeeded(cost))
    flops = cost->tensorCoreFlops + cost->cudaCoreFlops;
  // The products' rows and the kernels' blocks are shared among the
  // threads; the rest runs on one.
  return kSecondsPerElement * static_cast<double>(elements) +
         kSecondsPerFlop * flops / std::max(1u, threads);
}

/// How many times as long as the reference's evaluation checking
/// `candidate` takes, at least once: the ratio of their field work (the
/// count --verify-equivalence bounds with max-work). The evaluator runs
/// every block of every custom kernel, so a μGraph that recomputes (a
/// reduction redone by each block) takes longer. (FLOPs were a poor proxy:
/// a decode attention over 50257 keys was foreseen at 219 s and checked in
/// 9.)
static double getCheckWorkRatio(func::FuncOp candidate,
                                func::FuncOp reference) {
  return std::max(
      1.0, static_cast<double>(verify::countEvaluationWork(candidate)) /
               std::max<double>(1.0, verify::countEvaluationWork(reference)));
}

/// The cost of `sub`'s ops as they are (all kernel ops, each a launch);
/// failure if the model cannot cost one.
static FailureOr<KernelCost> estimateAsGiven(const Subprogram &sub,
                                             const SearchOptions &options) {
  ScopedDiagnosticHandler quiet(sub.ops.front()->getContext(),
                                [](Diagnostic &) { return success(); });
  KernelCost total;
  for (Operation *op : sub.ops) {
    FailureOr<KernelCost> cost =
        estimateKernelOpCost(op, options.target, options.cost);
    if (failed(cost))
      return failure();
    total += *cost;
  }
  return total;
}

/// `func`'s cost under the model, or failure for ops it cannot cost (no
/// figure then), without a diagnostic.
static FailureOr<KernelCost> estimateQuietly(func::FuncOp func,
                                             const SearchOptions &options) {
  ScopedDiagnosticHandler quiet(func.getContext(),
                                [](Diagnostic &) { return success(); });
  return estimateFunctionCost(func, options.target, options.cost);
}

/// The key of `sub`'s search problem (getResultCacheKey); empty where it
/// cannot be searched.
static std::string getSubprogramKey(const Subprogram &sub,
                                    const SearchOptions &options) {
  FailureOr<SearchProblem> problem =
      buildSearchProblem(sub.ops, sub.inputs, sub.outputs);
  return succeeded(problem) ? getResultCacheKey(*problem, options)
                            : std::string();
}

/// `loc` as a diagnostic's prefix spells it: file:line:col.
static std::string describeLocation(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().strref() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  std::string text;
  llvm::raw_string_ostream(text) << loc;
  return text;
}

/// Warns that `func` has `linalgOps` linalg ops and no kernel ops to search:
/// advises the import where it would take one of them, else says why it
/// does not take the first (advising it then sent users who had run it
/// round in a circle). At most `kMaxExplained` ops are tried: each try
/// imports a copy of the function.
static void warnLinalgLeft(func::FuncOp func, unsigned linalgOps) {
  constexpr unsigned kMaxExplained = 16;
  Operation *firstLeft = nullptr;
  std::string reason;
  bool importable = false;
  unsigned tried = 0;
  walkLeftLinalgOps(func, [&](Operation *op) {
    std::optional<std::string> why = explainNotImported(op);
    if (!why) {
      importable = true;
      return WalkResult::interrupt();
    }
    if (!firstLeft) {
      firstLeft = op;
      reason = *why;
    }
    return ++tried == kMaxExplained ? WalkResult::interrupt()
                                    : WalkResult::advance();
  });
  InFlightDiagnostic warning = emitWarning(func.getLoc())
                               << "superoptimize: @" << func.getName()
                               << " has no kernel ops to search, and "
                               << linalgOps << " linalg ops";
  if (importable || !firstLeft) {
    warning << ": run --convert-linalg-to-kernel first (it imports what the "
               "kernel dialect can express)";
    return;
  }
  warning << " that --convert-linalg-to-kernel does not import";
  if (!reason.empty())
    warning << " ('" << firstLeft->getName() << "' at "
            << describeLocation(firstLeft->getLoc()) << ": " << reason << ")";
}

/// "replaced N kernel ops (X us) by K kernels (Y us)", for an answer that
/// was not searched for now, comparing it with what a search compares
/// with: the subprogram as given where the reference computes it in f32.
static std::string describeReplacement(size_t ops, const SearchProblem &problem,
                                       func::FuncOp reference,
                                       func::FuncOp answer,
                                       const SearchOptions &options) {
  FailureOr<KernelCost> before =
      problem.inputCost
          ? FailureOr<KernelCost>(*problem.inputCost)
          : estimateFunctionCost(reference, options.target, options.cost);
  FailureOr<KernelCost> after =
      estimateFunctionCost(answer, options.target, options.cost);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "superoptimize: replaced " << ops << " kernel ops";
  if (succeeded(before) && succeeded(after))
    os << " (" << formatFixed(before->totalUs, 2) << " us) by "
       << after->launches << " kernels (" << formatFixed(after->totalUs, 2)
       << " us)";
  return text;
}

/// How many use-def steps around a subprogram fusionBeatsAnswer weighs.
/// The fusion it weighs moves elementwise ops, transposes and conversions
/// into the kernels beside them one step at a time, so what the answer
/// changes stays near it; weighing the whole function for every
/// subprogram made the pass quadratic (150 MLP layers, 1050 ops: 51 s, of
/// which 61% costing whole clones), and a 1% gain of a large function
/// was out of reach of any subprogram's fusion.
constexpr unsigned kFusionRadius = 16;

/// The top-level ops of `ops`' block within `radius` use-def steps of
/// `ops`, these included, in block order; not the terminator.
static SmallVector<Operation *> getNeighbourhood(ArrayRef<Operation *> ops,
                                                 unsigned radius) {
  Block *block = ops.front()->getBlock();
  llvm::SmallPtrSet<Operation *, 32> seen(ops.begin(), ops.end());
  SmallVector<Operation *> frontier(ops.begin(), ops.end());
  for (unsigned step = 0; step < radius && !frontier.empty(); ++step) {
    SmallVector<Operation *> next;
    auto visit = [&](Operation *op) {
      if (op && !op->hasTrait<OpTrait::IsTerminator>() &&
          seen.insert(op).second)
        next.push_back(op);
    };
    for (Operation *op : frontier) {
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          visit(block->findAncestorOpInBlock(*def));
      for (Operation *user : op->getUsers())
        visit(block->findAncestorOpInBlock(*user));
    }
    frontier = std::move(next);
  }
  SmallVector<Operation *> window;
  for (Operation &op : *block)
    if (seen.contains(&op))
      window.push_back(&op);
  return window;
}

/// A function `name` of `window`'s ops (top-level ops of one function, in
/// order) in `module`: what they read from other ops and from the block's
/// arguments are its arguments, what they compute that other ops or the
/// terminator read its results. `mapping` maps the originals to its values.
static func::FuncOp buildWindowFunction(ArrayRef<Operation *> window,
                                        StringRef name, ModuleOp module,
                                        IRMapping &mapping) {
  Block *block = window.front()->getBlock();
  Region *top = block->getParent();
  llvm::SmallPtrSet<Operation *, 32> inWindow(window.begin(), window.end());
  llvm::SetVector<Value> reads, escapes;
  for (Operation *op : window) {
    op->walk([&](Operation *nested) {
      for (Value value : nested->getOperands()) {
        // Values of the op's own regions come with it.
        if (value.getParentRegion() != top)
          continue;
        Operation *def = value.getDefiningOp();
        if (!def || !inWindow.contains(def))
          reads.insert(value);
      }
    });
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *ancestor = block->findAncestorOpInBlock(*user);
            return !ancestor || !inWindow.contains(ancestor);
          }))
        escapes.insert(result);
  }
  MLIRContext *ctx = module.getContext();
  Location loc = window.front()->getLoc();
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto func = func::FuncOp::create(
      builder, loc, name,
      FunctionType::get(ctx, TypeRange(reads.getArrayRef()),
                        TypeRange(escapes.getArrayRef())));
  Block *entry = func.addEntryBlock();
  mapping.map(reads.getArrayRef(), entry->getArguments());
  builder.setInsertionPointToStart(entry);
  for (Operation *op : window)
    builder.clone(*op, mapping);
  SmallVector<Value> results;
  for (Value value : escapes)
    results.push_back(mapping.lookup(value));
  func::ReturnOp::create(builder, loc, results);
  return func;
}

/// How much cheaper the function must be with a searched subprogram kept
/// as it is, its ops fused into the kernels beside it, than with the
/// μGraph in its place, for the subprogram to stay.
constexpr double kMinGainOfFusion = 0.01;

/// Clones `answer`'s body after the last of `ops`, its arguments read as
/// `inputs`, and replaces each of `outputs` by what the answer returns in
/// its place (recorded in `replaced` when given); erases `ops`.
static void spliceAnswer(func::FuncOp answer, ArrayRef<Operation *> ops,
                         ArrayRef<Value> inputs, ArrayRef<Value> outputs,
                         DenseMap<Value, Value> *replaced) {
  OpBuilder builder(ops.back()->getContext());
  builder.setInsertionPointAfter(ops.back());
  IRMapping mapping;
  for (auto [arg, input] : llvm::zip_equal(answer.getArguments(), inputs))
    mapping.map(arg, input);
  for (Operation &op : answer.getBody().front().without_terminator())
    builder.clone(op, mapping);
  Operation *ret = answer.getBody().front().getTerminator();
  for (auto [output, result] : llvm::zip_equal(outputs, ret->getOperands())) {
    Value replacement = mapping.lookup(result);
    Value(output).replaceAllUsesWith(replacement);
    if (replaced)
      (*replaced)[output] = replacement;
  }
  for (Operation *op : llvm::reverse(ops))
    op->erase();
}

bool SuperoptimizePass::fusionBeatsAnswer(const Subprogram &sub,
                                          func::FuncOp answer,
                                          ArrayRef<Value> inputs,
                                          const SearchOptions &options,
                                          Location loc, StringRef figures) {
  // The search weighs a subprogram alone, each op a launch. Kept, its ops
  // may still join the kernels beside them, and the data movement in
  // front of them with them (a rotary embedding's transposes and
  // rotate_half, loaded as the scores' matmul reads q); a μGraph's
  // kernels, tiled for the subprogram alone, may leave those a launch
  // each. Both neighbourhoods of the subprogram, fused, are costed whole:
  // the later subprograms are as the program wrote them in both.
  auto func = sub.ops.front()->getParentOfType<func::FuncOp>();
  OwningOpRef<ModuleOp> trials = ModuleOp::create(loc);
  SmallVector<Operation *> window = getNeighbourhood(sub.ops, kFusionRadius);
  auto fusedCost = [&](bool withAnswer) -> FailureOr<KernelCost> {
    IRMapping mapping;
    func::FuncOp trial = buildWindowFunction(
        window, withAnswer ? "with_answer" : "kept", *trials, mapping);
    if (withAnswer) {
      SmallVector<Operation *> ops;
      for (Operation *op : sub.ops)
        ops.push_back(mapping.lookup(op));
      SmallVector<Value> trialInputs, trialOutputs;
      for (Value v : inputs)
        trialInputs.push_back(mapping.lookupOrDefault(v));
      for (Value v : sub.outputs)
        trialOutputs.push_back(mapping.lookup(v));
      spliceAnswer(answer, ops, trialInputs, trialOutputs, nullptr);
    }
    fuseBesideKernels(trial, options);
    return estimateQuietly(trial, options);
  };
  FailureOr<KernelCost> kept = fusedCost(false);
  FailureOr<KernelCost> answered = fusedCost(true);
  LLVM_DEBUG({
    if (succeeded(kept) && succeeded(answered))
      llvm::dbgs() << "[superoptimize] fused, kept " << kept->totalUs
                   << " us, with the answer " << answered->totalUs << " us\n";
  });
  // Near-ties go to the μGraph, which the search found to beat the
  // subprogram by its own measure.
  if (failed(kept) || failed(answered) ||
      kept->totalUs >= answered->totalUs * (1 - kMinGainOfFusion))
    return false;
  emitRemark(loc) << "superoptimize: kept the subprogram of " << sub.ops.size()
                  << " kernel ops: with the kernels beside it computing its "
                     "ops, the "
                  << window.size() << " ops of @" << func.getName()
                  << " within " << kFusionRadius << " steps of it cost "
                  << formatFixed(kept->totalUs, 2) << " us (" << kept->launches
                  << " launches), with the best μGraph "
                  << formatFixed(answered->totalUs, 2) << " us ("
                  << answered->launches << " launches); " << figures;
  return true;
}

void SuperoptimizePass::fuseBesideKernels(Operation *root,
                                          const SearchOptions &options) {
  (void)applyPatternsGreedily(root, *elementwiseFusion);
  thread::fuseElementwiseWithinSharedMemory(
      root, static_cast<int64_t>(options.target.maxSharedMemPerBlock));
}

/// Whether `op` passes the verifiers, without a diagnostic.
static LogicalResult verifyQuietly(Operation *op) {
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  return mlir::verify(op);
}

bool SuperoptimizePass::optimizeOrSplit(Subprogram &sub,
                                        const SearchOptions &options,
                                        double secondsLeft,
                                        SearchedSubprograms &searched,
                                        StringRef key) {
  auto start = std::chrono::steady_clock::now();
  unsigned weight = getSubprogramWeight(sub);
  bool inPieces = false;
  if (!optimize(sub, options, secondsLeft, searched, key,
                /*mayGiveUp=*/weight >= 2, inPieces))
    return false;
  if (!inPieces)
    return true;
  ++numSplit;
  SmallVector<Subprogram> pieces =
      splitSubprogram(sub, std::max(1u, (weight + 1) / 2));
  size_t opsLeft = 0;
  for (const Subprogram &piece : pieces)
    opsLeft += piece.ops.size();
  for (Subprogram &piece : pieces) {
    // An earlier piece's outputs may have been replaced.
    for (Value &input : piece.inputs)
      if (Value now = replaced.lookup(input))
        input = now;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double share =
        std::max(0.0, secondsLeft - elapsed) * piece.ops.size() / opsLeft;
    opsLeft -= piece.ops.size();
    if (share <= 0)
      break;
    std::string pieceKey = getSubprogramKey(piece, options);
    if (!optimizeOrSplit(piece, options, share, searched, pieceKey))
      return false;
  }
  return true;
}

bool SuperoptimizePass::optimize(Subprogram &sub, const SearchOptions &options,
                                 double secondsLeft,
                                 SearchedSubprograms &searched, StringRef key,
                                 bool mayGiveUp, bool &inPieces) {
  MLIRContext *ctx = &getContext();
  Location loc = sub.ops.back()->getLoc();
  FailureOr<SearchProblem> problem =
      buildSearchProblem(sub.ops, sub.inputs, sub.outputs);
  if (failed(problem)) {
    LLVM_DEBUG(llvm::dbgs() << "[superoptimize] cannot search subprogram at "
                            << loc << "\n");
    return true;
  }

  OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
  // The reference computes a subprogram of f16 or bf16, or one that mixes
  // element types, in f32; what the μGraphs must beat is the subprogram as
  // it is.
  Type computed = problem->shapes.elementType;
  if (llvm::any_of(sub.ops, [&](Operation *op) {
        return llvm::any_of(op->getResultTypes(), [&](Type type) {
          return cast<RankedTensorType>(type).getElementType() != computed;
        });
      })) {
    FailureOr<KernelCost> given = estimateAsGiven(sub, options);
    if (succeeded(given))
      problem->inputCost = *given;
  }
  OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(scratch->getBody());
  FailureOr<func::FuncOp> reference = materializeFunction(
      builder, loc, "reference", problem->reference, problem->shapes);
  if (failed(reference))
    return true;
  auto start = std::chrono::steady_clock::now();
  std::optional<ReferenceRun> referenceRun;
  uint64_t elements = verify::countEvaluatedElements(*reference);
  bool tooLarge = elements > uint64_t(kMaxVerifiedElements);
  // The reference's evaluation cannot be interrupted, and 2.5 times as long
  // again is set aside for the winner's check. Where the two would not fit
  // in the time left, the search would get no time anyway, and the
  // evaluation alone could overrun the timeout by far (an 8192x8192 exp*mul
  // took 31 s at timeout=5): the reference is not evaluated, the search
  // gets the whole budget, and a winner is reported, not committed.
  std::optional<double> predictedSeconds;
  if (!tooLarge && (!keepReference || !cacheDir.empty())) {
    double seconds = predictEvaluationSeconds(
        *reference, elements, options.target,
        evaluationPool ? evaluationPool->getMaxConcurrency() : 1);
    if (3.5 * seconds > secondsLeft)
      predictedSeconds = seconds;
    else
      referenceRun =
          ReferenceRun::create(*reference, seed, evaluationPool.get());
  }

  // The answer: a function over the subprogram's inputs. What the remark
  // says of it waits for the comparison with fusion (fusionBeatsAnswer).
  func::FuncOp answer;
  std::string replacedText, figures;
  if (auto it = searched.outcomes.find(key); it != searched.outcomes.end()) {
    SearchedSubprograms::Outcome &first = it->second;
    if (first.inPieces) {
      ++numRepeats;
      inPieces = true;
      emitRemark(loc) << "superoptimize: searching the subprogram of "
                      << sub.ops.size()
                      << " kernel ops in pieces, as the subprogram searched "
                         "at "
                      << first.where;
      return true;
    }
    if (!first.answer) {
      ++numRepeats;
      emitRemark(loc) << "superoptimize: kept the subprogram of "
                      << sub.ops.size()
                      << " kernel ops, not searched: it is the subprogram "
                         "searched at "
                      << first.where << ", for which nothing faster was found";
      return true;
    }
    // Checked like a cache entry, where the pass checks at all: the key
    // is a digest, and the check costs one evaluation, not a search.
    if (first.answer.getFunctionType() == reference->getFunctionType() &&
        (referenceRun
             ? referenceRun->check(first.answer) == verify::FieldVerdict::Equal
             : keepReference)) {
      ++numRepeats;
      if (referenceRun)
        ++numVerified;
      answer = first.answer;
      llvm::raw_string_ostream remark(replacedText);
      remark << describeReplacement(sub.ops.size(), *problem, *reference,
                                    answer, options)
             << " as the subprogram searched at " << first.where
             << ", not searched again";
      figures = "the μGraph of the subprogram searched at " + first.where;
      if (referenceRun)
        remark << "; verified at full shapes";
    }
  }
  if (!answer && !cacheDir.empty()) {
    CacheEntry entry;
    switch (lookupResult(cacheDir, key, ctx, entry)) {
    case CacheLookup::Miss:
      break;
    case CacheLookup::Corrupt:
      emitWarning(loc) << "superoptimize: ignoring corrupt cache entry '"
                       << key << "' in '" << cacheDir << "'";
      break;
    case CacheLookup::Hit:
      if (entry.function.getFunctionType() ==
              reference->getFunctionType() &&
          referenceRun &&
          referenceRun->check(entry.function) ==
              verify::FieldVerdict::Equal) {
        ++numCacheHits;
        ++numVerified;
        replacedText = describeReplacement(sub.ops.size(), *problem, *reference,
                                           entry.function, options) +
                       " with the result from the cache, verified again at "
                       "full shapes";
        figures = "the μGraph from the cache";
        entry.function->remove();
        scratch->push_back(entry.function);
        answer = entry.function;
      } else {
        emitWarning(loc) << "superoptimize: ignoring cache entry '" << key
                         << "' in '" << cacheDir
                         << "', which does not verify against the subprogram";
      }
      break;
    }
  }

  if (!answer) {
    // The search gets what is left once the reference's evaluation is paid
    // for, and keeps back the winner's check as it goes: the check of its
    // best program, predicted from the ratio of the two programs' field
    // work (SearchOptions::checkSeconds). Holding back 2.5 times the
    // reference's evaluation from the start left a LLaMA gate and up
    // projection over 512 tokens (18 s to evaluate) no search at all,
    // where its winner, found in 0.1 s, took 1.26 times that to check.
    double spent =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    // The search stops at its first clock check past its deadline and then
    // lets every thread finish its op; the winner is then built, given its
    // thread graphs, checked and spliced in. 5% of the time (at most 3 s)
    // is held back for these, so that the pass ends within `timeout`
    // (ntrans at b = 1 took 60.3 s at timeout=60 without it, and a softmax
    // over rows of 65536, whose winner is a for-loop kernel and an
    // elementwise one, 61.2 s with 2%, both under load).
    double finishing = std::min(3.0, 0.05 * secondsLeft);
    SearchOptions timed = options;
    timed.timeoutSeconds = std::max(0.0, secondsLeft - spent - finishing);
    // A subprogram past the search's reach in its time (the partition's
    // count is a guess at that reach) kept its ops as they were, a launch
    // or so each, where pieces of it could be fused: a padded causal
    // attention whose one kernel was a block op past max-block-ops stayed 8
    // launches. `give-up-after` seconds, or half the time, find what the
    // search finds in a subprogram within its reach (the bench cases' best
    // were found in under 1 s of 60), and the pieces get the rest. Not
    // less: on a loaded machine, a long softmax's six-kernel program came
    // after 5 s of a 10 s search.
    double giveUp =
        std::max(giveUpAfter.getValue(), 0.5 * timed.timeoutSeconds);
    if (mayGiveUp && giveUpAfter > 0 && giveUp < timed.timeoutSeconds)
      timed.giveUpSeconds = giveUp;
    // Chains of masks on attention scores are searched as one add
    // (ScoreChains.h); the answer gets the chains back before its check.
    FailureOr<FoldedScoreChains> folded = failure();
    if (problem->inputValues.size() == sub.inputs.size())
      folded = foldScoreChains(sub.ops, sub.inputs, sub.outputs);
    if (succeeded(folded))
      folded->problem.inputCost = problem->inputCost;
    const SearchProblem &searchedProblem =
        succeeded(folded) ? folded->problem : *problem;
    OwningOpRef<ModuleOp> sizing;
    if (referenceRun) {
      sizing = ModuleOp::create(loc);
      timed.minCheckSeconds = referenceRun->seconds;
      // Called under the search's lock, while this thread waits for it.
      timed.checkSeconds = [&](const KernelGraph &graph) {
        OpBuilder b(ctx);
        b.setInsertionPointToEnd(sizing->getBody());
        ScopedDiagnosticHandler quiet(ctx,
                                      [](Diagnostic &) { return success(); });
        FailureOr<func::FuncOp> candidate =
            materializeFunction(b, loc, "sized", graph, searchedProblem.shapes);
        if (failed(candidate))
          return 2.5 * referenceRun->seconds;
        double ratio = getCheckWorkRatio(*candidate, *reference);
        candidate->erase();
        return ratio * referenceRun->seconds;
      };
    }
    SearchResult result = search::superoptimize(searchedProblem, timed, ctx);
    const SearchStatistics &s = result.stats;
    numEnumerated += s.enumerated;
    numPrunedAbstract += s.prunedByAbstractExpr;
    numPrunedCost += s.prunedByCost;
    numScreened += s.screened;
    numVetoedLatency += s.vetoedByLatency;
    LLVM_DEBUG(llvm::dbgs()
               << "[superoptimize] " << s.seconds << " s, enumerated "
               << s.enumerated << ", pruned " << s.prunedByAbstractExpr
               << " by abstract expression and " << s.prunedByCost
               << " by cost, screened " << s.screened << " (passed "
               << s.screenPassed << "), best " << result.bestCost.totalUs
               << " us against " << result.referenceCost.totalUs << " us\n"
               << toString(result.best));
    // Debian's LLVM compiles pass statistics out, so the remarks carry
    // the search's figures too.
    {
      llvm::raw_string_ostream os(figures);
      os << "searched for " << formatFixed(s.seconds, 1) << " s"
         << (s.timedOut ? " (timed out)" : "")
         << (s.reachedLowerBound ? " (stopped at the cost lower bound)" : "")
         << (s.inputAtLowerBound
                 ? " (ended at once: the cost lower bound of any program is "
                   "within 1% of the input's)"
                 : "")
         << ": " << s.enumerated << " ops enumerated, "
         << s.prunedByAbstractExpr << " pruned by abstract expression, "
         << s.prunedByCost << " by cost, " << s.blockGraphs << " block graphs, "
         << s.screened << " candidates screened, " << s.screenPassed
         << " passed; " << s.oracleQueries << " oracle queries, "
         << s.oracleCacheHits << " from its cache";
      if (s.vetoedByLatency)
        os << "; " << s.vetoedByLatency
           << " refused as slower than the input with the latency term";
      if (result.improved)
        os << "; the best found after " << formatFixed(s.bestSeconds, 1)
           << " s";
      // The subprogram's share of the function's `timeout`, before its
      // checks are paid for: what the search time above is measured
      // against, and, unlike it, the same on a loaded machine.
      os << "; its share of the time " << formatFixed(secondsLeft, 1) << " s";
      if (s.tooLateToCheck)
        os << "; " << s.tooLateToCheck
           << " better found too late to check in the time left";
      // Where checking a winner at full shapes takes most of the share,
      // say so: the search had little or no time of its own.
      double checking = referenceRun ? 1.5 * referenceRun->seconds : 0;
      if (checking > 0 && secondsLeft - spent - checking < 0.25 * secondsLeft)
        os << ", of which " << formatFixed(spent, 1)
           << " s went to evaluating the subprogram at full shapes and at "
              "least "
           << formatFixed(checking, 1)
           << " s are held for checking a winner (a larger timeout, or "
              "keep-reference=true, which leaves the check to "
              "--verify-equivalence, gives the search more)";
    }
    // Its repeats are not searched again: the search had the time of all
    // of them (the shares count a repeated subprogram once).
    if (s.unverifiable || !result.improved)
      searched.outcomes.try_emplace(
          key, SearchedSubprograms::Outcome{func::FuncOp(),
                                            describeLocation(loc), s.gaveUp});
    if (s.unverifiable) {
      emitRemark(loc) << "superoptimize: kept the subprogram of "
                      << sub.ops.size() << " kernel ops ("
                      << formatFixed(result.referenceCost.totalUs, 2)
                      << " us), which the finite-field verifier cannot "
                         "evaluate (not LAX: an exp of a value with no "
                         "exponent image, see docs/verification.md); "
                      << figures;
      return true;
    }
    if (s.gaveUp) {
      inPieces = true;
      emitRemark(loc) << "superoptimize: searching the subprogram of "
                      << sub.ops.size() << " kernel ops ("
                      << formatFixed(result.referenceCost.totalUs, 2)
                      << " us) in pieces: nothing faster was found in "
                      << formatFixed(timed.giveUpSeconds, 1) << " s; "
                      << figures;
      return true;
    }
    if (!result.improved) {
      emitRemark(loc) << "superoptimize: kept the subprogram of "
                      << sub.ops.size() << " kernel ops ("
                      << formatFixed(result.referenceCost.totalUs, 2)
                      << " us); " << figures;
      return true;
    }
    builder.setInsertionPointToEnd(scratch->getBody());
    FailureOr<func::FuncOp> found = materializeFunction(
        builder, loc, "candidate", result.best, searchedProblem.shapes);
    if (failed(found))
      return true;
    answer = *found;
    if (succeeded(folded) &&
        (failed(unfoldScoreChains(answer, *folded, sub.inputs)) ||
         failed(verifyQuietly(answer)))) {
      emitRemark(loc) << "superoptimize: kept the subprogram of "
                      << sub.ops.size()
                      << " kernel ops: the best μGraph found reads the input "
                         "standing for a chain of masks on the scores other "
                         "than by adding it to them, or is no valid kernel "
                         "once it takes the chain back; "
                      << figures;
      return true;
    }
    // Thread graphs by rule, before the answer is cached or costed again,
    // where they fit the shared memory the search sized the kernels for.
    thread::fuseElementwiseWithinSharedMemory(
        answer, static_cast<int64_t>(options.target.maxSharedMemPerBlock));
    if (!keepReference) {
      if (tooLarge) {
        emitWarning(loc)
            << "superoptimize: the subprogram is too large to verify at "
               "full shapes in memory; it is left unchanged (run with "
               "keep-reference=true and check the result with "
               "--verify-equivalence)";
        return true;
      }
      // A check that would overrun the time left by far is not started.
      double ratio = getCheckWorkRatio(answer, *reference);
      // A check overruns when the reference was not evaluated for lack of
      // time (it would take that evaluation and the winner's), or when the
      // winner's evaluation would end past the time left plus the slack a
      // timeout allows (10% and a second). The search took its best only
      // where 1.5 times this fit, so this catches what the thread graphs
      // add.
      std::optional<double> checkSeconds;
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (predictedSeconds)
        checkSeconds = (1 + ratio) * *predictedSeconds;
      else if (referenceRun && elapsed + ratio * referenceRun->seconds >
                                   1.1 * secondsLeft + 1.0)
        checkSeconds = ratio * referenceRun->seconds;
      if (checkSeconds) {
        emitRemark(loc) << "superoptimize: kept the subprogram of "
                        << sub.ops.size()
                        << " kernel ops: checking the best μGraph found ("
                        << formatFixed(result.bestCost.totalUs, 2)
                        << " us) at full shapes would take about "
                        << formatFixed(*checkSeconds, 0)
                        << " s, past the timeout (a larger timeout, or "
                           "keep-reference=true and --verify-equivalence, "
                           "would take it); "
                        << figures;
        return true;
      }
      if (!referenceRun ||
          referenceRun->check(answer) != verify::FieldVerdict::Equal) {
        emitWarning(loc) << "superoptimize: the best μGraph found did not "
                            "pass verification at full shapes; the "
                            "subprogram is left unchanged";
        return true;
      }
      ++numVerified;
    }
    llvm::raw_string_ostream(replacedText)
        << "superoptimize: replaced " << sub.ops.size() << " kernel ops ("
        << formatFixed(result.referenceCost.totalUs, 2) << " us) by "
        << result.bestCost.launches << " kernels ("
        << formatFixed(result.bestCost.totalUs, 2) << " us); " << figures;
    if (!cacheDir.empty()) {
      std::string error;
      if (failed(storeResult(cacheDir, key, answer, error)))
        emitWarning(loc) << "superoptimize: " << error;
    }
  }

  // Whether fusion beats the answer depends on the ops beside the
  // subprogram, so a repeat weighs the answer again in its own place.
  if (!searched.outcomes.count(key)) {
    answer->remove();
    searched.answers->push_back(answer);
    searched.outcomes.try_emplace(
        key, SearchedSubprograms::Outcome{answer, describeLocation(loc)});
  }
  if (fusionBeatsAnswer(sub, answer, problem->inputValues, options, loc,
                        figures))
    return true;
  emitRemark(loc) << replacedText;
  spliceAnswer(answer, sub.ops, problem->inputValues, sub.outputs, &replaced);
  ++numRewritten;
  return true;
}

void SuperoptimizePass::runOnOperation() {
  ModuleOp module = getOperation();
  std::optional<TargetInfo> targetInfo = lookupTarget(target);
  if (!targetInfo) {
    module.emitError() << "superoptimize: unknown target '" << target
                       << "'; supported: " << supportedTargetNames();
    return signalPassFailure();
  }
  if (maxKernelOps == 0) {
    module.emitError() << "superoptimize: max-kernel-ops must be at least 1";
    return signalPassFailure();
  }
  if (maxBlockOps < 3 || maxBlockOps > kMaxBlockOpsOption) {
    module.emitError() << "superoptimize: max-block-ops must be from 3 (a "
                          "load, an op and a store) to "
                       << kMaxBlockOpsOption << ", not "
                       << maxBlockOps.getValue();
    return signalPassFailure();
  }
  if (timeout < 0 || !std::isfinite(timeout)) {
    module.emitError() << "superoptimize: timeout must be a finite number of "
                          "seconds >= 0, not "
                       << timeout;
    return signalPassFailure();
  }
  if (giveUpAfter < 0 || !std::isfinite(giveUpAfter)) {
    module.emitError() << "superoptimize: give-up-after must be a finite "
                          "number of seconds >= 0, not "
                       << giveUpAfter;
    return signalPassFailure();
  }
  SearchOptions options;
  options.maxKernelOps = maxKernelOps;
  options.maxBlockOps = maxBlockOps;
  options.threads = threads;
  evaluationPool.reset();
  llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(threads);
  if (strategy.compute_thread_count() > 1)
    evaluationPool = std::make_shared<llvm::StdThreadPool>(strategy);
  options.target = *targetInfo;
  options.seed = seed;
  options.abstractPruning = abstractPruning;
  options.costPruning = costPruning;
  options.cost.latency = latencyModel;
  options.cost.latencyVeto = latencyVeto;
  // The fusion this pass closes with gives a conversion beside a kept
  // pre-defined op to that op's default block graph (fuseBesideKernels), so
  // the search costs such an op as that kernel, not as two launches: an f16
  // row max kept beside a custom kernel is computed in f32 and read through
  // a conversion of its whole input.
  {
    RewritePatternSet patterns(&getContext());
    populateWrapKernelsBesideCopiesPatterns(
        patterns, static_cast<int64_t>(targetInfo->maxSharedMemPerBlock));
    populateFuseConversionPatterns(patterns);
    auto frozen =
        std::make_shared<FrozenRewritePatternSet>(std::move(patterns));
    options.foldConversions = [frozen](func::FuncOp func) {
      (void)applyPatternsGreedily(func, *frozen);
    };
  }
  // Answers become thread graphs before they replace their subprograms
  // (below); the latency veto judges candidates so.
  options.fuseThreadGraphs =
      [maxBytes = static_cast<int64_t>(targetInfo->maxSharedMemPerBlock)](
          func::FuncOp func) {
        thread::fuseElementwiseWithinSharedMemory(func, maxBytes);
      };

  // Calls to helpers are inlined first: subprograms are cut inside one
  // function, so a call parted the ops on its two sides (a helper's
  // activation from the matmul before it).
  OpPassManager inlining(ModuleOp::getOperationName());
  inlining.addPass(createInlineHelpers());
  if (failed(runPipeline(inlining, module)))
    return signalPassFailure();

  // Spelled-out normalizations become single ops, which the search splits
  // across for-loops itself. Functions already linked to a reference are
  // left alone: they are what an earlier run produced.
  SmallVector<func::FuncOp> functions;
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    if (!func.isExternal() &&
        !func->hasAttr(MLSOptDialect::kEquivalentToAttrName))
      functions.push_back(func);
  if (keepReference) {
    // The originals stay, untouched and private, as the references of the
    // results.
    SymbolTable symbols(module);
    for (func::FuncOp func : functions) {
      if (llvm::none_of(func.getBody().getOps(), [](Operation &op) {
            return isSearchableOp(&op);
          }))
        continue;
      auto copy = cast<func::FuncOp>(func->clone());
      copy.setName((func.getName() + "_reference").str());
      copy.setPrivate();
      symbols.insert(copy, std::next(Block::iterator(func)));
      func->setAttr(MLSOptDialect::kEquivalentToAttrName,
                    FlatSymbolRefAttr::get(copy.getSymNameAttr()));
    }
  }
  // One value computed twice is one op: an import emits a conversion of an
  // input once per linalg op that widens it, and an rms_norm is raised only
  // where its square and its scale read the same value (an f16 LLaMA norm
  // with its weight was three launches).
  {
    IRRewriter rewriter(&getContext());
    for (func::FuncOp func : functions) {
      DominanceInfo dominance(func);
      eliminateCommonSubExpressions(rewriter, dominance, func);
    }
  }
  {
    RewritePatternSet patterns(&getContext());
    populateRaiseKernelIdiomPatterns(patterns);
    populateAlignOperandRankPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (func::FuncOp func : functions)
      (void)applyPatternsGreedily(func, frozen);
  }
  // An rms_norm whose row fits no block of the target is computed by the
  // GPU pipeline as the ops it stands for, one launch each; searched as
  // those ops, its sum of squares can walk the row in a kernel's for-loop
  // and the scale join another (a [3, 65536] f16 row: 9 launches kept as
  // one op, whose search passed no candidate).
  {
    IRRewriter rewriter(&getContext());
    for (func::FuncOp func : functions) {
      SmallVector<kernel::RmsNormOp> tooLong;
      func.walk([&](kernel::RmsNormOp norm) {
        if (!norm->getParentOfType<kernel::CustomOp>() &&
            hasRowTooLongForABlock(
                norm,
                static_cast<int64_t>(options.target.maxSharedMemPerBlock)))
          tooLong.push_back(norm);
      });
      for (kernel::RmsNormOp norm : tooLong) {
        rewriter.setInsertionPoint(norm);
        rewriter.replaceOp(norm, decomposeRmsNorm(rewriter, norm));
      }
    }
  }
  {
    RewritePatternSet patterns(&getContext());
    populateFuseKernelElementwisePatterns(patterns, options.target,
                                          options.cost);
    elementwiseFusion.emplace(std::move(patterns));
  }
  auto countLaunches = [](func::FuncOp func) {
    return llvm::count_if(func.getBody().getOps(),
                          [](Operation &op) { return isKernelOp(&op); });
  };
  SearchedSubprograms searched(&getContext());
  for (func::FuncOp func : functions) {
    replaced.clear();
    auto start = std::chrono::steady_clock::now();
    SmallVector<Subprogram> subprograms =
        partitionIntoSubprograms(func, maxKernelOps);
    // Subprograms are cut from the function's top-level ops: kernel ops in
    // a loop or a branch are left as they are, which deserves a word.
    Operation *firstNested = nullptr;
    unsigned nested = 0;
    func.walk([&](Operation *op) {
      if (!kernel::isNestedKernelOp(op, func))
        return;
      if (!firstNested)
        firstNested = op;
      ++nested;
    });
    if (firstNested)
      emitRemark(firstNested->getLoc())
          << "superoptimize: " << nested << " kernel ops inside '"
          << firstNested->getParentOp()->getName()
          << "' are not searched: subprograms are cut from a function's "
             "top-level ops (a loop over layers can be unrolled first)";
    if (subprograms.empty()) {
      // A linalg program handed to the pass as it is: say why nothing
      // happened rather than return it unchanged without a word. (By name:
      // the pass does not otherwise depend on linalg.)
      unsigned linalgOps = 0;
      bool dynamic = false;
      auto isDynamic = [](Type type) {
        auto shaped = dyn_cast<ShapedType>(type);
        return shaped && !shaped.hasStaticShape();
      };
      for (Block &block : func.getBody())
        for (Operation &op : block) {
          Dialect *dialect = op.getDialect();
          if (!dialect || dialect->getNamespace() != "linalg" ||
              op.getName().getStringRef() == "linalg.fill")
            continue;
          ++linalgOps;
          dynamic |= llvm::any_of(op.getOperandTypes(), isDynamic) ||
                     llvm::any_of(op.getResultTypes(), isDynamic);
        }
      // The import leaves ops on dynamic shapes as they are, so running it
      // first is no advice there.
      if (linalgOps != 0 && dynamic)
        emitWarning(func.getLoc())
            << "superoptimize: @" << func.getName()
            << " has no kernel ops to search, and " << linalgOps
            << " linalg ops on tensors of dynamic shape, which neither "
               "--convert-linalg-to-kernel nor the search takes (the kernel "
               "dialect's tensors have static shapes)";
      else if (linalgOps != 0)
        warnLinalgLeft(func, linalgOps);
      continue;
    }
    // Transposes are in no subprogram; the remark after the fusions below
    // gives the whole function's figures before and after.
    int64_t launchesBefore = countLaunches(func);
    FailureOr<KernelCost> costBefore = estimateQuietly(func, options);
    // Each subprogram's share of the function's time is in proportion to
    // its ops: the search space grows with them, and a one-op subprogram
    // ends within a second and leaves its share to the next. Shared
    // equally, QKNorm with a safe softmax (a norm, the seven-op attention,
    // the division) gave the attention a third of the time, which ran out.
    // Chains on inputs last: searched first, such a chain became a custom
    // kernel of its own, which no kernel takes as its prologue (only kernel
    // ops join kernels), where once its readers' kernels are found, the
    // chain kept as kernel ops joins them if that is faster
    // (fusionBeatsAnswer): an elementwise program with a column's
    // sqrt(c * c + 1) was two launches.
    std::stable_partition(
        subprograms.begin(), subprograms.end(),
        [](const Subprogram &sub) { return !isInputChain(sub); });
    // An op left to fusion is not searched and takes no share: after an
    // attention, it held back a share that the check of the attention's
    // winner then lacked (kept at 8.7 s of 10 s, where 10 s found it).
    // A subprogram identical to an earlier one (a repeated layer's) takes
    // no share either: it gets the earlier one's answer, and the time its
    // check takes comes out of the shares of those after it.
    // Each subprogram's key is taken once, here: its inputs may be
    // replaced before it is searched, by values of the same types, which
    // the key does not see.
    SmallVector<bool> leftToFusion, repeat;
    SmallVector<std::string> keys;
    DenseMap<Operation *, std::pair<Location, OperationName>> leftOps;
    llvm::StringSet<> seen;
    size_t opsLeft = 0;
    for (const Subprogram &sub : subprograms) {
      leftToFusion.push_back(isLeftToFusion(sub));
      repeat.push_back(false);
      keys.emplace_back();
      if (leftToFusion.back())
        continue;
      keys.back() = getSubprogramKey(sub, options);
      repeat.back() = !keys.back().empty() && !seen.insert(keys.back()).second;
      if (!repeat.back())
        opsLeft += sub.ops.size();
    }
    for (auto [index, sub] : llvm::enumerate(subprograms)) {
      for (Value &input : sub.inputs)
        if (Value now = replaced.lookup(input))
          input = now;
      if (leftToFusion[index]) {
        emitRemark(sub.ops.front()->getLoc())
            << "superoptimize: kept the subprogram of 1 kernel ops, not "
               "searched: an elementwise op beside another kernel, left to "
               "join it";
        // Remembered, so that the op, if it is still there after the
        // fusion below, can say that it did not join. (An attribute would
        // keep it out of the fusion.)
        Operation *op = sub.ops.front();
        leftOps.try_emplace(op, op->getLoc(), op->getName());
        continue;
      }
      // What is left of the function's time, shared by what is left of it.
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      // Never below zero: at timeout=0 a remark read "-0.0 s". A repeat's
      // share bounds its check, and what it leaves goes to the rest.
      double share = std::max(0.0, timeout - elapsed) * sub.ops.size() /
                     (opsLeft + (repeat[index] ? sub.ops.size() : 0));
      if (!repeat[index])
        opsLeft -= sub.ops.size();
      // Once the function's time is spent, what is left stays as it is:
      // each search would end at once and its checks would overrun (a
      // 2000-op chain at timeout=5 took 6.6 s).
      if (share <= 0) {
        emitRemark(sub.ops.back()->getLoc())
            << "superoptimize: kept the subprogram of " << sub.ops.size()
            << " kernel ops, not searched: @" << func.getName()
            << "'s timeout of " << formatFixed(timeout, 1) << " s has run out";
        continue;
      }
      if (!optimizeOrSplit(sub, options, share, searched, keys[index]))
        return signalPassFailure();
    }
    // Elementwise ops and transposes the partition left alone join the
    // custom kernels beside them.
    int64_t before = countLaunches(func);
    fuseBesideKernels(func, options);
    // Subprograms are cut from the function's top-level ops. The ops are
    // looked up by address, and their location and name confirm that the
    // address is not that of a new op.
    for (Operation &op : func.getBody().getOps()) {
      auto it = leftOps.find(&op);
      if (it == leftOps.end() || it->second.first != op.getLoc() ||
          it->second.second != op.getName())
        continue;
      emitRemark(op.getLoc())
          << "superoptimize: the elementwise op left to join a kernel beside "
             "it stays a launch of its own: no kernel beside it computes it "
             "in the estimate's favour or within the target's shared memory "
             "(--fuse-kernel-elementwise)";
    }
    if (int64_t after = countLaunches(func); after < before) {
      FailureOr<KernelCost> cost = estimateQuietly(func, options);
      InFlightDiagnostic remark = emitRemark(func.getLoc());
      // The launches the cost model counts, where it could: a kernel op
      // the GPU pipeline splits (a reduction over a long row) is two.
      remark << "superoptimize: fused across the cut: " << before - after
             << " launches fewer (elementwise ops, transposes and conversions "
                "computed in the custom kernels beside them; custom kernels "
                "with one launch merged); @"
             << func.getName() << " launches "
             << (succeeded(cost) ? cost->launches : after) << " kernels";
      if (succeeded(cost))
        remark << " (" << formatFixed(cost->totalUs, 2) << " us)";
      remark << ", "
             << (succeeded(costBefore) ? costBefore->launches : launchesBefore)
             << " before";
      if (succeeded(costBefore))
        remark << " (" << formatFixed(costBefore->totalUs, 2) << " us)";
    }
  }
}
