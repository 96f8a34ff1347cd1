//===- FuseElementwise.cpp - Elementwise block ops into thread graphs -----===//
//
// The rule-based construction of the thread level: wrap every elementwise
// block op in a thread graph, then merge each graph into its only consumer
// graph until no more merges apply.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/Block/IR/BlockGraphVerifier.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Dialect/Thread/Transforms/Passes.h"
#include "mlsopt/Support/Target.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "thread-fuse-elementwise"

namespace mlsopt::thread {
#define GEN_PASS_DEF_THREADFUSEELEMENTWISE
#include "mlsopt/Dialect/Thread/Transforms/Passes.h.inc"
} // namespace mlsopt::thread

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::thread;

/// Whether `op` is a block op of a block graph that a thread graph can
/// compute (hasThreadForm).
static bool isElementwiseBlockOp(Operation *op) {
  // A thread graph is part of a block graph; an op elsewhere (a block op
  // in a function, which parses) stays as it is rather than becoming an
  // invalid graph.
  return hasThreadForm(op) &&
         isa_and_nonnull<kernel::CustomOp, block::ForLoopOp>(op->getParentOp());
}

/// The elementwise block ops (isElementwiseBlockOp) and the thread graphs
/// under `root`: what the patterns below have to wrap and merge.
static std::pair<unsigned, unsigned> countFusable(Operation *root) {
  unsigned elementwise = 0, graphs = 0;
  root->walk([&](Operation *op) {
    elementwise += isElementwiseBlockOp(op);
    graphs += isa<GraphOp>(op);
  });
  return {elementwise, graphs};
}

/// Emits the thread op that computes `op` on one element of each operand.
static Value createThreadOp(OpBuilder &b, Operation *op, ValueRange args) {
  Location loc = op->getLoc();
  Type type = args.front().getType();
  if (auto convert = dyn_cast<block::ConvertOp>(op))
    return ConvertOp::create(
        b, loc, getElementTypeOrSelf(convert.getResult().getType()), args[0]);
  if (auto convert = dyn_cast<block::IntToFloatOp>(op))
    return IntToFloatOp::create(
        b, loc, getElementTypeOrSelf(convert.getResult().getType()), args[0],
        convert.getIsUnsigned());
  if (auto where = dyn_cast<block::WhereOp>(op))
    return WhereOp::create(
        b, loc, getElementTypeOrSelf(where.getResult().getType()), args[0],
        where.getOnTrueAttr(), where.getOnFalseAttr());
  StringRef name = op->getName().stripDialect();
  // The thread op of a scalar op has its mnemonic and its `scalar`.
  if (isScalarOpName(name)) {
    OperationState state(loc, ("thread." + name).str());
    state.addOperands(args[0]);
    state.addTypes(type);
    state.addAttribute("scalar", op->getAttr("scalar"));
    return b.create(state)->getResult(0);
  }
  if (std::optional<UnaryKind> kind = symbolizeUnaryKind(name))
    return UnaryOp::create(b, loc, type, *kind, args[0]);
  return BinaryOp::create(b, loc, type, *symbolizeBinaryKind(name), args[0],
                          args[1]);
}

using BodyBuilder =
    function_ref<SmallVector<Value>(OpBuilder &, const IRMapping &)>;

/// Creates a thread graph over `inputs` (each distinct value once) whose body
/// `buildBody` fills; it sees each input mapped to its element argument and
/// returns the values to yield.
static GraphOp createGraph(PatternRewriter &rewriter, Location loc,
                           ValueRange inputs, TypeRange resultTypes,
                           BodyBuilder buildBody) {
  llvm::SetVector<Value> unique(inputs.begin(), inputs.end());
  SmallVector<Value> operands(unique.begin(), unique.end());
  auto graph = GraphOp::create(rewriter, loc, resultTypes, operands);
  Block *body = rewriter.createBlock(&graph.getBody());
  IRMapping elements;
  for (Value v : operands)
    elements.map(v, body->addArgument(
                        cast<RankedTensorType>(v.getType()).getElementType(),
                        v.getLoc()));
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(body);
  SmallVector<Value> yielded = buildBody(rewriter, elements);
  YieldOp::create(rewriter, loc, yielded);
  return graph;
}

/// Clones the body of `graph` with its arguments bound to `args`; returns the
/// values it yields.
static SmallVector<Value> inlineGraphBody(OpBuilder &b, GraphOp graph,
                                          ArrayRef<Value> args) {
  IRMapping mapping;
  Block &body = graph.getBody().front();
  mapping.map(body.getArguments(), args);
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  return llvm::map_to_vector(
      cast<YieldOp>(body.getTerminator()).getValues(),
      [&](Value v) { return mapping.lookupOrDefault(v); });
}

/// One graph at the rewriter's insertion point over the inputs of `first`
/// and those of `second` that `first` does not compute. It computes
/// `first`'s body, then `second`'s, which reads `first`'s results in
/// registers, and yields `second`'s results, after `first`'s when
/// `keepFirstResults`.
static GraphOp createChainedGraph(PatternRewriter &rewriter, Location loc,
                                  GraphOp first, GraphOp second,
                                  bool keepFirstResults) {
  SmallVector<Value> inputs(first.getInputs());
  for (Value v : second.getInputs())
    if (v.getDefiningOp() != first)
      inputs.push_back(v);
  SmallVector<Type> types;
  if (keepFirstResults)
    llvm::append_range(types, first.getResultTypes());
  llvm::append_range(types, second.getResultTypes());
  return createGraph(
      rewriter, loc, inputs, types,
      [&](OpBuilder &b, const IRMapping &elements) {
        SmallVector<Value> firstResults = inlineGraphBody(
            b, first, llvm::map_to_vector(first.getInputs(), [&](Value v) {
              return elements.lookup(v);
            }));
        SmallVector<Value> secondArgs =
            llvm::map_to_vector(second.getInputs(), [&](Value v) {
              auto result = dyn_cast<OpResult>(v);
              return result && result.getOwner() == first
                         ? firstResults[result.getResultNumber()]
                         : elements.lookup(v);
            });
        SmallVector<Value> yielded;
        if (keepFirstResults)
          yielded = firstResults;
        llvm::append_range(yielded, inlineGraphBody(b, second, secondArgs));
        return yielded;
      });
}

namespace {

/// block.<elementwise> -> thread.graph holding the one thread op.
struct WrapElementwiseOp : RewritePattern {
  explicit WrapElementwiseOp(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseBlockOp(op))
      return rewriter.notifyMatchFailure(op, "not an elementwise block op");
    GraphOp graph = createGraph(
        rewriter, op->getLoc(), op->getOperands(), op->getResultTypes(),
        [&](OpBuilder &b, const IRMapping &elements) {
          SmallVector<Value> args = llvm::map_to_vector(
              op->getOperands(), [&](Value v) { return elements.lookup(v); });
          return SmallVector<Value>{createThreadOp(b, op, args)};
        });
    rewriter.replaceOp(op, graph.getResults());
    return success();
  }
};

/// A thread graph whose results are used only by one consumer graph is
/// computed inside that consumer instead.
struct MergeIntoConsumer : OpRewritePattern<GraphOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GraphOp consumer,
                                PatternRewriter &rewriter) const override {
    for (Value input : consumer.getInputs()) {
      auto producer = input.getDefiningOp<GraphOp>();
      if (!producer || producer->getBlock() != consumer->getBlock() ||
          !llvm::all_of(producer->getUsers(),
                        [&](Operation *user) { return user == consumer; }))
        continue;
      GraphOp merged =
          createChainedGraph(rewriter, consumer.getLoc(), producer, consumer,
                             /*keepFirstResults=*/false);
      LLVM_DEBUG(llvm::dbgs() << "merged thread graph at " << producer.getLoc()
                              << " into its consumer\n");
      rewriter.replaceOp(consumer, merged.getResults());
      rewriter.eraseOp(producer);
      return success();
    }
    return rewriter.notifyMatchFailure(consumer, "no producer graph to merge");
  }
};

/// Replaces `earlier` and `later`, a graph after it in its block, by one
/// graph at `earlier`'s place that computes both bodies and yields both
/// results, `earlier`'s first. `later` reads `earlier`'s results in
/// registers; every other operand of `later` must be available at
/// `earlier`.
static void mergeIntoEarlier(PatternRewriter &rewriter, GraphOp earlier,
                             GraphOp later) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(earlier);
  GraphOp merged = createChainedGraph(rewriter, earlier.getLoc(), earlier,
                                      later, /*keepFirstResults=*/true);
  unsigned numEarlier = earlier.getNumResults();
  rewriter.replaceOp(later, merged.getResults().drop_front(numEarlier));
  rewriter.replaceOp(earlier, merged.getResults().take_front(numEarlier));
}

/// A thread graph that reads only results of one producer graph that
/// other ops read too (a tile rounded to f16 for a matmul that a reduction
/// also reads in f32) is computed by the producer as more results: the
/// elements are in registers there, so they are not read back from shared
/// memory and no barrier separates the two.
struct MergeIntoProducer : OpRewritePattern<GraphOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GraphOp consumer,
                                PatternRewriter &rewriter) const override {
    auto producer = consumer.getInputs().empty()
                        ? GraphOp()
                        : consumer.getInputs().front().getDefiningOp<GraphOp>();
    if (!producer || producer->getBlock() != consumer->getBlock() ||
        !llvm::all_of(consumer.getInputs(),
                      [&](Value v) { return v.getDefiningOp() == producer; }))
      return rewriter.notifyMatchFailure(consumer,
                                         "reads more than one graph's results");
    // Results of one graph share one shape.
    if (cast<RankedTensorType>(consumer.getResult(0).getType()).getShape() !=
        cast<RankedTensorType>(producer.getResult(0).getType()).getShape())
      return rewriter.notifyMatchFailure(consumer, "another shape");
    LLVM_DEBUG(llvm::dbgs() << "merging thread graph at " << consumer.getLoc()
                            << " into its producer\n");
    mergeIntoEarlier(rewriter, producer, consumer);
    return success();
  }
};

/// Whether `value` is available where `op` is: defined outside `op`'s
/// block, or by an op before it in that block.
static bool isAvailableAt(Value value, Operation *op) {
  Operation *def = value.getDefiningOp();
  Block *block = def ? def->getBlock() : cast<BlockArgument>(value).getOwner();
  if (block != op->getBlock())
    return true;
  return !def || def->isBeforeInBlock(op);
}

/// Two thread graphs that read a tile in common (the squares of x for its
/// norm and x rounded to f16 for its product) are one graph with the
/// results of both: each element is read from shared memory once, and one
/// barrier follows. The later graph moves up to the earlier one, which all
/// its operands must be available at.
struct MergeSiblings : OpRewritePattern<GraphOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GraphOp later,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(later.getResult(0).getType()).getShape();
    GraphOp earlier;
    for (Operation *op = later->getPrevNode(); op && !earlier;
         op = op->getPrevNode()) {
      auto candidate = dyn_cast<GraphOp>(op);
      if (!candidate ||
          cast<RankedTensorType>(candidate.getResult(0).getType()).getShape() !=
              shape ||
          llvm::none_of(later.getInputs(),
                        [&](Value v) {
                          return llvm::is_contained(candidate.getInputs(), v);
                        }) ||
          !llvm::all_of(later.getInputs(),
                        [&](Value v) { return isAvailableAt(v, candidate); }))
        continue;
      earlier = candidate;
    }
    if (!earlier)
      return rewriter.notifyMatchFailure(later, "no earlier graph to join");
    LLVM_DEBUG(llvm::dbgs() << "merging thread graph at " << later.getLoc()
                            << " into an earlier one reading its operands\n");
    mergeIntoEarlier(rewriter, earlier, later);
    return success();
  }
};

struct ThreadFuseElementwisePass
    : thread::impl::ThreadFuseElementwiseBase<ThreadFuseElementwisePass> {
  void runOnOperation() override {
    auto [elementwiseBefore, graphsBefore] = countFusable(getOperation());

    fuseElementwiseWithinSharedMemory(getOperation());

    // Every elementwise op became a graph; each merge removed one graph.
    auto [elementwiseAfter, graphsAfter] = countFusable(getOperation());
    numWrapped += elementwiseBefore - elementwiseAfter;
    numMerged += elementwiseBefore - elementwiseAfter + graphsBefore - graphsAfter;
  }
};

} // namespace

void mlsopt::thread::populateFuseElementwisePatterns(
    RewritePatternSet &patterns) {
  patterns.add<WrapElementwiseOp, MergeIntoConsumer, MergeIntoProducer,
               MergeSiblings>(patterns.getContext());
}

void mlsopt::thread::fuseElementwiseWithinSharedMemory(
    Operation *root, std::optional<int64_t> maxSharedMemBytes) {
  RewritePatternSet patterns(root->getContext());
  populateFuseElementwisePatterns(patterns);
  FrozenRewritePatternSet frozen(std::move(patterns));
  SmallVector<kernel::CustomOp> kernels;
  root->walk([&](kernel::CustomOp custom) { kernels.push_back(custom); });
  for (kernel::CustomOp custom : kernels) {
    // Most kernels of a search's result have nothing left to fuse; cloning
    // them would cost a copy of every block graph.
    auto [elementwise, graphs] = countFusable(custom);
    if (elementwise == 0 && graphs < 2)
      continue;
    // Fused on a copy beside it, so that a graph too large for the target
    // is dropped whole rather than undone merge by merge.
    int64_t limit;
    if (maxSharedMemBytes) {
      limit = *maxSharedMemBytes;
    } else {
      // The verifier has reported a target it does not know.
      FailureOr<TargetInfo> target = getEnclosingTarget(custom);
      if (failed(target))
        continue;
      limit = static_cast<int64_t>(target->maxSharedMemPerBlock);
    }
    OpBuilder builder(custom);
    auto fused = cast<kernel::CustomOp>(builder.clone(*custom));
    (void)applyPatternsGreedily(fused, frozen);
    if (block::estimateSharedMemoryBytes(fused, limit) > limit) {
      LLVM_DEBUG(llvm::dbgs() << "kept the block graph at " << custom.getLoc()
                              << ": fused, it needs "
                              << block::estimateSharedMemoryBytes(fused, limit)
                              << " bytes of shared memory\n");
      fused.erase();
      continue;
    }
    custom->replaceAllUsesWith(fused);
    custom.erase();
  }
}
