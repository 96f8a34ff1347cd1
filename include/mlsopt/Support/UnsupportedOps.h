//===- UnsupportedOps.h - The op a "not supported" error names -*- C++ -*-===//
//
// The verifier's engines and the GPU lowering walk a function op by op and
// stop at the first they cannot take. A scalar constant comes before the op
// that reads it (the padding value of a tensor.pad, the fill of a linalg
// op the import left), so such an error would name the constant; the op to
// name is its reader.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SUPPORT_UNSUPPORTEDOPS_H
#define MLSOPT_SUPPORT_UNSUPPORTEDOPS_H

namespace mlir {
class Operation;
} // namespace mlir

namespace mlsopt {

/// For a scalar constant (a ConstantLike op whose one result is not a
/// shaped type): the first op of its block that reads it, directly or from
/// inside its regions (a tensor.pad's yield). Null for any other op, and
/// for a constant nothing reads.
mlir::Operation *getScalarConstantReader(mlir::Operation *op);

/// The op an error about `op` not being supported should name: the reader
/// of a scalar constant (getScalarConstantReader), else `op`.
mlir::Operation *getUnsupportedCause(mlir::Operation *op);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_UNSUPPORTEDOPS_H
