//===- SharedMemoryPlanTest.cpp - Tiles share bytes only when safe --------===//
//
// Checks SharedMemoryPlan against rules read off the IR independently of the
// plan's program points: a tile an op reads is live with every tile written
// between its definition and that read, the loop carries its loads and
// accumulators through every iteration, and so on. Any two tiles those
// rules say are live together must get disjoint bytes, on every example's
// kernels (their μGraphs and the default block graphs of their pre-defined
// kernels) in f16 and f32.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/Block/IR/SharedMemoryPlan.h"
#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Dialect/Block/IR/BlockGraphVerifier.h"
#include "mlsopt/Support/Target.h"

#include "mlir/IR/PatternMatch.h"

#include "MLIRTest.h"

#include <regex>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::block;

namespace {

class SharedMemoryPlanTest : public test::MLIRTest {
protected:
  /// The custom kernels of `source`, pre-defined kernel ops wrapped in their
  /// default block graphs first; empty (and a test failure) if it does not
  /// parse or verify.
  SmallVector<kernel::CustomOp> customKernels(StringRef source) {
    module = parse(source);
    EXPECT_TRUE(module) << diagnostics;
    if (!module)
      return {};
    SmallVector<Operation *> predefined;
    module->walk([&](Operation *op) {
      if (hasDefaultBlockGraph(op))
        predefined.push_back(op);
    });
    IRRewriter rewriter(&context);
    for (Operation *op : predefined) {
      rewriter.setInsertionPoint(op);
      EXPECT_TRUE(succeeded(wrapInDefaultBlockGraph(
          rewriter, op, getDefaultTarget().maxSharedMemPerBlock)))
          << diagnostics;
    }
    SmallVector<kernel::CustomOp> customs;
    module->walk([&](kernel::CustomOp op) { customs.push_back(op); });
    return customs;
  }

  OwningOpRef<ModuleOp> module;
};

/// The buffers a read of `value` may touch, as the lowering maps them: a
/// load's tile (both buffers when double-buffered), a loop result's yielded
/// tile, accumulator or result tile, any other tile's own buffer.
SmallVector<const SharedBuffer *> buffersOf(const SharedMemoryPlan &plan,
                                            Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (auto loop = result ? dyn_cast<ForLoopOp>(result.getOwner()) : nullptr) {
    unsigned i = result.getResultNumber();
    switch (getAccumulatorStorage(loop, i)) {
    case AccumulatorStorage::YieldedTile:
      return buffersOf(plan,
                       loop.getBody().front().getTerminator()->getOperand(i));
    case AccumulatorStorage::AccumulatorIsResult:
      return {plan.lookup(value, SharedBufferRole::Accumulator)};
    case AccumulatorStorage::AccumulatorAndResult:
      return {plan.lookup(value, SharedBufferRole::Tile)};
    }
  }
  SmallVector<const SharedBuffer *> found;
  for (SharedBufferRole role :
       {SharedBufferRole::Tile, SharedBufferRole::PrefetchTile})
    if (const SharedBuffer *buffer = plan.lookup(value, role))
      found.push_back(buffer);
  return found;
}

/// The tile values of `op` that get buffers: its results, and for a loop
/// every tile of its body too.
SmallVector<Value> tilesOf(Operation &op) {
  SmallVector<Value> tiles;
  op.walk([&](Operation *nested) {
    for (Value result : nested->getResults())
      if (isa<RankedTensorType>(result.getType()))
        tiles.push_back(result);
  });
  return tiles;
}

using Buffers = SmallVector<const SharedBuffer *>;

/// Checks that buffers `a` and `b`, which the IR says are live together,
/// share no byte (a buffer in both is one tile's, compared with itself).
void expectDisjoint(const Buffers &a, const Buffers &b, StringRef why) {
  for (const SharedBuffer *x : a)
    for (const SharedBuffer *y : b)
      if (x != y) {
        EXPECT_FALSE(x->overlapsBytesOf(*y))
            << why.str() << ": [" << x->offset << ", " << x->offset + x->bytes
            << ") and [" << y->offset << ", " << y->offset + y->bytes << ")";
      }
}

void expectDisjoint(const SharedMemoryPlan &plan, Value a, Value b,
                    StringRef why) {
  expectDisjoint(buffersOf(plan, a), buffersOf(plan, b), why);
}

/// In `block`, a tile that op `user` reads is live from its definition (a
/// loaded tile: from before the loop body) to `user`: it shares no byte with
/// the tiles written in between, `user`'s own results included.
void checkReadsInBlock(const SharedMemoryPlan &plan, Block &block) {
  for (Operation &user : block)
    for (Value read : user.getOperands()) {
      if (!isa<RankedTensorType>(read.getType()))
        continue;
      Operation *def = read.getDefiningOp();
      if (!def || def->getBlock() != &block)
        continue;
      Operation *from = isa<LoadOp>(def) ? &block.front() : def->getNextNode();
      for (Operation *op = from; op != user.getNextNode();
           op = op->getNextNode())
        for (Value written : tilesOf(*op))
          if (written != read)
            expectDisjoint(plan, read, written, "read after a later write");
    }
}

/// The loop's rules. The prologue initializes the accumulators and starts
/// every load's copy; the epilogue reads the accumulators into the results.
/// Tiles from before the loop that the body reads, the accumulators and, in
/// a loop of several iterations, the loads (copied once, or double-buffered
/// with a copy in flight) stay live while every body tile is written.
void checkLoop(const SharedMemoryPlan &plan, ForLoopOp loop) {
  Block &body = loop.getBody().front();
  bool severalIterations = loop.getIterations() > 1;
  Buffers loads, computed, accumulators;
  for (Operation &op : body.without_terminator())
    for (Value tile : op.getResults())
      (isa<LoadOp>(op) ? loads : computed).append(buffersOf(plan, tile));
  for (Value result : loop.getResults())
    if (const SharedBuffer *acc =
            plan.lookup(result, SharedBufferRole::Accumulator))
      accumulators.push_back(acc);

  Buffers prologue(accumulators);
  prologue.append(loads);
  expectDisjoint(prologue, prologue, "two buffers the prologue writes");
  for (Value result : loop.getResults()) {
    expectDisjoint(buffersOf(plan, result), accumulators,
                   "a result and an accumulator");
    if (severalIterations)
      expectDisjoint(buffersOf(plan, result), loads,
                     "a result and a load in flight");
  }

  Buffers wholeLoop(accumulators);
  if (severalIterations)
    wholeLoop.append(loads);
  body.walk([&](Operation *op) {
    for (Value read : op->getOperands())
      if (isa<RankedTensorType>(read.getType()) && read.getDefiningOp() &&
          !loop->isAncestor(read.getDefiningOp()))
        wholeLoop.append(buffersOf(plan, read));
  });
  expectDisjoint(wholeLoop, computed, "a buffer the loop carries");
  checkReadsInBlock(plan, body);
}

/// All of the plan's own invariants, and the IR's rules above.
void checkPlan(kernel::CustomOp op) {
  SharedMemoryPlan plan(op);
  int64_t end = 0;
  for (const SharedBuffer &buffer : plan.getBuffers()) {
    EXPECT_EQ(buffer.offset % kSharedBufferAlignment, 0);
    end = std::max(end, buffer.offset + buffer.bytes);
    for (const SharedBuffer &other : plan.getBuffers())
      if (&buffer != &other && buffer.isLiveWith(other)) {
        EXPECT_FALSE(buffer.overlapsBytesOf(other));
      }
  }
  EXPECT_EQ(plan.getTotalBytes(), end);
  EXPECT_EQ(estimateSharedMemoryBytes(op), plan.getTotalBytes());
  for (Operation &top : op.getBody().front()) {
    for (Value tile : tilesOf(top))
      EXPECT_FALSE(buffersOf(plan, tile).empty() ||
                   llvm::is_contained(buffersOf(plan, tile), nullptr))
          << "a tile without bytes";
    if (auto loop = dyn_cast<ForLoopOp>(top))
      checkLoop(plan, loop);
  }
  checkReadsInBlock(plan, op.getBody().front());
}

TEST_F(SharedMemoryPlanTest, LiveTilesNeverShareBytesInTheExamples) {
  for (const std::string &path : exampleFiles()) {
    std::string f16 = readSourceFile(path);
    for (const std::string &source :
         {f16, std::regex_replace(f16, std::regex("f16"), "f32")}) {
      SCOPED_TRACE(path);
      SmallVector<kernel::CustomOp> customs = customKernels(source);
      EXPECT_FALSE(customs.empty());
      for (kernel::CustomOp custom : customs)
        checkPlan(custom);
    }
  }
}

// The GPU lowering's tests: loops of one and several iterations whose tiles
// are read after the loop, tiles that only fit with sharing.
TEST_F(SharedMemoryPlanTest, LiveTilesNeverShareBytesInTheLoweringTests) {
  for (StringRef path :
       {"test/Conversion/CustomKernelToGPU/shared-memory-plan.mlir",
        "test/Conversion/CustomKernelToGPU/custom-kernel-to-gpu.mlir",
        "test/Target/GPU/split-reduction.mlir"}) {
    SCOPED_TRACE(path.str());
    SmallVector<kernel::CustomOp> customs = customKernels(readSourceFile(path));
    EXPECT_FALSE(customs.empty());
    for (kernel::CustomOp custom : customs)
      checkPlan(custom);
  }
}

// Flash decoding in f32 (examples/attention.mlir): its first kernel's tiles
// add up to 311808 bytes and its buffers to 295168, more than any chip's
// block has; at most Q, K, V and S (16 KiB + 3 x 64 KiB) are live at once.
TEST_F(SharedMemoryPlanTest, FlashDecodingInF32FitsSm90) {
  std::string f16 = readSourceFile("examples/attention.mlir");
  SmallVector<kernel::CustomOp> customs =
      customKernels(std::regex_replace(f16, std::regex("f16"), "f32"));
  auto func = lookupFunc(*module, "flash_decoding");
  ASSERT_TRUE(func);
  kernel::CustomOp partials = *func.getOps<kernel::CustomOp>().begin();
  SharedMemoryPlan plan(partials);
  // The old estimate: every tile, loop results included.
  int64_t tileBytes = 0;
  partials.getBody().walk([&](Operation *op) {
    for (Value tile : op->getResults())
      if (auto type = dyn_cast<RankedTensorType>(tile.getType()))
        tileBytes += type.getNumElements() * 4;
  });
  EXPECT_EQ(tileBytes, 311808);
  // Without sharing: the loop's results are its yielded tiles.
  int64_t bufferBytes = 0;
  for (const SharedBuffer &buffer : plan.getBuffers())
    bufferBytes += buffer.bytes;
  EXPECT_EQ(bufferBytes, 295168);
  EXPECT_EQ(plan.getTotalBytes(), 212992);
  EXPECT_LE(plan.getTotalBytes(), lookupTarget("sm_90")->maxSharedMemPerBlock);
  EXPECT_GT(plan.getTotalBytes(), lookupTarget("sm_80")->maxSharedMemPerBlock);
}

// The same graph, parsed twice, gets the same offsets: launches and PTX do
// not change from run to run.
TEST_F(SharedMemoryPlanTest, OffsetsAreDeterministic) {
  std::string source = readSourceFile("examples/attention.mlir");
  auto offsets = [&] {
    SmallVector<std::tuple<int64_t, int64_t, unsigned, unsigned>> all;
    for (kernel::CustomOp custom : customKernels(source)) {
      SharedMemoryPlan plan(custom);
      for (const SharedBuffer &buffer : plan.getBuffers())
        all.push_back(
            {buffer.offset, buffer.bytes, buffer.firstPoint, buffer.lastPoint});
    }
    return all;
  };
  auto first = offsets();
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, offsets());
}

} // namespace
