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
};
AccumulatorStorage getAccumulatorStorage(ForLoopOp loop, unsigned result);

/// Whether `load`'s tile is double-buffered: iteration i+1's copy lands in
/// one buffer while iteration i reads the other. Other loads are copied once,
/// before the loop.
bool isDoubleBuffered(LoadOp load);

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
  int64_t offset = 0;

  bool isLiveWith(const SharedBuffer &other) const {
    return firstPoint <= other.lastPoint && other.firstPoint <= lastPoint;
  }
  bool overlapsBytesOf(const SharedBuffer &other) const {
    return offset < other.offset + other.bytes && other.offset < offset + bytes;
  }
};

/// The shared-memory plan of one block graph. Program points, in the order
/// the lowering emits code: one per op before the for-loop; for the loop,
/// its start (accumulators initialized, every load's copy issued), one per
/// body op that computes, its update (accumulators read the yielded
/// tiles) and its end (results finalized); one per op after it.
///
/// Buffers are placed largest first, each at the lowest 16-byte-aligned
/// offset whose bytes no buffer live at the same time uses.
/// Reusing bytes is safe because the lowering ends every block-wide step
/// (each op, the accumulator update, the loop prologue's wait and the
/// epilogue) with a barrier: a buffer's last reader has finished on every
/// thread before the next writer of those bytes starts.
class SharedMemoryPlan {
public:
  explicit SharedMemoryPlan(kernel::CustomOp op);

  /// The dynamic shared memory the block needs, in bytes.
  int64_t getTotalBytes() const { return totalBytes; }
  llvm::ArrayRef<SharedBuffer> getBuffers() const { return buffers; }
  /// The buffer holding `value` in `role`, or null if the plan has none.
  const SharedBuffer *
  lookup(mlir::Value value,
         SharedBufferRole role = SharedBufferRole::Tile) const;

private:
  void place();

  llvm::SmallVector<SharedBuffer> buffers;
  llvm::DenseMap<std::pair<mlir::Value, unsigned>, unsigned> indexOf;
  int64_t totalBytes = 0;
};

} // namespace mlsopt::block

#endif // MLSOPT_DIALECT_BLOCK_IR_SHAREDMEMORYPLAN_H
