//===- LinalgToKernel.h - linalg on tensors to the kernel dialect -*- C++ -*-===//

#ifndef MLSOPT_CONVERSION_LINALGTOKERNEL_LINALGTOKERNEL_H
#define MLSOPT_CONVERSION_LINALGTOKERNEL_LINALGTOKERNEL_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlsopt {

/// Adds the patterns of --convert-linalg-to-kernel to `patterns`.
void populateLinalgToKernelPatterns(mlir::RewritePatternSet &patterns);

/// The contraction dims of `op` when they make a matmul: batch dims, and M,
/// N and K dims (none of them empty) that cover every loop. Those are the
/// contractions the import makes kernel.matmul of.
mlir::FailureOr<mlir::linalg::ContractionDimensions>
inferMatmulDims(mlir::linalg::LinalgOp op);

/// Adds the patterns that split mixed-precision linalg ops into
/// `kernel.convert`s and ops of one element type (part of
/// populateLinalgToKernelPatterns, at a lower benefit than the imports).
void populateMixedPrecisionPatterns(mlir::RewritePatternSet &patterns);

/// Adds the pattern that makes a contraction read the input of a
/// linalg.broadcast operand directly, through a map without the added dims
/// (torch-mlir's torch.matmul of a batch by a weight). Part of
/// populateLinalgToKernelPatterns.
void populateBroadcastOperandPatterns(mlir::RewritePatternSet &patterns);

/// Adds the pattern that computes a float a generic's payload converts from
/// integers of its loop indices alone (ALiBi's float(j - i)) into a dense
/// constant the generic reads instead. Part of
/// populateLinalgToKernelPatterns.
void populateIndexTablePatterns(mlir::RewritePatternSet &patterns);

/// Adds the patterns that move elementwise kernel ops, reductions and RMS
/// norms off a [batch, seq, ...] shape onto the rows a matmul flattened it
/// into, so that reshapes end up at the arguments and results instead of
/// between the ops. Part of populateLinalgToKernelPatterns.
void populateFlattenRowsPatterns(mlir::RewritePatternSet &patterns);

/// True if a reshape between `shape` and the shape `groups` merge it into
/// moves between [batch, seq, ...] and flattened rows: a group merges two
/// dims larger than 1, puts size-1 dims (a batch of one) before a larger
/// dim that is not the innermost, or merges only size-1 dims that are not
/// the innermost (the one token of a batch of one). The row patterns move
/// such reshapes to the arguments and results.
bool isRowsReshape(llvm::ArrayRef<int64_t> shape,
                   llvm::ArrayRef<mlir::ReassociationIndices> groups);

/// True for the kernel ops FlattenRows computes on flattened rows:
/// elementwise ops (with numpy broadcasting), conversions, and reductions
/// and RMS norms over one dim.
bool flattensOnRows(mlir::Operation *op);

/// True if `collapse` moves [batch, seq, ...] to flattened rows:
/// isRowsReshape, or a group of one dim larger than 1 and size-1 dims after
/// it (the one token of a decode step, [b, 1, hidden] to [b, hidden]) that
/// no reduction kept. By shape alone the latter is also a reduction's kept
/// dim that linalg drops ([b, 1, n] of a sum over dim 1), which the import's
/// unit-dim patterns move instead; so it says which by the ops that compute
/// the collapsed value.
bool isRowsCollapse(mlir::tensor::CollapseShapeOp collapse);

/// Adds the patterns that read through, or move away, the reshapes of
/// size-1 dims the import leaves between kernel ops (UnitReshapes.cpp). Part
/// of populateLinalgToKernelPatterns.
void populateUnitReshapePatterns(mlir::RewritePatternSet &patterns);

/// Chains of tensor.collapse_shape and tensor.expand_shape that one reshape
/// does become that reshape.
void populateReshapeCompositionPatterns(mlir::RewritePatternSet &patterns);

/// Why --convert-linalg-to-kernel leaves the linalg op `op` (a contraction,
/// an elementwise op, a reduction or a softmax) as it is: the reason its
/// import gave up ("payload op 'math.atan' has no kernel op"), an empty
/// string where none is known, or nothing if the import does take it (it
/// was not run). Tried on a copy of the function, so the IR is left as it
/// is.
std::optional<std::string> explainNotImported(mlir::Operation *op);

/// Whether `op` (a linalg.fill of zeros, say) only gives other linalg ops
/// the tensors they write into: the op that reads it is the one to report.
bool onlyInitializesLinalgOps(mlir::Operation *op);

/// Calls `callback` on each op of the linalg dialect under `root`, in
/// order, but not on one that onlyInitializesLinalgOps nor on those nested
/// in another (a linalg.yield): the ops the import left, as the remarks of
/// --convert-linalg-to-kernel and the errors of the GPU pipeline name them.
/// Stops where `callback` interrupts.
void walkLeftLinalgOps(
    mlir::Operation *root,
    llvm::function_ref<mlir::WalkResult(mlir::Operation *)> callback);

/// The dim a reduction or an RMS norm works on, if `op` has one.
std::optional<int64_t> getWorkingDim(mlir::Operation *op);

/// Sets the dim a reduction or an RMS norm `op` works on.
void setWorkingDim(mlir::RewriterBase &rewriter, mlir::Operation *op,
                   int64_t dim);

/// Batch matmuls on the rows the ops between them need: a matmul by keys or
/// values repeated for each query head of a group (grouped-query attention)
/// becomes a matmul of each group's query heads, stacked as rows, by the
/// keys as they are; a matmul of merged [b, h] batch dims computes on them
/// unmerged where an op between the matmuls stayed there (a padding mask).
/// Run after the import's patterns, once the ops between the matmuls are
/// kernel ops.
void populateBatchMatmulRowsPatterns(mlir::RewritePatternSet &patterns);

/// A safe softmax of f16 or bf16 values computed in f32 between two
/// kernel.converts becomes the safe softmax of the narrow values
/// (NarrowSoftmax.cpp says how much the rounding differs). Run after the
/// import's patterns, under `narrow-softmax`.
void populateNarrowSoftmaxPatterns(mlir::RewritePatternSet &patterns);

/// Adds the pattern that imports tensor.concat (torch.cat) as kernel.concat.
/// Part of populateLinalgToKernelPatterns.
void populateConcatToKernelPatterns(mlir::RewritePatternSet &patterns);

/// A tensor.extract_slice with a stride (`x[..., ::2]`) as a unit-stride
/// window of the dim split into [n / stride, stride]. Part of
/// populateLinalgToKernelPatterns.
void populateStridedSlicePatterns(mlir::RewritePatternSet &patterns);

/// Elementwise kernel ops around a collapse of a last dim split in two
/// (stacked pairs, flattened) computed on the split view. Not part of
/// populateLinalgToKernelPatterns, whose row patterns flatten the other way:
/// the import runs them after.
void populatePairsViewPatterns(mlir::RewritePatternSet &patterns);

/// A linalg.generic with several results, none of whose payloads reads
/// another's output, as one generic per result. Part of
/// populateLinalgToKernelPatterns.
void populateSplitResultsPatterns(mlir::RewritePatternSet &patterns);

/// Activations spelled out in kernel ops, matched by value: GELU's tanh
/// approximation (as the import of GPT-2's MLP writes it) ->
/// kernel.gelu_tanh; the logistic function through tanh or exp ->
/// kernel.sigmoid; x times it -> kernel.silu.
void populateActivationIdiomPatterns(mlir::RewritePatternSet &patterns);

/// The value a linalg.fill, or a parallel generic of one output through a
/// permutation map, writes to every element of its output (a payload value,
/// constant or not, for the generic), or null.
mlir::Value getFilledValue(mlir::linalg::LinalgOp op);

/// The constant a linalg.fill writes into `tensor` (an argmax's -inf init,
/// a ones_like), if `tensor` is such a fill's result; null otherwise.
mlir::TypedAttr getFillConstant(mlir::Value tensor);

/// A linalg.fill of a constant, or a parallel generic yielding one, that no
/// linalg op reads (a returned torch.zeros_like) -> the splat constant. Part
/// of populateLinalgToKernelPatterns.
void populateConstantFillPatterns(mlir::RewritePatternSet &patterns);

/// A generic whose payload reads an element of a tensor at constant indices
/// from above (`tensor.extract %alpha[]` of a 0-d tensor, torch's scalar
/// passed as a tensor) -> the same generic reading that tensor as an input
/// through a constant map, which the import takes like any broadcast
/// operand. Part of populateLinalgToKernelPatterns.
void populateCapturedElementPatterns(mlir::RewritePatternSet &patterns);

/// A generic selecting on a condition its payload computes from loop
/// indices and integers (`key > %past`, `ids[j] != pad`), other than a
/// union of triangles -> a generic computing that condition as an i1 mask
/// over the loops it varies along, which the first reads as a boolean
/// input, at a lower benefit than the imports. Part of
/// populateLinalgToKernelPatterns.
void populateComputedMaskPatterns(mlir::RewritePatternSet &patterns);

/// A contraction whose payload multiplies more than its two operands,
/// `acc + f1 * ... * fn` (a finite scale, a third einsum operand, a fused
/// activation) -> the plain contraction of two parallel generics, each the
/// product of the factors that read one side of the matmul; a constant
/// scales the smaller side. Part of populateLinalgToKernelPatterns.
void populateFactoredContractionPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_LINALGTOKERNEL_LINALGTOKERNEL_H
