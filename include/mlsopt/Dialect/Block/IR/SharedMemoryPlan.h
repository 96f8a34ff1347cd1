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
};
AccumulatorStorage getAccumulatorStorage(ForLoopOp loop, unsigned result);

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
  explicit SharedMemoryPlan(kernel::CustomOp op);

  /// The dynamic shared memory the block needs, in bytes.
  int64_t getTotalBytes() const { return totalBytes; }
  llvm::ArrayRef<SharedBuffer> getBuffers() const { return buffers; }
  /// The buffer holding `value` in `role`, or null if the plan has none.
  const SharedBuffer *
  lookup(mlir::Value value,
         SharedBufferRole role = SharedBufferRole::Tile) const;

private:
  /// Lets results of ElementwiseByIndex ops take over operands that die at
  /// them (sets inPlaceOf).
  void writeResultsInPlace(mlir::Block &body,
                           llvm::function_ref<unsigned(mlir::Operation *)> at);
  void place();

  llvm::SmallVector<SharedBuffer> buffers;
  llvm::DenseMap<std::pair<mlir::Value, unsigned>, unsigned> indexOf;
  int64_t totalBytes = 0;
};

} // namespace mlsopt::block

#endif // MLSOPT_DIALECT_BLOCK_IR_SHAREDMEMORYPLAN_H
