//===- LeftoverOpCuts.h - Verifying around unevaluable ops -----*- C++ -*-===//
//
// Private to --verify-equivalence. A linalg op the import left (an
// embedding's gather, an argmax) has no finite-field semantics, nor has a
// slice at a run-time offset (a KV cache's row at the decode position), yet
// the search never rewrites them: a function and its reference hold them
// alike.
// Both are compared with each such op cut out: its results become arguments
// (the same random values in both) and the tensors it reads become results
// (compared like the others). Equal cut functions are equal functions, as
// the op computes the same results from equal operands.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_TRANSFORMS_LEFTOVEROPCUTS_H
#define MLSOPT_LIB_TRANSFORMS_LEFTOVEROPCUTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlsopt {

/// The functions `func` and `reference` with their leftover ops cut out.
struct LeftoverOpCuts {
  mlir::func::FuncOp func;
  mlir::func::FuncOp reference;
  /// The leftover ops cut out of each, and how many of them are slices at
  /// run-time offsets.
  unsigned numCut = 0, numSlices = 0;
};

/// Copies of `func` and `reference` in `scratch` with their leftover ops
/// (linalg ops at the top level but fills and broadcasts, which the field
/// evaluates, and run-time slices) cut out, pairing the n-th of one with
/// the n-th of the other. None when neither holds one, or when the two do
/// not pair up op for op (the same op, attributes, payload and constants,
/// reading tensors of the same types, and scalars computed alike from the
/// same arguments): the field then reports the op it cannot evaluate.
std::optional<LeftoverOpCuts> cutLeftoverOps(mlir::func::FuncOp func,
                                             mlir::func::FuncOp reference,
                                             mlir::ModuleOp scratch);

} // namespace mlsopt

#endif // MLSOPT_LIB_TRANSFORMS_LEFTOVEROPCUTS_H
