//===- ScoreChains.h - Masks on attention scores as the search sees them --===//
//
// Between an attention's product and its softmax, a front end applies
// masks and biases, each an elementwise op of the scores and an input:
// an additive mask, ALiBi's table, a padding mask. A select of a boolean
// mask between the scores and a finite constant (GPT-2's
// `torch.where(causal, w, finfo.min)`) imports as two such ops,
// `max(x + where(m, 0, -inf), where(m, -inf, c))`. Each op more is one op
// and one input more for the search, and two were out of its reach in a
// minute: a finfo.min mask took 4 to 5 launches where -inf took 1, and a
// causal mask with a padding mask 2. The search therefore sees a chain of
// such ops as one add of an input that stands for all of theirs, and the
// μGraph it finds gets the chain back on every tile it adds that input
// to, before the μGraph is checked against the subprogram as given.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_TRANSFORMS_SCORECHAINS_H
#define MLSOPT_TRANSFORMS_SCORECHAINS_H

#include "mlsopt/Search/SearchProblem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlsopt {

/// One op of a score chain: a binary elementwise kernel op (add, sub, mul,
/// div, max, min) of the value before it and of an input of the block (an
/// argument, a mask or integers made floats, or a one-operand chain on
/// one) that only this op reads.
struct ScoreStep {
  mlir::Operation *op;
  mlir::Value input;
  /// Whether the input is the op's first operand.
  bool inputFirst;
};

/// Steps from a matmul's product (or a scale of it) to a value a row
/// maximum or sum reads, directly or through scales and causal fills, each
/// read by the next one only.
struct ScoreChain {
  mlir::Value scores;
  llvm::SmallVector<ScoreStep, 2> steps;
};

/// The chain whose step `op` is, if any.
std::optional<ScoreChain> matchScoreChain(mlir::Operation *op);

/// A subprogram's search problem with its score chains folded.
struct FoldedScoreChains {
  search::SearchProblem problem;
  /// Each folded chain, and the position among the subprogram's inputs of
  /// the input that stands for the chain's inputs (its first step's).
  llvm::SmallVector<std::pair<ScoreChain, unsigned>> folds;
};

/// The problem of the subprogram of `ops` (with `inputs` and `outputs`)
/// where each score chain of two steps or more among `ops`, whose inputs
/// are among `inputs`, is `scores + p`: p has the shape of the chain's
/// inputs broadcast together and the position of its first input, and the
/// other inputs are not the problem's. Fails where there is no such chain,
/// or where the problem would read an input twice (in two tilings).
mlir::FailureOr<FoldedScoreChains>
foldScoreChains(llvm::ArrayRef<mlir::Operation *> ops,
                llvm::ArrayRef<mlir::Value> inputs,
                llvm::ArrayRef<mlir::Value> outputs);

/// Turns `answer`, a function of the folded problem's inputs, into one of
/// the subprogram's `inputs`: every add of a chain's p (a kernel op's, or a
/// block graph's on a loaded tile) becomes the chain's steps, on tiles of
/// its inputs loaded as p's are along the dims they do not broadcast.
/// Fails where the answer reads p otherwise.
mlir::LogicalResult unfoldScoreChains(mlir::func::FuncOp answer,
                                      const FoldedScoreChains &folded,
                                      llvm::ArrayRef<mlir::Value> inputs);

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_SCORECHAINS_H
