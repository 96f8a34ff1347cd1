//===- DataMovement.h - Where copies read their elements --------*- C++ -*-===//
//
// The import leaves a front end's slices and broadcasts between kernel ops;
// the GPU lowering runs them as copy kernels and the verifier's field program
// copies them the same way. This is the one definition of which source
// element each result element reads, so the two cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_CONVERSION_DATAMOVEMENT_H
#define MLSOPT_CONVERSION_DATAMOVEMENT_H

#include "mlir/IR/Builders.h"

namespace mlsopt {

/// The source indices the result element at `resultIndices` of `op`, a
/// tensor.extract_slice with static offsets, sizes and strides or a
/// linalg.broadcast, reads: offset + index * stride along each source dim of
/// a slice (a dim a rank-reducing slice drops at its offset), the indices
/// without the added dims for a broadcast.
llvm::SmallVector<mlir::Value>
buildCopySourceIndices(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Operation *op, mlir::ValueRange resultIndices);

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_DATAMOVEMENT_H
