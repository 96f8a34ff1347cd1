//===- DataMovement.h - Where copies read their elements --------*- C++ -*-===//
//
// The import leaves a front end's slices and broadcasts between kernel ops;
// the GPU lowering runs them as copy kernels and the verifier's field program
// copies them the same way. This is the one definition of which ops are
// copies and of which source element each result element reads, so the GPU
// lowering, the cost model and the verifier cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_CONVERSION_DATAMOVEMENT_H
#define MLSOPT_CONVERSION_DATAMOVEMENT_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>

namespace mlsopt {

/// An op the GPU runs as a copy kernel: kernel.transpose and kernel.convert,
/// which have no block graph (the block dialect moves no data across dims,
/// and a block graph computes in one element type), and the data movement
/// a front end writes between kernel ops that the import keeps as it is: a
/// static tensor.extract_slice (torch slicing, the halves of a rotary
/// embedding) and a linalg.broadcast on tensors (repeat_kv, a broadcast
/// operand of a matmul), on static tensors of the element types kernels
/// compute in. Its operand 0 is what it copies.
bool isCopyOp(mlir::Operation &op);

/// Whether `op` is a tensor.extract_slice or tensor.insert_slice whose
/// offsets, sizes or strides are known only at run time (a KV cache's row at
/// the decode position).
bool isRunTimeSlice(mlir::Operation &op);

/// The source indices the result element at `resultIndices` of `op`, a
/// tensor.extract_slice with static offsets, sizes and strides or a
/// linalg.broadcast, reads: offset + index * stride along each source dim of
/// a slice (a dim a rank-reducing slice drops at its offset), the indices
/// without the added dims for a broadcast.
llvm::SmallVector<mlir::Value>
buildCopySourceIndices(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Operation *op, mlir::ValueRange resultIndices);

/// A dim's limit in buildIsBefore where the dim has none.
inline constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

/// Whether every index of `indices` is below its limit in `limits` (skipping
/// kNoLimit), as an i1, or null when no dim has a limit: where an element
/// of a ragged split's last tile lies inside the tensor.
mlir::Value buildIsBefore(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::ValueRange indices,
                          llvm::ArrayRef<int64_t> limits);

/// The value whose buffer `value` is a view of: `value` past the collapses
/// and expands that compute it (an imported reduction's result in the rank
/// the front end gave it), which the GPU lowering runs as memref views.
mlir::Value getViewedStorage(mlir::Value value);

/// The results of a function, by number, whose buffer no launch would
/// write: each is copied into its result buffer by a copy kernel of its own
/// on the GPU. A result is one if it is an argument or a constant, or a
/// collapse or expand of one (a view of the same storage), or the storage
/// of an earlier result. `returned` are the operands of the function's
/// return, in order.
llvm::SmallVector<unsigned> getResultsCopiedOnReturn(mlir::ValueRange returned);

/// The ops of `body` the GPU pipeline skips: kernel ops (custom kernels
/// too, whose writes go only to their results) and views whose results
/// nothing live reads, through chains of such ops.
llvm::SmallPtrSet<mlir::Operation *, 8> getDeadKernelOps(mlir::Region &body);

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_DATAMOVEMENT_H
