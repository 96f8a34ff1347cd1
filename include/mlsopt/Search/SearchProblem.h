//===- SearchProblem.h - A subprogram handed to the search ------*- C++ -*-===//
//
// The superoptimizer searches one subprogram at a time: a few pre-defined
// kernel ops cut out of a function. This header turns such ops into the
// search's own form (a reference KernelGraph over dimension classes) and
// collects what the enumeration may build: the op kinds and constants the
// program uses.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SEARCH_SEARCHPROBLEM_H
#define MLSOPT_SEARCH_SEARCHPROBLEM_H

#include "mlsopt/Search/CostModel.h"
#include "mlsopt/Search/SearchGraph.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SetVector.h"

namespace mlsopt::kernel {
class ConvertOp;
} // namespace mlsopt::kernel

namespace mlsopt::search {

struct SearchProblem {
  /// The subprogram as given: pre-defined kernel ops only.
  KernelGraph reference;
  /// The subprogram input each of the reference's inputs reads. An input
  /// that ops read in tilings no one kernel can share is read by several
  /// (buildSearchProblem).
  llvm::SmallVector<mlir::Value> inputValues;
  /// Its element type, the dims of its arguments and each class's extent.
  ShapeContext shapes;
  /// The dims of every value of the reference.
  llvm::SmallVector<Dims> referenceDims;
  /// Op kinds the enumeration tries: those of the reference, and the
  /// pieces of rms_norm (square, sums, 1/n, epsilon, square root,
  /// division), which fused kernels compute across a for-loop.
  llvm::SmallVector<OpKind> vocabulary;
  /// Constants of scalar ops.
  llvm::SmallVector<Scalar> scalars;
  /// Classes the reference sums over (matmul contractions, reduce_sum,
  /// the mean of rms_norm) and takes maxima over. No axiom brings a
  /// reduction over another dim into an equivalent program, so the
  /// enumeration reduces over these only: a dim-aware check that the
  /// per-tensor abstract expressions cannot make.
  llvm::SmallSetVector<int, 4> sumClasses;
  llvm::SmallSetVector<int, 4> maxClasses;
  /// Classes the reference's rms_norm ops normalize over: the enumeration
  /// tries rms_norm over these only (any other is a different function).
  llvm::SmallSetVector<int, 4> normClasses;
  /// Epsilons of the reference's rms_norm ops.
  llvm::SmallVector<double> epsilons;
  /// The reference's triangle_fill ops (their operands aside): the masks the
  /// enumeration tries, each where it applies (isTriangleApplicable).
  llvm::SmallVector<SOp> triangles;
  /// The cost of the subprogram as given, where that is not the
  /// reference's: one of f16 or bf16, or that mixes element types, moves
  /// and multiplies f16 or bf16 where the reference, all in
  /// shapes.elementType, would f32. Set by
  /// the caller, which knows the target; a μGraph must beat it.
  std::optional<KernelCost> inputCost;

  bool uses(OpKind kind) const { return llvm::is_contained(vocabulary, kind); }
  /// The class counting the chunks `cls` may be split into across the grid
  /// (ShapeContext::chunkOf), or Dim::kOne.
  int getChunkClass(int cls) const {
    for (auto [chunk, of] : llvm::enumerate(shapes.chunkOf))
      if (of == cls && cls != Dim::kOne)
        return chunk;
    return Dim::kOne;
  }
  /// Whether `cls` counts the chunks of another class.
  bool isChunkClass(int cls) const {
    return cls >= 0 && static_cast<size_t>(cls) < shapes.chunkOf.size() &&
           shapes.chunkOf[cls] != Dim::kOne;
  }
};

/// Whether the search can take `op` into a subprogram.
bool isSearchableOp(mlir::Operation *op);

/// Whether `convert` can change a value (f32 to f16, f16 to bf16, ...).
bool isRoundingConversion(kernel::ConvertOp convert);

/// Whether `convert` is a rounding the program asks for: of a value it also
/// computes with unrounded or rounded otherwise (`extf(truncf(x)) - x`), or
/// of a function argument widened again before the program computes with
/// it (`extf(truncf(x)) * 2`). Such a conversion is no part of a search
/// problem: the search sees through conversions, and would drop it.
bool isExplicitRounding(kernel::ConvertOp convert);

/// Builds the problem for `ops` (pre-defined kernel ops in program order;
/// isSearchableOp holds for each), whose arguments are `inputs` and whose
/// results are `outputs`. Fails if the ops' shapes do not unify into
/// classes the search can handle (e.g. a batch dim that broadcasts). The
/// problem's inputs are `inputs`, followed by any second reads of them
/// (SearchProblem::inputValues).
mlir::FailureOr<SearchProblem> buildSearchProblem(
    llvm::ArrayRef<mlir::Operation *> ops, llvm::ArrayRef<mlir::Value> inputs,
    llvm::ArrayRef<mlir::Value> outputs);

/// The problem at small extents: every class of extent above `smallExtent`
/// shrinks to it (a class whose extent is smaller stays), which keeps every
/// candidate's structure and makes the finite-field screening cheap.
ShapeContext getScreeningShapes(const ShapeContext &shapes,
                                int64_t smallExtent = 4);

} // namespace mlsopt::search

#endif // MLSOPT_SEARCH_SEARCHPROBLEM_H
