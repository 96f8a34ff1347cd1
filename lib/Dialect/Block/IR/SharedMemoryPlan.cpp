//===- SharedMemoryPlan.cpp - Where a block graph's tiles live ------------===//

#include "mlsopt/Dialect/Block/IR/SharedMemoryPlan.h"
#include "mlsopt/Support/TileShapes.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::block;

int64_t mlsopt::block::getReductionLanesPerRow(int64_t rowLength) {
  constexpr int64_t kWarpSize = 32, kMinElementsPerLane = 8;
  int64_t lanes = 1;
  while (lanes < kWarpSize && rowLength / (2 * lanes) >= kMinElementsPerLane)
    lanes *= 2;
  return lanes;
}

bool mlsopt::block::broadcastsAlongRows(ArrayRef<int64_t> operandShape,
                                        ArrayRef<int64_t> shape) {
  return !operandShape.empty() && !shape.empty() && operandShape.back() == 1 &&
         shape.back() != 1;
}

int64_t mlsopt::block::getElementwiseVectorWidth(ArrayRef<int64_t> shape,
                                                 ValueRange operands,
                                                 ValueRange results) {
  if (shape.empty())
    return 1;
  auto bitWidth = [](Value v) {
    return cast<ShapedType>(v.getType()).getElementTypeBitWidth();
  };
  if (llvm::any_of(operands, [&](Value v) { return bitWidth(v) < 8; }))
    return 1;
  int64_t width = kElementwiseVectorBytes;
  auto narrowTo = [&](Value v) {
    width = std::min<int64_t>(width, kElementwiseVectorBytes /
                                         llvm::divideCeil(bitWidth(v), 8));
  };
  for (Value operand : operands)
    if (!broadcastsAlongRows(cast<ShapedType>(operand.getType()).getShape(),
                             shape))
      narrowTo(operand);
  llvm::for_each(results, narrowTo);
  while (width > 1 && shape.back() % width != 0)
    width /= 2;
  return width;
}

int64_t MmaFragmentGrid::kWalks() const {
  return llvm::divideCeil(perWarp(), kMaxFragmentsPerKWalk);
}

SmallVector<unsigned>
MmaFragmentGrid::firstItemsWithSameOperand(int64_t first, int64_t n,
                                           bool lhs) const {
  int64_t cols = shape.back();
  int64_t rowsAndCols = shape[shape.size() - 2] * cols;
  // Fragments are numbered row-major over (batch..., row, col): f / cols is
  // the batch index and row together, f / rowsAndCols the batch index.
  auto operandOf = [&](int64_t j, int64_t w) {
    int64_t f = std::min(w + j * warps, count - 1);
    return lhs ? f / cols : (f / rowsAndCols) * cols + f % cols;
  };
  SmallVector<unsigned> firstWith;
  for (int64_t i = 0; i < n; ++i) {
    int64_t same = i;
    for (int64_t p = 0; p < i && same == i; ++p)
      if (llvm::all_of(llvm::seq<int64_t>(0, warps), [&](int64_t w) {
            return operandOf(first + p, w) == operandOf(first + i, w);
          }))
        same = p;
    firstWith.push_back(static_cast<unsigned>(same));
  }
  return firstWith;
}

std::optional<MmaFragmentGrid>
mlsopt::block::getMmaFragments(MatmulOp matmul, int64_t numThreads) {
  constexpr int64_t kWarpSize = 32;
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  ArrayRef<int64_t> result =
      cast<RankedTensorType>(matmul.getResult().getType()).getShape();
  Type element = lhs.getElementType();
  int64_t rank = result.size();
  int64_t m = result[rank - 2], n = result[rank - 1], k = lhs.getShape().back();
  // Fragments are 16x8; m16n8k16 steps k by 16, m16n8k8 steps it by 8.
  // Rows past m are clamped and columns past n too; k past its end reads
  // zeros. So any shape works, the odd ones at the price of element loads.
  int64_t kStep = element.isF16() || element.isBF16() ? 16
                  : element.isF32()                   ? 8
                                                      : 0;
  if (numThreads <= 0 || numThreads % kWarpSize != 0 || kStep == 0 || n <= 0 ||
      k <= 0)
    return std::nullopt;
  MmaFragmentGrid grid;
  grid.shape.assign(result.begin(), result.end() - 2);
  grid.shape.push_back(llvm::divideCeil(m, 16));
  grid.shape.push_back(llvm::divideCeil(n, 8));
  grid.kStep = kStep;
  grid.kSteps = llvm::divideCeil(k, kStep);
  // ldmatrix reads 16-byte rows of 8 elements along k (A) and along n (B,
  // and the B view of an n x k tile along k).
  grid.padded = n % 8 != 0 || k % kStep != 0;
  grid.count = 1;
  for (int64_t s : grid.shape)
    grid.count *= s;
  grid.warps = numThreads / kWarpSize;
  return grid;
}

MatmulOp mlsopt::block::getRegisterAccumulatedMatmul(ForLoopOp loop,
                                                     unsigned result) {
  if (loop.getAccumulator(result).getKind() != AccumKind::sum ||
      loop.getIterations() < 2)
    return nullptr;
  auto yield = cast<YieldOp>(loop.getBody().front().getTerminator());
  Value yielded = yield.getValues()[result];
  auto matmul = yielded.getDefiningOp<MatmulOp>();
  // Read by anything else in the body, the product must be in shared memory
  // in every iteration anyway.
  if (!matmul || matmul->getBlock() != yield->getBlock() ||
      !yielded.hasOneUse() ||
      yielded.getType() != loop.getResult(result).getType())
    return nullptr;
  auto custom = cast<kernel::CustomOp>(loop->getParentOp());
  std::optional<MmaFragmentGrid> fragments =
      getMmaFragments(matmul, custom.getBlock().getVolume());
  // Past the bound the registers would spill: keep the f32 accumulator in
  // shared memory.
  if (!fragments || fragments->perWarp() > kMaxRegisterFragmentsPerWarp)
    return nullptr;
  return matmul;
}

bool mlsopt::block::isAccumulatedInRegisters(MatmulOp matmul) {
  Value product = matmul.getResult();
  if (!product.hasOneUse())
    return false;
  OpOperand &use = *product.use_begin();
  auto yield = dyn_cast<YieldOp>(use.getOwner());
  return yield &&
         getRegisterAccumulatedMatmul(cast<ForLoopOp>(yield->getParentOp()),
                                      use.getOperandNumber()) == matmul;
}

AccumulatorStorage mlsopt::block::getAccumulatorStorage(ForLoopOp loop,
                                                        unsigned result) {
  if (getRegisterAccumulatedMatmul(loop, result))
    return AccumulatorStorage::MmaFragments;
  AccumKind kind = loop.getAccumulator(result).getKind();
  bool sumOrMax = kind == AccumKind::sum || kind == AccumKind::max;
  // A rescale reads its max accumulator's running value, so a loop with one
  // keeps all its accumulators.
  bool hasRescale = llvm::any_of(loop.getAccumulators(), [](Attribute a) {
    return cast<AccumulatorAttr>(a).getKind() == AccumKind::rescale;
  });
  if (loop.getIterations() == 1 && sumOrMax && !hasRescale)
    return AccumulatorStorage::YieldedTile;
  auto type = cast<RankedTensorType>(loop.getResult(result).getType());
  return type.getElementType().isF32() && sumOrMax
             ? AccumulatorStorage::AccumulatorIsResult
             : AccumulatorStorage::AccumulatorAndResult;
}

bool mlsopt::block::isTransposedMatmulView(TransposeOp op) {
  ArrayRef<int64_t> permutation = op.getPermutation();
  int64_t rank = permutation.size();
  if (rank < 2 || permutation[rank - 2] != rank - 1 ||
      permutation[rank - 1] != rank - 2)
    return false;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (permutation[d] != d)
      return false;
  // A loop result may live in its f32 accumulator or as the yielded tile,
  // which the plan does not keep for the view's readers: it is copied.
  if (isa_and_nonnull<ForLoopOp>(op.getInput().getDefiningOp()))
    return false;
  Value view = op.getResult();
  int64_t rows = cast<RankedTensorType>(view.getType()).getDimSize(rank - 2);
  return !view.use_empty() && llvm::all_of(view.getUses(), [&](OpOperand &use) {
    auto matmul = dyn_cast<MatmulOp>(use.getOwner());
    if (!matmul || matmul.getLhs() == matmul.getRhs())
      return false;
    return matmul.getRhs() == view ||
           (matmul.getLhs() == view && rows % 16 == 0);
  });
}

bool mlsopt::block::isDoubleBuffered(LoadOp load) {
  auto loop = dyn_cast<ForLoopOp>(load->getParentOp());
  return loop && load.getFmap() && loop.getIterations() > 1;
}

Operation *mlsopt::block::getCopyIssueOp(LoadOp load) {
  // A load outside the loop is copied by the prologue of the loop before
  // it (getLoopBefore).
  auto loop = dyn_cast<ForLoopOp>(load->getParentOp());
  if (!loop || loop.getIterations() > 1)
    return nullptr;
  Block &body = loop.getBody().front();
  Operation *firstReader = nullptr;
  for (Operation *user : load.getTile().getUsers()) {
    Operation *reader = body.findAncestorOpInBlock(*user);
    if (!firstReader || reader->isBeforeInBlock(firstReader))
      firstReader = reader;
  }
  // A tile only the accumulator update reads is copied with the others.
  if (!firstReader || isa<YieldOp>(firstReader))
    return nullptr;
  // Loads compute nothing: the copy overlaps the body op that does.
  for (Operation *op = firstReader->getPrevNode(); op; op = op->getPrevNode())
    if (!isa<LoadOp>(op))
      return op;
  return nullptr;
}

ForLoopOp mlsopt::block::getLoopBefore(LoadOp load) {
  if (isa<ForLoopOp>(load->getParentOp()))
    return {};
  for (Operation *op = load->getPrevNode(); op; op = op->getPrevNode())
    if (auto loop = dyn_cast<ForLoopOp>(op))
      return loop;
  return {};
}

namespace {

constexpr int64_t kMaxBytes = std::numeric_limits<int64_t>::max();

/// Byte arithmetic that saturates: an absurd tile must never look small.
int64_t saturatingAdd(int64_t a, int64_t b) {
  return llvm::checkedAdd(a, b).value_or(kMaxBytes);
}
int64_t alignBufferOffset(int64_t offset) {
  if (offset > kMaxBytes - kSharedBufferAlignment)
    return kMaxBytes;
  return llvm::alignTo(offset, kSharedBufferAlignment);
}

/// The accesses by which warps read or write `tile`, in `bits`-bit
/// elements, several rows at once (TileRowAccess): tensor-core result
/// fragments, operands that ldmatrix or tf32 fragment loads read, and row
/// reductions that give a row fewer lanes than a warp. `fragmentResult`: a
/// loop result that the warps write from their mma registers.
SmallVector<TileRowAccess> rowAccessesOf(Value tile, unsigned bits,
                                         bool fragmentResult = false) {
  SmallVector<TileRowAccess> accesses;
  const TileRowAccess eightRows{8, 16}, fourRows{4, 32};
  if (fragmentResult || tile.getDefiningOp<MatmulOp>())
    accesses.push_back(bits == 32 ? fourRows : eightRows);
  // tf32 (32-bit) B fragments walk the stored rows by k, 8 columns at once;
  // through a transposed view the operands swap roles.
  auto operandAccess = [&](MatmulOp matmul, Value operand, bool transposed) {
    bool rowsByK = (matmul.getRhs() == operand) != transposed;
    TileRowAccess read = bits == 32 && rowsByK ? fourRows : eightRows;
    read.weight = 2;
    accesses.push_back(read);
  };
  auto type = cast<RankedTensorType>(tile.getType());
  for (Operation *user : tile.getUsers()) {
    if (auto matmul = dyn_cast<MatmulOp>(user)) {
      operandAccess(matmul, tile, /*transposed=*/false);
      continue;
    }
    if (auto view = dyn_cast<TransposeOp>(user)) {
      if (isTransposedMatmulView(view))
        for (Operation *viewUser : view.getResult().getUsers())
          if (auto matmul = dyn_cast<MatmulOp>(viewUser))
            operandAccess(matmul, view.getResult(), /*transposed=*/true);
      continue;
    }
    if (!isa<ReduceSumOp, ReduceMaxOp>(user) ||
        user->getAttrOfType<IntegerAttr>("dim").getInt() != type.getRank() - 1)
      continue;
    int64_t lanes = getReductionLanesPerRow(type.getShape().back());
    if (lanes < 32)
      accesses.push_back({32 / lanes, lanes * bits / 8});
  }
  // Elementwise ops, thread graphs and stores move whole rows in 16-byte
  // pieces, 8 lanes (128 bytes) a phase: unpadded, that is contiguous; with
  // padding, a phase over rows shorter than 128 bytes spans the gaps.
  auto isRowwise = [](Operation *op) {
    return op &&
           (op->hasTrait<OpTrait::ElementwiseByIndex>() || isa<StoreOp>(op));
  };
  std::optional<int64_t> rowBytes =
      llvm::checkedMul(type.getShape().empty() ? 1 : type.getShape().back(),
                       static_cast<int64_t>(bits / 8));
  if (!accesses.empty() && rowBytes && *rowBytes > 0 && *rowBytes < 128 &&
      128 % *rowBytes == 0 &&
      (isRowwise(tile.getDefiningOp()) ||
       llvm::any_of(tile.getUsers(), isRowwise)))
    accesses.push_back({128 / *rowBytes, *rowBytes});
  return accesses;
}

/// How a buffer's tile is laid out: elements per row, bytes in all, and the
/// row accesses the padding serves (none: a fixed layout).
struct BufferLayout {
  int64_t rowPitch, bytes;
  std::optional<SmallVector<TileRowAccess, 2>> accesses;
};

/// A mask's tile holds one byte per element, as its tensor does.
unsigned storedBitsOf(Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  return std::max(8u, type.getElementType().getIntOrFloatBitWidth());
}

/// The layout of `tile`'s buffer of `bits`-bit elements with rows padded
/// for `accesses` (getComputedTileRowPitch).
BufferLayout paddedLayout(Value tile, unsigned bits,
                          ArrayRef<TileRowAccess> accesses) {
  SmallVector<int64_t> rows =
      llvm::to_vector(cast<RankedTensorType>(tile.getType()).getShape());
  if (!rows.empty())
    rows.back() = getComputedTileRowPitch(rows, bits, accesses);
  return {rows.empty() ? 1 : rows.back(), tileBytes(rows, bits),
          SmallVector<TileRowAccess, 2>(accesses)};
}

/// The layout of `tile`'s buffer, in `elementBits` (an f32 accumulator) or
/// its own element type. `padRows`: a computed tile whose rows warps access
/// several at a time (rowAccessesOf) gets getComputedTileRowPitch's rows;
/// others keep their rows as they are.
BufferLayout layoutOf(Value tile, bool padRows,
                      std::optional<unsigned> elementBits = {},
                      bool fragmentResult = false) {
  unsigned bits = elementBits.value_or(storedBitsOf(tile));
  if (padRows)
    return paddedLayout(tile, bits, rowAccessesOf(tile, bits, fragmentResult));
  SmallVector<int64_t> rows =
      llvm::to_vector(cast<RankedTensorType>(tile.getType()).getShape());
  return {rows.empty() ? 1 : rows.back(), tileBytes(rows, bits), std::nullopt};
}

/// The program points of a block graph (see SharedMemoryPlan) and the point
/// at which each use reads its value.
class ProgramPoints {
public:
  struct Loop {
    unsigned start, update, end;
  };

  explicit ProgramPoints(Block &body) : body(body) {
    for (Operation &op : body) {
      auto loop = dyn_cast<ForLoopOp>(op);
      if (!loop) {
        points[&op] = next++;
        continue;
      }
      Loop &l = loops[loop];
      l.start = next++;
      for (Operation &inner : loop.getBody().front()) {
        // Loads only issue copies (see copyPoint); the yielded tiles are
        // read by the accumulator update.
        if (!isa<LoadOp, YieldOp>(inner))
          points[&inner] = next++;
      }
      l.update = next++;
      points[loop.getBody().front().getTerminator()] = l.update;
      l.end = next++;
      points[loop] = l.end;
    }
  }

  unsigned at(Operation *op) const { return points.lookup(op); }
  Loop of(ForLoopOp loop) const { return loops.lookup(loop); }

  /// The point at which `load`'s copy is issued: the loop's start, or the
  /// op that the copy overlaps.
  unsigned copyPoint(LoadOp load) const {
    if (Operation *issue = getCopyIssueOp(load))
      return at(issue);
    return loops.lookup(load->getParentOp()).start;
  }

  /// The last point that reads `value`, at least `from`.
  unsigned lastUse(Value value, unsigned from) const {
    unsigned last = from;
    for (Operation *user : value.getUsers())
      last = std::max(last, usePoint(value, user));
    return last;
  }

private:
  unsigned usePoint(Value value, Operation *user) const {
    Operation *top = body.findAncestorOpInBlock(*user);
    auto loop = dyn_cast_or_null<ForLoopOp>(top);
    if (!loop || user == top)
      return points.lookup(top);
    // A tile from before the loop is read in every iteration.
    if (!loop.getBody().isAncestor(value.getParentRegion()))
      return loops.lookup(loop).end;
    return points.lookup(loop.getBody().front().findAncestorOpInBlock(*user));
  }

  Block &body;
  unsigned next = 0;
  llvm::DenseMap<Operation *, unsigned> points;
  llvm::DenseMap<Operation *, Loop> loops;
};

} // namespace

int64_t mlsopt::block::getExcessWavefronts(const TileRowAccess &access,
                                           int64_t pitchBytes) {
  constexpr int64_t kBanks = 32, kWordBytes = 4, kWavefrontBytes = 128;
  std::array<int64_t, kBanks> wordsOfBank{};
  int64_t words = std::max<int64_t>(1, access.bytes / kWordBytes);
  // Rows start `pitchBytes` apart, which keeps them word-aligned: each word
  // of each row is distinct, so a bank's count is its distinct words.
  for (int64_t r = 0; r < access.rows; ++r)
    for (int64_t w = 0; w < words; ++w)
      ++wordsOfBank[(r * pitchBytes / kWordBytes + w) % kBanks];
  int64_t worst = *llvm::max_element(wordsOfBank);
  return worst - llvm::divideCeil(access.rows * access.bytes, kWavefrontBytes);
}

int64_t
mlsopt::block::getComputedTileRowPitch(ArrayRef<int64_t> shape,
                                       unsigned elementBits,
                                       ArrayRef<TileRowAccess> accesses) {
  constexpr int64_t kChunkBytes = 16, kMaxPadBytes = 32;
  if (shape.empty() || (elementBits != 16 && elementBits != 32))
    return shape.empty() ? 1 : shape.back();
  int64_t row = shape.back();
  int64_t elementBytes = elementBits / 8;
  std::optional<int64_t> rowBytes = llvm::checkedMul(row, elementBytes);
  int64_t numRows = 1;
  for (int64_t s : shape.drop_back())
    numRows = llvm::checkedMul(numRows, s).value_or(2);
  if (numRows < 2 || accesses.empty() || !rowBytes || *rowBytes == 0 ||
      *rowBytes % kChunkBytes != 0 || *rowBytes > (int64_t{1} << 40))
    return row;
  auto cost = [&](int64_t pitchBytes) {
    int64_t excess = 0;
    for (TileRowAccess access : accesses) {
      // A tile of fewer rows: its accesses reach no further.
      access.rows = std::min(access.rows, numRows);
      excess += access.weight * getExcessWavefronts(access, pitchBytes);
    }
    return excess;
  };
  int64_t bestPad = 0, bestCost = cost(*rowBytes);
  for (int64_t pad = kChunkBytes; pad <= kMaxPadBytes; pad += kChunkBytes)
    if (int64_t c = cost(*rowBytes + pad); c < bestCost) {
      bestPad = pad;
      bestCost = c;
    }
  return row + bestPad / elementBytes;
}

const SharedBuffer *SharedMemoryPlan::lookup(Value value,
                                             SharedBufferRole role) const {
  auto it = indexOf.find({value, static_cast<unsigned>(role)});
  return it == indexOf.end() ? nullptr : &buffers[it->second];
}

SharedMemoryPlan::SharedMemoryPlan(kernel::CustomOp op, int64_t maxBytes) {
  build(op, /*padRows=*/true);
  if (totalBytes <= maxBytes)
    return;
  // Padding only saves wavefronts: a block graph that fits without it must
  // not be refused for it.
  buffers.clear();
  rowAccesses.clear();
  indexOf.clear();
  totalBytes = 0;
  build(op, /*padRows=*/false);
}

void SharedMemoryPlan::build(kernel::CustomOp op, bool padRows) {
  Block &body = op.getBody().front();
  ProgramPoints points(body);
  auto add = [&](Value value, SharedBufferRole role, BufferLayout layout,
                 unsigned first, unsigned last) {
    indexOf[{value, static_cast<unsigned>(role)}] = buffers.size();
    buffers.push_back(
        {value, role, layout.bytes, first, last, layout.rowPitch});
    // An accumulator's rows are written and read element by element; its
    // padding follows its result's accesses and stays as it is.
    rowAccesses.push_back(role == SharedBufferRole::Tile ? layout.accesses
                                                         : std::nullopt);
  };
  // Rows are padded only where a warp reads or writes several of them at
  // once: elsewhere the padding would take bytes and save no wavefront.
  auto computed = [&](Value tile, bool fragmentResult = false) {
    return layoutOf(tile, padRows, /*elementBits=*/{}, fragmentResult);
  };
  auto loaded = [](Value tile) { return layoutOf(tile, /*padRows=*/false); };
  auto addTiles = [&](Operation &op, unsigned first) {
    // Thread graphs compute in registers; only their results are tiles.
    for (Value result : op.getResults())
      if (isa<RankedTensorType>(result.getType()))
        add(result, SharedBufferRole::Tile, computed(result), first,
            points.lastUse(result, first));
  };
  // Yielded tiles that are also loop results live as long as the results.
  SmallVector<std::pair<Value, unsigned>> yieldedResults;

  for (Operation &top : body) {
    auto loop = dyn_cast<ForLoopOp>(top);
    // Copied while the loop before it runs (getLoopBefore; the verifier
    // rejects a load outside the loop that no loop precedes).
    if (auto load = dyn_cast<LoadOp>(top))
      if (ForLoopOp before = getLoopBefore(load)) {
        unsigned start = points.of(before).start;
        add(load.getTile(), SharedBufferRole::Tile, loaded(load.getTile()),
            start, points.lastUse(load.getTile(), start));
        continue;
      }
    if (!loop) {
      addTiles(top, points.at(&top));
      continue;
    }
    ProgramPoints::Loop at = points.of(loop);
    // Everything the loop carries from one iteration to the next is live
    // from its start to its end.
    bool carried = loop.getIterations() > 1;
    auto yield = cast<YieldOp>(loop.getBody().front().getTerminator());
    for (unsigned i = 0, e = loop.getNumResults(); i < e; ++i) {
      Value result = loop.getResult(i);
      unsigned resultEnd = points.lastUse(result, at.end);
      BufferLayout acc = layoutOf(result, padRows, /*elementBits=*/32);
      switch (getAccumulatorStorage(loop, i)) {
      case AccumulatorStorage::YieldedTile:
        yieldedResults.push_back({yield.getValues()[i], resultEnd});
        break;
      case AccumulatorStorage::AccumulatorIsResult:
        add(result, SharedBufferRole::Accumulator, acc, at.start, resultEnd);
        break;
      case AccumulatorStorage::AccumulatorAndResult:
        add(result, SharedBufferRole::Accumulator, acc, at.start, at.end);
        // Written by the epilogue, from the accumulator.
        add(result, SharedBufferRole::Tile, computed(result), at.end,
            resultEnd);
        break;
      case AccumulatorStorage::MmaFragments:
        // Written by the epilogue, from the warps' registers.
        add(result, SharedBufferRole::Tile,
            computed(result, /*fragmentResult=*/true), at.end, resultEnd);
        break;
      }
    }
    for (Operation &inner : loop.getBody().front().without_terminator()) {
      auto load = dyn_cast<LoadOp>(inner);
      if (!load) {
        // A matmul accumulated in registers writes no tile.
        auto matmul = dyn_cast<MatmulOp>(inner);
        if (!matmul || !isAccumulatedInRegisters(matmul))
          addTiles(inner, points.at(&inner));
        continue;
      }
      Value tile = load.getTile();
      unsigned copied = points.copyPoint(load);
      add(tile, SharedBufferRole::Tile, loaded(tile), copied,
          carried ? at.end : points.lastUse(tile, copied));
      if (isDoubleBuffered(load))
        add(tile, SharedBufferRole::PrefetchTile, loaded(tile), at.start,
            at.end);
    }
  }
  for (auto [tile, end] : yieldedResults)
    if (auto it =
            indexOf.find({tile, static_cast<unsigned>(SharedBufferRole::Tile)});
        it != indexOf.end())
      buffers[it->second].lastPoint =
          std::max(buffers[it->second].lastPoint, end);
  writeResultsInPlace(body, [&](Operation *op) { return points.at(op); });
  place();
}

void SharedMemoryPlan::writeResultsInPlace(
    Block &body, function_ref<unsigned(Operation *)> at) {
  auto tileIndex = [&](Value value) -> std::optional<unsigned> {
    auto it =
        indexOf.find({value, static_cast<unsigned>(SharedBufferRole::Tile)});
    if (it == indexOf.end())
      return std::nullopt;
    return it->second;
  };
  // In program order, so that a chain of such ops reuses one buffer.
  body.walk([&](Operation *op) {
    // A view writes nothing: it is its operand's bytes for as long as
    // either is read.
    if (auto transpose = dyn_cast<TransposeOp>(op);
        transpose && isTransposedMatmulView(transpose)) {
      std::optional<unsigned> resultIndex = tileIndex(transpose.getResult());
      std::optional<unsigned> operandIndex = tileIndex(transpose.getInput());
      if (resultIndex && operandIndex) {
        // The view is the operand's bytes; the lowering reads them through
        // the operand's buffer, never through rows of the view's own.
        buffers[*resultIndex].bytes = buffers[*operandIndex].bytes;
        buffers[*resultIndex].rowPitch =
            cast<RankedTensorType>(transpose.getType()).getShape().back();
        buffers[*resultIndex].inPlaceOf = *operandIndex;
        rowAccesses[*resultIndex] = std::nullopt;
        // No later op may write over the operand while the view is read.
        unsigned &last = buffers[*operandIndex].lastPoint;
        last = std::max(last, buffers[*resultIndex].lastPoint);
      }
      return;
    }
    if (!op->hasTrait<OpTrait::ElementwiseByIndex>())
      return;
    unsigned point = at(op);
    SmallVector<unsigned, 2> taken;
    for (Value result : op->getResults()) {
      std::optional<unsigned> resultIndex = tileIndex(result);
      if (!resultIndex)
        continue;
      for (Value operand : op->getOperands()) {
        // The same type: read at the result's index, with the same layout
        // (an operand of another shape is broadcast, so other threads read
        // its elements too). Only a tile's own buffer is taken over: not a
        // loop result held as its f32 accumulator or, in a one-iteration
        // loop, as its yielded tile (those have no Tile buffer of their
        // own).
        // And the same layout: a result whose rows are padded (read by
        // rows) does not take over an operand's unpadded rows, while a
        // result with no need of padding takes over padded ones, and their
        // layout, at no cost (exp of a matmul's product).
        // A chain of computed tiles gets the padding that serves all its
        // tiles' row accesses (exp(S) read by tf32 A fragments in place of
        // S written by mma fragments).
        std::optional<unsigned> operandIndex = tileIndex(operand);
        if (!operandIndex || operand.getType() != result.getType() ||
            buffers[*operandIndex].lastPoint != point ||
            llvm::is_contained(taken, *operandIndex))
          continue;
        SmallVector<unsigned> chain = {*resultIndex};
        for (std::optional<unsigned> i = operandIndex; i;
             i = buffers[*i].inPlaceOf)
          chain.push_back(*i);
        bool paddable = llvm::all_of(
            chain, [&](unsigned i) { return rowAccesses[i].has_value(); });
        if (paddable) {
          SmallVector<TileRowAccess> all;
          for (unsigned i : chain)
            llvm::append_range(all, *rowAccesses[i]);
          BufferLayout layout = paddedLayout(result, storedBitsOf(result), all);
          // Views of the chain's tiles take its bytes too.
          for (auto [i, buffer] : llvm::enumerate(buffers)) {
            bool inChain = llvm::is_contained(chain, i);
            bool viewOfChain = buffer.inPlaceOf &&
                               llvm::is_contained(chain, *buffer.inPlaceOf);
            if (inChain || viewOfChain)
              buffer.bytes = layout.bytes;
            if (inChain) {
              buffer.rowPitch = layout.rowPitch;
              rowAccesses[i] = layout.accesses;
            }
          }
        } else if (buffers[*operandIndex].rowPitch <
                   buffers[*resultIndex].rowPitch) {
          // A fixed layout, whose rows are shorter than the result needs.
          continue;
        } else {
          buffers[*resultIndex].rowPitch = buffers[*operandIndex].rowPitch;
          buffers[*resultIndex].bytes = buffers[*operandIndex].bytes;
        }
        buffers[*resultIndex].inPlaceOf = *operandIndex;
        taken.push_back(*operandIndex);
        break;
      }
    }
  });
}

void SharedMemoryPlan::place() {
  // A chain of buffers written in place of one another is placed as its
  // first buffer, live over all their points (they are of one type, so of
  // one size).
  SmallVector<SharedBuffer> chains;
  SmallVector<unsigned> chainOf(buffers.size());
  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    if (!buffer.inPlaceOf) {
      chainOf[i] = chains.size();
      chains.push_back(buffer);
      continue;
    }
    // An operand's buffer is added before its users' (SSA order).
    assert(*buffer.inPlaceOf < i && "in place of a later buffer");
    SharedBuffer &chain = chains[chainOf[i] = chainOf[*buffer.inPlaceOf]];
    assert(chain.bytes == buffer.bytes && "in place of another size");
    chain.firstPoint = std::min(chain.firstPoint, buffer.firstPoint);
    chain.lastPoint = std::max(chain.lastPoint, buffer.lastPoint);
  }

  // Largest first (small tiles then fill the gaps, instead of pushing a
  // large one past their alignment padding); ties in the order the buffers
  // were added, so the same graph always gets the same offsets.
  SmallVector<unsigned> order(chains.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return chains[a].bytes > chains[b].bytes;
  });
  SmallVector<unsigned> placed;
  for (unsigned i : order) {
    SharedBuffer &chain = chains[i];
    SmallVector<const SharedBuffer *> busy;
    for (unsigned j : placed)
      if (chains[j].isLiveWith(chain))
        busy.push_back(&chains[j]);
    llvm::sort(busy, [](const SharedBuffer *a, const SharedBuffer *b) {
      return a->offset < b->offset;
    });
    // The lowest gap between the live buffers that the chain fits in.
    int64_t offset = 0;
    for (const SharedBuffer *other : busy) {
      if (saturatingAdd(offset, chain.bytes) <= other->offset)
        break;
      offset = std::max(offset, alignBufferOffset(saturatingAdd(other->offset,
                                                                other->bytes)));
    }
    chain.offset = offset;
    totalBytes = std::max(totalBytes, saturatingAdd(offset, chain.bytes));
    placed.push_back(i);
  }
  for (auto [i, buffer] : llvm::enumerate(buffers))
    buffer.offset = chains[chainOf[i]].offset;
  // The lowering moves 16 bytes per access, so the last bytes of a tile
  // that is not a multiple of 16 are read with the padding after it; the
  // last buffer gets that padding too (a 108-byte tile was read to 112).
  totalBytes = alignBufferOffset(totalBytes);
}
