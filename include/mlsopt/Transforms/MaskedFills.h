//===- MaskedFills.h - Masked fills as the search sees them -----*- C++ -*-===//
//
// The import writes a select of a mask between a tensor and a finite
// constant (`masked_fill(~m, finfo.min)`, GPT-2's `torch.where(causal, w,
// mask_value)`) as `max(x + keep, fill)`, two kernel ops on two inputs made
// of the same mask. On attention scores that is one op and one input more
// than a fill of -inf (`x + keep`) needs, which the search did not solve in
// its minute: a finfo.min mask cost 4 to 5 launches where -inf cost 1. The
// search therefore sees each such pair as `x + keep` alone, and the μGraph
// it finds gets the max back on every tile it adds `keep` to, before the
// μGraph is checked against the subprogram as given.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_TRANSFORMS_MASKEDFILLS_H
#define MLSOPT_TRANSFORMS_MASKEDFILLS_H

#include "mlsopt/Search/SearchProblem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlsopt {

/// A subprogram's search problem with its masked fills folded.
struct FoldedMaskedFills {
  search::SearchProblem problem;
  /// For each masked fill, the positions among the subprogram's inputs of
  /// its keep input, which the problem's add reads, and of its fill input,
  /// which is no input of the problem.
  llvm::SmallVector<std::pair<unsigned, unsigned>> folds;
};

/// The problem of the subprogram of `ops` (with `inputs` and `outputs`)
/// where each masked fill (kernel::matchMaskedFill) whose two ops are among
/// `ops` and whose keep and fill are among `inputs` is `x + keep`. Fails
/// where there is no such fill, or where an input is read in tilings that
/// make the problem read it twice (the inputs must stay one to one).
mlir::FailureOr<FoldedMaskedFills>
foldMaskedFills(llvm::ArrayRef<mlir::Operation *> ops,
                llvm::ArrayRef<mlir::Value> inputs,
                llvm::ArrayRef<mlir::Value> outputs);

/// Turns `answer`, a function of the folded problem's inputs, into one of
/// the subprogram's: each fill input becomes an argument again, and every
/// add of a keep input (a kernel op's, or a block graph's on a loaded tile)
/// is followed by the max with the fill, on a tile loaded as the keep's is.
/// Fails where the answer reads a keep input otherwise.
mlir::LogicalResult unfoldMaskedFills(mlir::func::FuncOp answer,
                                      const FoldedMaskedFills &folded,
                                      llvm::ArrayRef<mlir::Value> inputs);

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_MASKEDFILLS_H
