//===- UnsupportedOps.h - The op a "not supported" error names -*- C++ -*-===//
//
// The verifier's engines and the GPU lowering walk a function op by op and
// stop at the first they cannot take. A scalar constant comes before the op
// that reads it (the padding value of a tensor.pad, the fill of a linalg
// op the import left), and so does the element of a scalar argument (the
// offset of a slice at a run-time position), so such an error would name
// the constant or the element; the op to name is its reader.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SUPPORT_UNSUPPORTEDOPS_H
#define MLSOPT_SUPPORT_UNSUPPORTEDOPS_H

#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlsopt {

/// For a scalar constant (a ConstantLike op whose one result is not a
/// shaped type), the element of a 0-d tensor (`tensor.extract %alpha[]`)
/// or arith ops on such scalars: the first op of its block that reads it,
/// directly or from inside its regions (a tensor.pad's yield). Null for any
/// other op, and for a scalar nothing reads.
mlir::Operation *getScalarReader(mlir::Operation *op);

/// What makes `op` (getUnsupportedCause's op) unsupported where its kind is
/// supported otherwise, as text to follow its name in an error (" at an
/// offset known only at run time" for a slice at a scalar argument's
/// position); empty otherwise.
std::string describeUnsupported(mlir::Operation *op);

/// The op an error about `op` not being supported should name: the reader
/// of a scalar (getScalarReader), or its reader if that is a scalar too,
/// else `op`.
mlir::Operation *getUnsupportedCause(mlir::Operation *op);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_UNSUPPORTEDOPS_H
