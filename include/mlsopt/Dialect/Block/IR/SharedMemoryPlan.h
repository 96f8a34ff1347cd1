//===- SharedMemoryPlan.h - Where a block graph's tiles live ----*- C++ -*-===//
//
// The one model of a block graph's shared memory: which buffers the GPU
// lowering gives it (tiles, the second buffer of a double-buffered load,
// f32 accumulators), when each is live, and at which offset it lies. Tiles
// whose live ranges do not overlap share bytes. The block-graph verifier,
// the search's cost model and the GPU lowering all read the same plan, so
// a graph the verifier accepts gets exactly the shared memory it was
// checked for.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_DIALECT_BLOCK_IR_SHAREDMEMORYPLAN_H
#define MLSOPT_DIALECT_BLOCK_IR_SHAREDMEMORYPLAN_H

#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace mlsopt::block {

/// Every buffer starts on a 16-byte boundary: cp.async and vector accesses
/// move 16 bytes per instruction.
constexpr int64_t kSharedBufferAlignment = 16;

/// How the GPU lowering keeps for-loop result #i.
enum class AccumulatorStorage {
  /// A one-iteration loop's sum or max is its yielded tile: no running
  /// value, no copy.
  YieldedTile,
  /// An f32 running value that is also the result tile (an f32 sum or max).
  AccumulatorIsResult,
  /// An f32 running value, finalized after the loop into a result tile of
  /// the result's type.
  AccumulatorAndResult,
  /// The sum of a matmul of the loop body (getRegisterAccumulatedMatmul):
  /// each warp keeps its mma accumulator fragments in f32 registers across
  /// the iterations and writes them into the result tile after the loop.
  /// Neither the matmul's result nor the sum has a buffer in the loop.
  MmaFragments,
};
AccumulatorStorage getAccumulatorStorage(ForLoopOp loop, unsigned result);

/// The 16x8 f32 result fragments of a matmul on tensor cores (mma.sync
/// m16n8k16 for f16 and bf16, m16n8k8 for f32 rounded to tf32), which the
/// GPU lowering deals to the block's warps round-robin: warp w computes
/// fragments w, w + warps, w + 2 * warps, ...
struct MmaFragmentGrid {
  /// The matmul's batch dims, then ceil(m / 16) and ceil(n / 8).
  llvm::SmallVector<int64_t> shape;
  int64_t count;
  int64_t warps;
  /// The k of one mma: 16 for f16 and bf16, 8 for f32 (tf32).
  int64_t kStep;
  /// ceil(k / kStep).
  int64_t kSteps;
  /// n is not a multiple of 8 or k not one of the k step: the fragments
  /// run past the tiles, so the lowering loads their elements one by one,
  /// k past its end as zeros and columns past n clamped (they are not
  /// stored), instead of with ldmatrix.
  bool padded;

  /// The most fragments one warp computes.
  int64_t perWarp() const { return (count + warps - 1) / warps; }
  /// How many times a warp walks k for a matmul whose sum is not kept in
  /// registers: its fragments in groups of at most kMaxFragmentsPerKWalk,
  /// each group's mma.syncs independent of one another at every k step.
  int64_t kWalks() const;
  /// For a warp's items first .. first+n-1 (item j of warp w is fragment
  /// min(w + j * warps, count - 1)), the index, counted from `first`, of
  /// the first of them that reads, in every warp, the same fragment of A
  /// (`lhs`) or B as item first+i. A's fragment is given by the result
  /// fragment's batch index and row, B's by its batch index and column; a
  /// walk over k loads each once per step.
  llvm::SmallVector<unsigned>
  firstItemsWithSameOperand(int64_t first, int64_t n, bool lhs) const;
};

/// At most this many fragments of a warp share one walk over k, outside
/// sums kept in registers: 4 f32 accumulator registers each, 64 in all,
/// beside their A and B operand registers.
constexpr int64_t kMaxFragmentsPerKWalk = 16;

/// The fragments of `matmul` in a block of `numThreads` threads, or nullopt
/// when it cannot run on tensor cores: the block is not whole warps or the
/// element type is not f16, bf16 or f32. Odd m, n and k are padded
/// (MmaFragmentGrid::padded).
/// Whether f32 matmuls do run on tensor cores is the lowering's choice
/// (allow-tf32); this only says where their fragments would be.
std::optional<MmaFragmentGrid> getMmaFragments(MatmulOp matmul,
                                               int64_t numThreads);

/// Lanes that share one row of a block.reduce_sum or block.reduce_max of
/// rows of `rowLength` elements in the GPU lowering: the largest power of two
/// up to a warp that leaves each lane at least 8 elements. A warp reduces
/// 32 / that many rows at once, each with log2(that many) shuffles, so a
/// short row (64 keys of an attention tile) does not take a whole warp that
/// then spends more steps shuffling than adding.
int64_t getReductionLanesPerRow(int64_t rowLength);

/// Bytes of shared memory one thread reads or writes at a time in the GPU
/// lowering's elementwise ops and thread graphs (`ld.shared.v4`).
constexpr int64_t kElementwiseVectorBytes = 16;

/// Whether an operand tile of shape `operandShape` broadcasts along the last
/// dim of an elementwise result of shape `shape`: one element serves a whole
/// row.
bool broadcastsAlongRows(llvm::ArrayRef<int64_t> operandShape,
                         llvm::ArrayRef<int64_t> shape);

/// Elements of a row one thread takes per shared-memory access when an
/// elementwise op or thread graph of result shape `shape` reads `operands`
/// and writes `results` in the GPU lowering: 16 bytes of the widest element
/// type among them, halved until it divides the rows. An operand broadcast
/// along the rows (a row sum) is one scalar read per access and does not
/// count; a boolean mask (packed bits in an LLVM vector) makes it 1. The
/// lowering halves it further where a buffer's rows do not start at
/// multiples of it (their pitch), which the ops alone do not tell.
int64_t getElementwiseVectorWidth(llvm::ArrayRef<int64_t> shape,
                                  mlir::ValueRange operands,
                                  mlir::ValueRange results);

/// At most this many fragments per warp stay in registers across a loop:
/// 4 f32 registers each, so 128 of the 255 a thread may have, which leaves
/// room for the operand fragments and addresses without spilling. A larger
/// sum keeps its f32 accumulator in shared memory.
constexpr int64_t kMaxRegisterFragmentsPerWarp = 32;

/// The matmul whose sum is result #`result` of `loop` when the GPU lowering
/// keeps that sum in registers (AccumulatorStorage::MmaFragments), else
/// null: a `sum` accumulator of a loop of several iterations whose yielded
/// value is a matmul of the loop body that nothing else reads, with the
/// shape of a tensor-core matmul and at most kMaxRegisterFragmentsPerWarp
/// fragments per warp.
MatmulOp getRegisterAccumulatedMatmul(ForLoopOp loop, unsigned result);

/// Whether `matmul`'s result lives only in registers: it is the
/// getRegisterAccumulatedMatmul of the loop result it is yielded as.
bool isAccumulatedInRegisters(MatmulOp matmul);

/// Whether `op` is a view of its operand rather than a tile of its own: it
/// swaps the last two dims, and only matmuls read it, each as one operand.
/// The GPU lowering then reads the operand in place: a right operand laid
/// out `[n, k]` (a weight as a linear layer stores it) with ldmatrix as it
/// reads a left one, a left operand laid out `[k, m]` with ldmatrix.trans
/// (when m is a whole number of 16-row fragments, so that no read passes
/// the tile's rows). The operand is a load's or a compute op's tile, not a
/// for-loop result. The plan gives the view the operand's bytes.
bool isTransposedMatmulView(TransposeOp op);

/// Whether `load`'s tile is double-buffered: iteration i+1's copy lands in
/// one buffer while iteration i reads the other. Other loads are copied once,
/// before the loop.
bool isDoubleBuffered(LoadOp load);

/// The op at whose start the copy of `load`'s tile is issued, or null when
/// the loop's prologue issues it. In a loop of one iteration a load that a
/// later body op first reads is copied while the body op before that reader
/// computes (the lowering waits for the copy before the barrier that ends
/// the op): its buffer is free until then, and its copy still overlaps one
/// op. Loads of a loop of several iterations are carried through the whole
/// loop, so issuing them later would save no bytes.
mlir::Operation *getCopyIssueOp(LoadOp load);

/// The for-loop before `load`, a load after the loop in the custom kernel's
/// body (an epilogue's bias or residual), or null (a load in the loop, or
/// one the verifier rejects). The lowering issues the copy of such a load
/// with the loop's loop-invariant tiles, so that it overlaps the loop; its
/// buffer is live from the loop's start.
ForLoopOp getLoopBefore(LoadOp load);

/// One warp instruction's reach into a tile that it accesses several rows at
/// a time, in one shared-memory phase: `bytes` consecutive bytes of each of
/// `rows` consecutive rows. The GPU lowering makes these: an mma.sync result
/// store (16-bit: 8 rows of 16 bytes; 32-bit, 8 bytes a lane served by
/// half-warps: 4 rows of 32 bytes), an ldmatrix phase (8 rows of 16 bytes),
/// tf32 fragment loads (A: 8 rows of 16 bytes; B, read down its columns: 4
/// rows of 32 bytes), and a row reduction that gives each row L < 32 lanes
/// (32 / L rows of L elements). Each covers the tile in phases of 128 bytes;
/// `weight` is how many times over, as far as the plan can tell: tensor-core
/// operand reads count twice (a warp reads its A fragments once per walk
/// over k and its B fragments once per row of fragments), the others once.
struct TileRowAccess {
  int64_t rows;
  int64_t bytes;
  int64_t weight = 1;
};

/// Elements per row of the buffer of a tile of `shape` and `elementBits`
/// (16 or 32) that a block op computes and that warps access as `accesses`.
/// Unpadded, rows that fill whole 128-byte lines of the 32 banks put the
/// rows of such an access on the same banks (8 rows: 8-way conflicts). The
/// pitch is the row plus the padding of 0, 16 or 32 bytes whose accesses
/// take the fewest shared-memory wavefronts beyond what their bytes need
/// (weighted; the shortest among equals): 16 bytes for 8 rows of 16 bytes,
/// 32 for 4 rows of 32, both for rows of 32 or 64 bytes as well as whole
/// lines. The
/// last dim otherwise: a single row, rows that are not whole 16-byte chunks,
/// and tiles with no such access (loaded tiles, copied in 16-byte chunks and
/// swizzled where tensor cores read them; tiles only read and written
/// element by element) keep their layout.
int64_t getComputedTileRowPitch(llvm::ArrayRef<int64_t> shape,
                                unsigned elementBits,
                                llvm::ArrayRef<TileRowAccess> accesses);

/// Shared-memory wavefronts beyond the ideal that `access` takes on rows
/// `pitchBytes` apart: the most distinct 4-byte words any of the 32 banks
/// serves, less ceil(bytes / 128).
int64_t getExcessWavefronts(const TileRowAccess &access, int64_t pitchBytes);

/// What a buffer holds for its value.
enum class SharedBufferRole {
  /// The tile itself (for a double-buffered load: its first buffer).
  Tile,
  /// The second buffer of a double-buffered load.
  PrefetchTile,
  /// The f32 running value of a for-loop result.
  Accumulator,
};

/// One buffer of the plan. Program points number what the lowering does in
/// order (see SharedMemoryPlan); a buffer is live from the point that first
/// writes it to the point that last reads it, both included.
struct SharedBuffer {
  mlir::Value value;
  SharedBufferRole role;
  int64_t bytes;
  unsigned firstPoint, lastPoint;
  /// Elements from one row of the tile to the next (the last dim, or more
  /// where getComputedTileRowPitch pads the rows).
  int64_t rowPitch;
  int64_t offset = 0;
  /// The index in SharedMemoryPlan::getBuffers() of the buffer whose bytes
  /// this one takes over: the result of an ElementwiseByIndex op written in
  /// place of an operand of its type whose last read is that op. The two
  /// are live together at that op's point only.
  std::optional<unsigned> inPlaceOf;

  bool isLiveWith(const SharedBuffer &other) const {
    return firstPoint <= other.lastPoint && other.firstPoint <= lastPoint;
  }
  bool overlapsBytesOf(const SharedBuffer &other) const {
    return offset < other.offset + other.bytes && other.offset < offset + bytes;
  }
};

/// The shared-memory plan of one block graph. Program points, in the order
/// the lowering emits code: one per op before the for-loop; for the loop,
/// its start (accumulators initialized, the loads' copies issued), one per
/// body op that computes (a load copied later is written from the point of
/// its getCopyIssueOp), its update (accumulators read the yielded tiles)
/// and its end (results finalized); one per op after it.
///
/// A result written in place of its operand takes the operand's offset:
/// each thread reads operand elements at the index it then writes (no
/// broadcast, same type), so no other thread reads an element once it is
/// overwritten. Such a chain of buffers is placed as one buffer live from
/// the first's first point to the last's last. Buffers are placed largest
/// first, each at the lowest 16-byte-aligned offset whose bytes no buffer
/// live at the same time uses.
/// Reusing bytes is safe because the lowering ends every block-wide step
/// (each op, the accumulator update, the loop prologue's wait and the
/// epilogue) with a barrier: a buffer's last reader has finished on every
/// thread before the next writer of those bytes starts.
class SharedMemoryPlan {
public:
  /// The plan of `op`'s block graph. Computed tiles get padded rows
  /// (getComputedTileRowPitch) unless that takes the plan past `maxBytes`
  /// (the chip's shared memory a block may have): then no tile is padded.
  explicit SharedMemoryPlan(
      kernel::CustomOp op,
      int64_t maxBytes = std::numeric_limits<int64_t>::max());

  /// The dynamic shared memory the block needs, in bytes.
  int64_t getTotalBytes() const { return totalBytes; }
  llvm::ArrayRef<SharedBuffer> getBuffers() const { return buffers; }
  /// The buffer holding `value` in `role`, or null if the plan has none.
  const SharedBuffer *
  lookup(mlir::Value value,
         SharedBufferRole role = SharedBufferRole::Tile) const;

private:
  /// Plans the buffers, with padded rows for computed tiles or none.
  void build(kernel::CustomOp op, bool padRows);
  /// Lets results of ElementwiseByIndex ops take over operands that die at
  /// them (sets inPlaceOf).
  void writeResultsInPlace(mlir::Block &body,
                           llvm::function_ref<unsigned(mlir::Operation *)> at);
  void place();

  llvm::SmallVector<SharedBuffer> buffers;
  /// Per buffer, the accesses its padding serves (getComputedTileRowPitch),
  /// or none for a buffer whose layout is fixed (a loaded tile, an
  /// accumulator): a chain written in place gets the padding that serves
  /// all its buffers' accesses.
  llvm::SmallVector<std::optional<llvm::SmallVector<TileRowAccess, 2>>>
      rowAccesses;
  llvm::DenseMap<std::pair<mlir::Value, unsigned>, unsigned> indexOf;
  int64_t totalBytes = 0;
};

} // namespace mlsopt::block

#endif // MLSOPT_DIALECT_BLOCK_IR_SHAREDMEMORYPLAN_H
