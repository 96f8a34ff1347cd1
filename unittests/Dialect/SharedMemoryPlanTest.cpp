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
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Support/Target.h"

#include "mlir/IR/PatternMatch.h"

#include "MLIRTest.h"

#include <map>
#include <regex>
#include <set>

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
    case AccumulatorStorage::MmaFragments:
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

/// The tiles written while `op` runs: its own (a load's copied later: none)
/// and the tiles of the loads copied during it.
SmallVector<Value> tilesWrittenBy(Operation &op) {
  if (auto load = dyn_cast<LoadOp>(op); load && getCopyIssueOp(load))
    return {};
  SmallVector<Value> tiles = tilesOf(op);
  for (Operation &other : *op.getBlock())
    if (auto load = dyn_cast<LoadOp>(other);
        load && getCopyIssueOp(load) == &op)
      tiles.push_back(load.getTile());
  return tiles;
}

/// Whether the plan writes `result` in place of `operand` (into its bytes).
bool isWrittenInPlaceOf(const SharedMemoryPlan &plan, Value result,
                        Value operand) {
  const SharedBuffer *buffer = plan.lookup(result);
  return buffer && buffer->inPlaceOf &&
         llvm::is_contained(buffersOf(plan, operand),
                            &plan.getBuffers()[*buffer->inPlaceOf]);
}

/// Checks that `result` may be written into the bytes of `operand`, by rules
/// read off the IR: `result` comes from an op that maps elements by index
/// and reads `operand`, of the same type (not broadcast), in the same block,
/// and nothing reads `operand` after that op (the loop's yield included); a
/// load is not carried by a loop of several iterations.
void expectMayBeWrittenInPlace(Value result, Value operand) {
  Operation *op = result.getDefiningOp();
  ASSERT_TRUE(op && op->hasTrait<OpTrait::ElementwiseByIndex>())
      << "in place, but not elementwise";
  EXPECT_TRUE(llvm::is_contained(op->getOperands(), operand))
      << "in place of a tile the op does not read";
  EXPECT_EQ(operand.getType(), result.getType()) << "in place of a broadcast";
  EXPECT_EQ(operand.getParentBlock(), op->getBlock())
      << "in place of a tile read in every iteration";
  for (Operation *user : operand.getUsers())
    EXPECT_TRUE(user == op || (user->getBlock() == op->getBlock() &&
                               user->isBeforeInBlock(op)))
        << "in place of a tile read later";
  if (auto load = operand.getDefiningOp<LoadOp>()) {
    EXPECT_EQ(cast<ForLoopOp>(load->getParentOp()).getIterations(), 1)
        << "in place of a load the loop carries";
  }
}

/// In `block`, a tile that op `user` reads is live from its definition (a
/// loaded tile: from its copy, in the prologue or at the op it overlaps) to
/// `user`: it shares no byte with the tiles written in between, `user`'s
/// own results included unless written in place of it.
void checkReadsInBlock(const SharedMemoryPlan &plan, Block &block) {
  for (Operation &user : block)
    for (Value read : user.getOperands()) {
      if (!isa<RankedTensorType>(read.getType()))
        continue;
      Operation *def = read.getDefiningOp();
      if (!def || def->getBlock() != &block)
        continue;
      Operation *from = def->getNextNode();
      if (auto load = dyn_cast<LoadOp>(def)) {
        Operation *issue = getCopyIssueOp(load);
        from = issue ? issue : &block.front();
      }
      for (Operation *op = from; op != user.getNextNode();
           op = op->getNextNode())
        for (Value written : tilesWrittenBy(*op)) {
          if (written == read ||
              (op == &user && isWrittenInPlaceOf(plan, written, read)))
            continue;
          expectDisjoint(plan, read, written, "read after a later write");
        }
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
  // `prologueLoads`: the loads whose copies the prologue issues, all but a
  // one-iteration loop's later ones.
  Buffers loads, prologueLoads, computed, accumulators;
  for (Operation &op : body.without_terminator())
    for (Value tile : op.getResults()) {
      auto load = dyn_cast<LoadOp>(op);
      (load ? loads : computed).append(buffersOf(plan, tile));
      if (load && !getCopyIssueOp(load))
        prologueLoads.append(buffersOf(plan, tile));
    }
  for (Value result : loop.getResults())
    if (const SharedBuffer *acc =
            plan.lookup(result, SharedBufferRole::Accumulator))
      accumulators.push_back(acc);

  Buffers prologue(accumulators);
  prologue.append(prologueLoads);
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

/// Checks that buffers live at the same time share no byte, except a result
/// written in place of an operand and that operand: they are live together
/// at the op that writes the one and last reads the other only, and share
/// all their bytes.
void checkOverlaps(const SharedMemoryPlan &plan) {
  ArrayRef<SharedBuffer> buffers = plan.getBuffers();
  for (const SharedBuffer &buffer : buffers)
    for (const SharedBuffer &other : buffers) {
      if (&buffer == &other || !buffer.isLiveWith(other))
        continue;
      if (buffer.inPlaceOf && &buffers[*buffer.inPlaceOf] == &other) {
        EXPECT_EQ(buffer.offset, other.offset);
        EXPECT_EQ(buffer.bytes, other.bytes);
        EXPECT_EQ(buffer.firstPoint, other.lastPoint);
        expectMayBeWrittenInPlace(buffer.value, other.value);
        continue;
      }
      if (other.inPlaceOf && &buffers[*other.inPlaceOf] == &buffer)
        continue;
      EXPECT_FALSE(buffer.overlapsBytesOf(other))
          << "live together: [" << buffer.offset << ", "
          << buffer.offset + buffer.bytes << ") and [" << other.offset << ", "
          << other.offset + other.bytes << ")"
          << (buffer.inPlaceOf || other.inPlaceOf
                  ? ", one written in place of a third tile"
                  : "");
    }
}

/// All of the plan's own invariants, and the IR's rules above.
void checkPlan(kernel::CustomOp op) {
  SharedMemoryPlan plan(op);
  int64_t end = 0;
  for (const SharedBuffer &buffer : plan.getBuffers()) {
    EXPECT_EQ(buffer.offset % kSharedBufferAlignment, 0);
    end = std::max(end, buffer.offset + buffer.bytes);
  }
  checkOverlaps(plan);
  // The end of the last buffer, rounded up to the alignment: the lowering's
  // 16-byte accesses read the padding after a tile.
  EXPECT_EQ(plan.getTotalBytes(), static_cast<int64_t>(llvm::alignTo(
                                      end, uint64_t(kSharedBufferAlignment))));
  EXPECT_EQ(estimateSharedMemoryBytes(op), plan.getTotalBytes());
  for (Operation &top : op.getBody().front()) {
    for (Value tile : tilesOf(top)) {
      // A matmul summed in registers writes no tile.
      if (auto matmul = tile.getDefiningOp<MatmulOp>();
          matmul && isAccumulatedInRegisters(matmul)) {
        EXPECT_TRUE(buffersOf(plan, tile).empty())
            << "bytes for a matmul summed in registers";
        continue;
      }
      EXPECT_FALSE(buffersOf(plan, tile).empty() ||
                   llvm::is_contained(buffersOf(plan, tile), nullptr))
          << "a tile without bytes";
    }
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
        "test/Target/GPU/split-reduction.mlir",
        "test/Target/GPU/register-accumulators.mlir"}) {
    SCOPED_TRACE(path.str());
    SmallVector<kernel::CustomOp> customs = customKernels(readSourceFile(path));
    EXPECT_FALSE(customs.empty());
    for (kernel::CustomOp custom : customs)
      checkPlan(custom);
  }
}

// Flash decoding in f32 (examples/attention.mlir): its first kernel's tiles
// add up to 311808 bytes and its buffers to 298240, more than any chip's
// block has. V is copied while exp(S) computes and exp(S) is written in
// place of S, so at most Q, K and S, or V, exp(S) and their product
// (2 x 64 KiB + 16 KiB, and 2 KiB of the padding of the rows that tensor
// cores write and read) are live at once: it fits sm_80.
TEST_F(SharedMemoryPlanTest, FlashDecodingInF32FitsSm80) {
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
  EXPECT_EQ(bufferBytes, 299264);
  EXPECT_EQ(plan.getTotalBytes(), 150528);
  EXPECT_LE(plan.getTotalBytes(), lookupTarget("sm_80")->maxSharedMemPerBlock);

  // Both changes were needed: V, S and exp(S) during exp, or Q, K, V and S
  // during the first matmul, would not fit.
  auto loop = *partials.getBody().getOps<ForLoopOp>().begin();
  auto loads = llvm::to_vector(loop.getBody().getOps<LoadOp>());
  ASSERT_EQ(loads.size(), 3u);
  auto graph = *loop.getBody().getOps<thread::GraphOp>().begin();
  EXPECT_EQ(getCopyIssueOp(loads[0]), nullptr);              // Q
  EXPECT_EQ(getCopyIssueOp(loads[1]), nullptr);              // K
  EXPECT_EQ(getCopyIssueOp(loads[2]), graph.getOperation()); // V
  EXPECT_TRUE(
      isWrittenInPlaceOf(plan, graph.getResult(0), graph.getInputs()[0]));
  // S, which the tensor cores write (4 rows of 32 bytes a phase), and
  // exp(S) in its place, which tf32 A fragments read (8 rows of 16 bytes),
  // have rows padded by 16 bytes, the shorter padding of two that each
  // leave one of the accesses 2-way; the loaded tiles keep theirs. (E V,
  // an mma result only, gets 32 bytes: 1024 more in all.)
  Value scores = graph.getInputs()[0];
  int64_t keys = cast<RankedTensorType>(scores.getType()).getShape().back();
  EXPECT_EQ(plan.lookup(scores)->rowPitch, keys + 4);
  EXPECT_EQ(plan.lookup(graph.getResult(0))->rowPitch, keys + 4);
  for (LoadOp load : loads)
    EXPECT_EQ(
        plan.lookup(load.getTile())->rowPitch,
        cast<RankedTensorType>(load.getTile().getType()).getShape().back());
  checkPlan(partials);

  // On a chip with a byte less, the padding goes rather than the kernel:
  // no row is padded, and the plan fits.
  SharedMemoryPlan tight(partials, plan.getTotalBytes() - 1);
  EXPECT_EQ(tight.getTotalBytes(), 147456);
  EXPECT_EQ(tight.lookup(scores)->rowPitch, keys);
  for (const SharedBuffer &buffer : tight.getBuffers())
    EXPECT_EQ(buffer.rowPitch,
              cast<RankedTensorType>(buffer.value.getType()).getShape().back());
  EXPECT_EQ(estimateSharedMemoryBytes(partials, 147456), 147456);
}

/// Shared-memory wavefronts of one phase of a warp access (the lanes the
/// hardware serves together: all 32 for 4-byte accesses, a half-warp for 8
/// bytes, 8 lanes for 16), each lane touching `bytes` bytes at its byte
/// address: the most distinct 4-byte words any of the 32 banks holds.
static int64_t wavefronts(ArrayRef<int64_t> addresses, int64_t bytes) {
  std::map<int64_t, std::set<int64_t>> wordsOfBank;
  for (int64_t a : addresses)
    for (int64_t w = a / 4; w < (a + bytes + 3) / 4; ++w)
      wordsOfBank[w % 32].insert(w);
  int64_t worst = 0;
  for (auto &[bank, words] : wordsOfBank)
    worst = std::max<int64_t>(worst, words.size());
  return worst;
}

/// The lowering's accesses, lane by lane, for rows `pitch` bytes apart (g =
/// lane / 4, t = lane % 4). An mma.sync result store: row g, columns 2t and
/// 2t + 1, one store of both (16-bit: 4 bytes, one phase of 32 lanes;
/// 32-bit: 8 bytes, a phase per half-warp, whose lanes reach rows 0-3).
static SmallVector<int64_t> fragmentStore(int64_t pitch, int64_t bytes,
                                          int64_t lanes) {
  SmallVector<int64_t> at;
  for (int64_t lane = 0; lane < lanes; ++lane)
    at.push_back((lane / 4) * pitch + 2 * (lane % 4) * bytes);
  return at;
}

const TileRowAccess kEightRows{8, 16}, kFourRows{4, 32};

// The padding puts each access the lowering makes a few rows at a time into
// the fewest wavefronts its bytes allow, where the unpadded rows take 2 to 8
// times as many: for 16-bit tiles, the mma result store and the ldmatrix
// phases (8 rows of 16 bytes); for 32-bit tiles, the mma result store by
// half-warps and tf32 B fragment loads (lane: row t, column g), 4 rows of 32
// bytes. Rows of 32 and 64 bytes as well as whole 128-byte lines.
TEST(SharedMemoryPlanRowPitch, RowAccessesTakeTheFewestWavefronts) {
  for (unsigned bits : {16u, 32u}) {
    int64_t bytes = bits / 8;
    for (int64_t rowBytes : {32, 64, 128, 256, 512, 1024}) {
      int64_t row = rowBytes / bytes;
      SmallVector<TileRowAccess> accesses = {bits == 16 ? kEightRows
                                                        : kFourRows};
      int64_t pitch =
          getComputedTileRowPitch({64, row}, bits, accesses) * bytes;
      EXPECT_LE(pitch - rowBytes, 32);
      if (bits == 16) {
        EXPECT_EQ(wavefronts(fragmentStore(pitch, 2, 32), 4), 1)
            << "rows of " << rowBytes << " bytes";
        SmallVector<int64_t> phase;
        for (int64_t r = 0; r < 8; ++r)
          phase.push_back(r * pitch);
        EXPECT_EQ(wavefronts(phase, 16), 1) << "ldmatrix, " << rowBytes;
        if (rowBytes >= 64) {
          EXPECT_GE(wavefronts(fragmentStore(rowBytes, 2, 32), 4), 2);
        }
      } else {
        EXPECT_EQ(wavefronts(fragmentStore(pitch, 4, 16), 8), 1)
            << "rows of " << rowBytes << " bytes";
        SmallVector<int64_t> tf32B;
        for (int64_t lane = 0; lane < 32; ++lane)
          tf32B.push_back((lane % 4) * pitch + (lane / 4) * 4);
        EXPECT_EQ(wavefronts(tf32B, 4), 1) << "tf32 B, " << rowBytes;
        // Unpadded, or padded by 16 bytes as for 8 rows: 2-way or worse.
        if (rowBytes >= 64) {
          EXPECT_GE(wavefronts(fragmentStore(rowBytes, 4, 16), 8), 2);
        }
        EXPECT_EQ(wavefronts(fragmentStore(rowBytes + 16, 4, 16), 8), 2);
      }
    }
  }
  // tf32 A loads (lane: row g, column t) want 8 rows at 16 bytes apart.
  int64_t pitch = getComputedTileRowPitch({64, 64}, 32, {kEightRows}) * 4;
  SmallVector<int64_t> tf32A;
  for (int64_t lane = 0; lane < 32; ++lane)
    tf32A.push_back((lane / 4) * pitch + (lane % 4) * 4);
  EXPECT_EQ(wavefronts(tf32A, 4), 1);
}

// The pitch minimizes the excess wavefronts of all the tile's accesses
// together; where they want different paddings, the shorter of equals.
TEST(SharedMemoryPlanRowPitch, BalancesTheTilesAccesses) {
  for (int64_t pad : {0, 16, 32, 48})
    EXPECT_GE(getExcessWavefronts(kEightRows, 256 + pad) +
                  getExcessWavefronts(kFourRows, 256 + pad),
              1)
        << pad;
  // A 32-bit mma result that tf32 A fragments read: one 2-way access at
  // either padding, so the shorter.
  EXPECT_EQ(getComputedTileRowPitch({32, 64}, 32, {kFourRows, kEightRows}), 68);
  EXPECT_EQ(getExcessWavefronts(kEightRows, 256), 7);
  EXPECT_EQ(getExcessWavefronts(kEightRows, 272), 0);
  EXPECT_EQ(getExcessWavefronts(kFourRows, 272), 1);
  EXPECT_EQ(getExcessWavefronts(kFourRows, 288), 0);
  // A row reduction by 8 lanes a row reads 4 rows of 8 words.
  EXPECT_EQ(getComputedTileRowPitch({32, 64}, 32, {{4, 32}}), 72);
  // An 8x16 f16 tile (32-byte rows) that a thread graph writes in 16-byte
  // pieces (4 rows a phase) and ldmatrix reads: either padding leaves one
  // of them 2-way; the tensor cores' reads weigh more.
  const TileRowAccess pieces{4, 32};
  EXPECT_EQ(getComputedTileRowPitch({8, 16}, 16, {pieces, {8, 16, 1}}), 16);
  EXPECT_EQ(getComputedTileRowPitch({8, 16}, 16, {pieces, {8, 16, 2}}), 24);
}

// Which rows get padding, and how much.
TEST(SharedMemoryPlanRowPitch, PadsOnlyWhereItSavesWavefronts) {
  EXPECT_EQ(getComputedTileRowPitch({64, 256}, 16, {kEightRows}), 264);
  EXPECT_EQ(getComputedTileRowPitch({64, 64}, 16, {kEightRows}), 72);
  EXPECT_EQ(getComputedTileRowPitch({64, 48}, 16, {kEightRows}), 56);
  EXPECT_EQ(getComputedTileRowPitch({64, 32}, 16, {kEightRows}), 40);
  EXPECT_EQ(getComputedTileRowPitch({64, 16}, 16, {kEightRows}), 24);
  EXPECT_EQ(getComputedTileRowPitch({64, 8}, 16, {kEightRows}), 8);
  EXPECT_EQ(getComputedTileRowPitch({64, 24}, 16, {kEightRows}), 24);
  EXPECT_EQ(getComputedTileRowPitch({2, 32, 256}, 32, {kFourRows}), 264);
  EXPECT_EQ(getComputedTileRowPitch({16, 32}, 32, {kFourRows}), 40);
  EXPECT_EQ(getComputedTileRowPitch({16, 32}, 32, {kEightRows}), 36);
  EXPECT_EQ(getComputedTileRowPitch({16, 16}, 32, {kFourRows}), 24);
  EXPECT_EQ(getComputedTileRowPitch({16, 8}, 32, {kFourRows}), 8);
  // One row, no such access, rows not whole 16-byte chunks, 8-bit.
  EXPECT_EQ(getComputedTileRowPitch({1, 1, 256}, 16, {kEightRows}), 256);
  EXPECT_EQ(getComputedTileRowPitch({64, 256}, 16, {}), 256);
  EXPECT_EQ(getComputedTileRowPitch({64, 36}, 16, {kEightRows}), 36);
  EXPECT_EQ(getComputedTileRowPitch({64, 128}, 8, {kEightRows}), 128);
  EXPECT_EQ(getComputedTileRowPitch({256}, 16, {kEightRows}), 256);
}

// Which results of the lowering test's @in_place kernel take over an
// operand's bytes, and which may not.
TEST_F(SharedMemoryPlanTest, InPlaceOnlyOverOperandsThatDieAtTheOp) {
  SmallVector<kernel::CustomOp> customs = customKernels(readSourceFile(
      "test/Conversion/CustomKernelToGPU/shared-memory-plan.mlir"));
  auto func = lookupFunc(*module, "in_place");
  ASSERT_TRUE(func);
  kernel::CustomOp custom = *func.getOps<kernel::CustomOp>().begin();
  SharedMemoryPlan plan(custom);
  auto loop = *custom.getBody().getOps<ForLoopOp>().begin();
  auto ops = llvm::map_to_vector(loop.getBody().front(),
                                 [](Operation &op) { return &op; });
  ASSERT_EQ(ops.size(), 7u); // t, r, e, s, m, b, yield
  Value t = ops[0]->getResult(0), r = ops[1]->getResult(0),
        e = ops[2]->getResult(0), s = ops[3]->getResult(0),
        m = ops[4]->getResult(0), b = ops[5]->getResult(0);
  EXPECT_TRUE(isWrittenInPlaceOf(plan, e, t));
  // %e is read again by %m.
  EXPECT_FALSE(plan.lookup(s)->inPlaceOf);
  // Both operands die at %m; it takes the first.
  EXPECT_TRUE(isWrittenInPlaceOf(plan, m, s));
  EXPECT_FALSE(isWrittenInPlaceOf(plan, m, e));
  // %r is broadcast: other threads read its elements.
  EXPECT_TRUE(isWrittenInPlaceOf(plan, b, m));
  EXPECT_FALSE(isWrittenInPlaceOf(plan, b, r));
  // Live from the op it overlaps (%m) to %b, not from the prologue.
  EXPECT_EQ(getCopyIssueOp(cast<LoadOp>(ops[1])), ops[4]);
  EXPECT_EQ(plan.lookup(r)->firstPoint, plan.lookup(m)->firstPoint);
  EXPECT_EQ(plan.getTotalBytes(), 2 * 65536 + 512);
  checkPlan(custom);
}

// A sum of a matmul kept in registers has no buffer in the loop: neither
// the matmul's product nor an f32 accumulator; its result tile is written
// after the loop only. A product read otherwise, or more than 32 fragments
// per warp, keep the shared-memory accumulator.
TEST_F(SharedMemoryPlanTest, MatmulSumsInRegistersHaveNoBuffersInTheLoop) {
  SmallVector<kernel::CustomOp> customs = customKernels(
      readSourceFile("test/Target/GPU/register-accumulators.mlir"));
  ASSERT_EQ(customs.size(), 3u);
  auto firstLoop = [](kernel::CustomOp custom) {
    return *custom.getBody().getOps<ForLoopOp>().begin();
  };
  auto matmulOf = [](ForLoopOp loop) {
    return *loop.getBody().getOps<MatmulOp>().begin();
  };

  ForLoopOp guarded = firstLoop(customs[0]);
  MatmulOp product = matmulOf(guarded);
  EXPECT_EQ(getAccumulatorStorage(guarded, 0),
            AccumulatorStorage::MmaFragments);
  EXPECT_EQ(getRegisterAccumulatedMatmul(guarded, 0), product);
  EXPECT_TRUE(isAccumulatedInRegisters(product));
  std::optional<MmaFragmentGrid> grid = getMmaFragments(product, 128);
  ASSERT_TRUE(grid);
  EXPECT_EQ(grid->count, 5);
  EXPECT_EQ(grid->perWarp(), 2);
  EXPECT_EQ(grid->kSteps, 2);
  EXPECT_FALSE(grid->padded);
  SharedMemoryPlan plan(customs[0]);
  EXPECT_FALSE(plan.lookup(product.getResult()));
  EXPECT_FALSE(
      plan.lookup(guarded.getResult(0), SharedBufferRole::Accumulator));
  const SharedBuffer *result = plan.lookup(guarded.getResult(0));
  ASSERT_TRUE(result);
  for (const SharedBuffer &buffer : plan.getBuffers()) {
    if (buffer.value.getDefiningOp<LoadOp>()) {
      EXPECT_EQ(result->firstPoint, buffer.lastPoint)
          << "the result tile is written at the loop's end";
    }
  }
  // Both buffers of X (16x32) and W (32x40) tiles, and the 16x40 result.
  EXPECT_EQ(plan.getTotalBytes(), 2 * 1024 + 2 * 2560 + 1280);

  ForLoopOp readTwice = firstLoop(customs[1]);
  EXPECT_EQ(getAccumulatorStorage(readTwice, 0),
            AccumulatorStorage::AccumulatorAndResult);
  EXPECT_FALSE(isAccumulatedInRegisters(matmulOf(readTwice)));

  ForLoopOp tooMany = firstLoop(customs[2]);
  std::optional<MmaFragmentGrid> tooManyGrid =
      getMmaFragments(matmulOf(tooMany), 64);
  ASSERT_TRUE(tooManyGrid);
  EXPECT_EQ(tooManyGrid->perWarp(), 36);
  EXPECT_GT(tooManyGrid->perWarp(), kMaxRegisterFragmentsPerWarp);
  EXPECT_EQ(getAccumulatorStorage(tooMany, 0),
            AccumulatorStorage::AccumulatorAndResult);
}

// n not a multiple of 8 or k not one of the k step: the fragments cover the
// result and k, padded past them, and run on tensor cores all the same.
TEST_F(SharedMemoryPlanTest, OddMatmulTilesGetPaddedFragments) {
  // The file's reference functions get default block graphs too: every
  // other custom kernel is the hand-written one.
  SmallVector<kernel::CustomOp> all = customKernels(
      readSourceFile("test/Conversion/CustomKernelToGPU/padded-mma.mlir"));
  ASSERT_EQ(all.size(), 6u);
  SmallVector<kernel::CustomOp> customs = {all[0], all[2], all[4]};
  auto matmulIn = [](kernel::CustomOp custom) {
    MatmulOp found;
    custom.walk([&](MatmulOp matmul) { found = matmul; });
    return found;
  };
  EXPECT_EQ(customs[1]->getParentOfType<func::FuncOp>().getSymName(),
            "register_sum");
  // 32 x 100 by k = 40 in f16: 2 x 13 fragments, 3 k steps of 16.
  std::optional<MmaFragmentGrid> odd =
      getMmaFragments(matmulIn(customs[0]), 128);
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->shape, (SmallVector<int64_t>{2, 13}));
  EXPECT_EQ(odd->count, 26);
  EXPECT_EQ(odd->kStep, 16);
  EXPECT_EQ(odd->kSteps, 3);
  EXPECT_TRUE(odd->padded);
  // 16 x 24 by k = 20 chunks, summed in registers over the loop.
  MatmulOp chunk = matmulIn(customs[1]);
  std::optional<MmaFragmentGrid> chunkGrid = getMmaFragments(chunk, 128);
  ASSERT_TRUE(chunkGrid);
  EXPECT_EQ(chunkGrid->kSteps, 2);
  EXPECT_TRUE(chunkGrid->padded);
  EXPECT_TRUE(isAccumulatedInRegisters(chunk));
  // Not whole warps: no tensor cores.
  EXPECT_FALSE(getMmaFragments(chunk, 48));
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

TEST(ReductionLanes, AtLeastEightElementsPerLaneUpToAWarp) {
  // Rows too short for two lanes of 8 stay with one lane each.
  EXPECT_EQ(block::getReductionLanesPerRow(1), 1);
  EXPECT_EQ(block::getReductionLanesPerRow(15), 1);
  EXPECT_EQ(block::getReductionLanesPerRow(16), 2);
  // An attention tile's 64 keys: 8 lanes, 4 rows per warp at once.
  EXPECT_EQ(block::getReductionLanesPerRow(64), 8);
  EXPECT_EQ(block::getReductionLanesPerRow(100), 8);
  EXPECT_EQ(block::getReductionLanesPerRow(256), 32);
  EXPECT_EQ(block::getReductionLanesPerRow(4096), 32);
}

// A walk over k loads an operand fragment once for all the items that
// read it. Two items may share one only if, in every warp, their result
// fragments have the same batch index and row (A) or batch index and
// column (B), and must share it if so. Checked against the fragments'
// coordinates over grids with batch dims, with fewer and more columns than
// warps, and with a last item that some warps do not have.
TEST(MmaFragmentGrid, ItemsShareExactlyTheOperandFragmentsTheyRead) {
  struct Case {
    SmallVector<int64_t> shape;
    int64_t warps;
  };
  for (const Case &c : {Case{{2, 32}, 4}, Case{{4, 32}, 4}, Case{{1, 5}, 4},
                        Case{{2, 2}, 4}, Case{{8, 3}, 4}, Case{{3, 4, 2}, 4},
                        Case{{2, 4, 8}, 8}, Case{{6, 12}, 8}}) {
    MmaFragmentGrid grid;
    grid.shape = c.shape;
    grid.warps = c.warps;
    grid.count = 1;
    for (int64_t s : c.shape)
      grid.count *= s;
    grid.kStep = 16;
    grid.kSteps = 1;
    grid.padded = false;
    int64_t rank = c.shape.size();
    // (batch..., row, col) of item j of warp w, row-major.
    auto coordinates = [&](int64_t j, int64_t w) {
      int64_t f = std::min(w + j * grid.warps, grid.count - 1);
      SmallVector<int64_t> at(rank);
      for (int64_t d = rank - 1; d >= 0; --d) {
        at[d] = f % c.shape[d];
        f /= c.shape[d];
      }
      return at;
    };
    auto operandCoordinates = [&](int64_t j, int64_t w, bool lhs) {
      SmallVector<int64_t> at = coordinates(j, w);
      // A: drop the column; B: drop the row.
      at.erase(at.begin() + (lhs ? rank - 1 : rank - 2));
      return at;
    };
    int64_t perWarp = grid.perWarp();
    for (int64_t first = 0; first < perWarp; first += 3) {
      int64_t n = std::min<int64_t>(5, perWarp - first);
      for (bool lhs : {true, false}) {
        SmallVector<unsigned> same =
            grid.firstItemsWithSameOperand(first, n, lhs);
        ASSERT_EQ(static_cast<int64_t>(same.size()), n);
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_LE(same[i], i);
          for (int64_t p = 0; p <= i; ++p) {
            bool equalInEveryWarp = true;
            for (int64_t w = 0; w < grid.warps; ++w)
              equalInEveryWarp &= operandCoordinates(first + p, w, lhs) ==
                                  operandCoordinates(first + i, w, lhs);
            if (p < static_cast<int64_t>(same[i])) {
              EXPECT_FALSE(equalInEveryWarp)
                  << "item " << first + i << " shares with a later item";
            }
            if (p == static_cast<int64_t>(same[i])) {
              EXPECT_TRUE(equalInEveryWarp)
                  << "item " << first + i << " reads another fragment than "
                  << first + p << (lhs ? " (A)" : " (B)");
            }
          }
        }
      }
    }
  }
  // The attention scores of test/Target/GPU/mma-walks.mlir: 2 A and 8 B
  // fragments for a warp's 16 items.
  MmaFragmentGrid scores;
  scores.shape = {2, 32};
  scores.warps = 4;
  scores.count = 64;
  scores.kStep = 16;
  scores.kSteps = 4;
  scores.padded = false;
  EXPECT_EQ(scores.kWalks(), 1);
  auto distinct = [](ArrayRef<unsigned> same) {
    int64_t n = 0;
    for (auto [i, s] : llvm::enumerate(same))
      n += s == i;
    return n;
  };
  EXPECT_EQ(distinct(scores.firstItemsWithSameOperand(0, 16, true)), 2);
  EXPECT_EQ(distinct(scores.firstItemsWithSameOperand(0, 16, false)), 8);
  scores.shape = {4, 32};
  scores.count = 128;
  EXPECT_EQ(scores.kWalks(), 2);
}

} // namespace

TEST_F(SharedMemoryPlanTest,
       ElementwiseVectorsHoldSixteenBytesOfTheWidestType) {
  SmallVector<kernel::CustomOp> customs = customKernels(R"mlir(
func.func @k(%x: tensor<8x4096xf32>, %h: tensor<8x4096xf16>, %r: tensor<8x1xf32>,
             %odd: tensor<8x10xf16>) -> tensor<8x4096xf32> {
  %o = kernel.custom (%x, %h, %r, %odd) grid <8, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf32>, tensor<8x4096xf16>, tensor<8x1xf32>, tensor<8x10xf16>)
        -> tensor<8x4096xf32> {
  ^bb0(%in0: tensor<8x4096xf32>, %in1: tensor<8x4096xf16>, %in2: tensor<8x1xf32>,
       %in3: tensor<8x10xf16>, %out0: tensor<8x4096xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<1x4096xf32> {
      %a = block.load %in0 imap <x = 0> : tensor<8x4096xf32> -> tensor<1x4096xf32>
      %b = block.load %in1 imap <x = 0> : tensor<8x4096xf16> -> tensor<1x4096xf16>
      %s = block.load %in2 imap <x = 0> : tensor<8x1xf32> -> tensor<1x1xf32>
      %t = block.load %in3 imap <x = 0> : tensor<8x10xf16> -> tensor<1x10xf16>
      %f32 = block.add %a, %a : tensor<1x4096xf32>, tensor<1x4096xf32>
      %f16 = block.mul %b, %b : tensor<1x4096xf16>, tensor<1x4096xf16>
      %bcast = thread.graph(%b, %s) : (tensor<1x4096xf16>, tensor<1x1xf32>) -> tensor<1x4096xf16> {
      ^bb0(%e: f16, %row: f32):
        %w = thread.convert %e : f16 to f32
        %p = thread.binary mul %w, %row : f32
        %n = thread.convert %p : f32 to f16
        thread.yield %n : f16
      }
      %ten = block.exp %t : tensor<1x10xf16>
      %mixed = thread.graph(%b) : (tensor<1x4096xf16>) -> tensor<1x4096xf32> {
      ^bb0(%e: f16):
        %c = thread.convert %e : f16 to f32
        thread.yield %c : f32
      }
      block.yield %mixed : tensor<1x4096xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<1x4096xf32> into tensor<8x4096xf32>
    block.return
  }
  return %o : tensor<8x4096xf32>
}
)mlir");
  ASSERT_EQ(customs.size(), 1u);
  SmallVector<int64_t> widths;
  customs.front().walk([&](Operation *op) {
    auto graph = dyn_cast<thread::GraphOp>(op);
    if (!graph && (!hasThreadForm(op) || !isa<ForLoopOp>(op->getParentOp())))
      return;
    widths.push_back(getElementwiseVectorWidth(
        cast<ShapedType>(op->getResult(0).getType()).getShape(),
        graph ? graph.getInputs() : op->getOperands(), op->getResults()));
  });
  // In program order: %f32, %f16, %bcast, %ten, %mixed.
  // 16 bytes: 4 f32, 8 f16; where f16 and f32 mix (%mixed), the f32's 4. A
  // row's one f32 broadcast along it (%bcast) is read once per vector and
  // does not narrow it. Rows of 10 (%ten) take 2 at a time, the largest
  // power of two dividing them.
  EXPECT_EQ(widths, (SmallVector<int64_t>{4, 8, 8, 2, 4}));
}
