//===- Subprograms.h - Cutting a function into searchable pieces -*- C++ -*-===//
//
// The search is exponential in the ops of a program, so --superoptimize
// hands it subprograms of at most `max-kernel-ops` kernel ops. Where the
// cuts fall decides what can be fused: a tensor that crosses a cut makes a
// round trip through device memory. The cuts follow the data flow, not the
// order in which a front end happened to print the ops.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_TRANSFORMS_SUBPROGRAMS_H
#define MLSOPT_TRANSFORMS_SUBPROGRAMS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

namespace mlsopt {

/// A convex set of searchable kernel ops of one block, contiguous in it,
/// with the values that flow in and out.
struct Subprogram {
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::SmallVector<mlir::Value> inputs;
  llvm::SmallVector<mlir::Value> outputs;
};

/// Cuts the searchable ops of `func` (search::isSearchableOp) into
/// subprograms of at most `maxOps` ops. Producer-consumer pairs are joined
/// largest tensor first, as long as the subprogram stays convex (no path
/// leaves it and comes back), stays within `maxOps` and stays verifiable
/// (no exp of a value without an exponent image, see docs/verification.md).
/// The block is then reordered (a topological order, the original one where
/// it already is one) so that each subprogram is contiguous and can be
/// replaced in one place. Returns the subprograms in that order.
llvm::SmallVector<Subprogram> partitionIntoSubprograms(mlir::func::FuncOp func,
                                                       unsigned maxOps);

/// What the ops of `sub` count against `max-kernel-ops` (a safe softmax's
/// stabilizer, an attention's scale and masks count nothing).
unsigned getSubprogramWeight(const Subprogram &sub);

/// Cuts `sub` as partitionIntoSubprograms cuts a function, into pieces of
/// at most `maxOps`, reordered in place so that each piece is contiguous;
/// the pieces come in that order. For a subprogram whose search found
/// nothing faster in half its time: smaller pieces may be in reach.
llvm::SmallVector<Subprogram> splitSubprogram(const Subprogram &sub,
                                              unsigned maxOps);

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_SUBPROGRAMS_H
