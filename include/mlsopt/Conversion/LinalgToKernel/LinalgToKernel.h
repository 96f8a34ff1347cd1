//===- LinalgToKernel.h - linalg on tensors to the kernel dialect -*- C++ -*-===//

#ifndef MLSOPT_CONVERSION_LINALGTOKERNEL_LINALGTOKERNEL_H
#define MLSOPT_CONVERSION_LINALGTOKERNEL_LINALGTOKERNEL_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Adds the patterns of --convert-linalg-to-kernel to `patterns`.
void populateLinalgToKernelPatterns(mlir::RewritePatternSet &patterns);

/// Adds the patterns that split mixed-precision linalg ops into
/// `kernel.convert`s and ops of one element type (part of
/// populateLinalgToKernelPatterns, at a lower benefit than the imports).
void populateMixedPrecisionPatterns(mlir::RewritePatternSet &patterns);

/// Adds the pattern that makes a contraction read the input of a
/// linalg.broadcast operand directly, through a map without the added dims
/// (torch-mlir's torch.matmul of a batch by a weight). Part of
/// populateLinalgToKernelPatterns.
void populateBroadcastOperandPatterns(mlir::RewritePatternSet &patterns);

/// Adds the patterns that move elementwise kernel ops, reductions and RMS
/// norms off a [batch, seq, ...] shape onto the rows a matmul flattened it
/// into, so that reshapes end up at the arguments and results instead of
/// between the ops. Part of populateLinalgToKernelPatterns.
void populateFlattenRowsPatterns(mlir::RewritePatternSet &patterns);

/// True if a reshape between `shape` and the shape `groups` merge it into
/// moves between [batch, seq, ...] and flattened rows: a group merges two
/// dims larger than 1, or puts size-1 dims (a batch of one) before a larger
/// dim that is not the innermost. The row patterns move such reshapes to
/// the arguments and results.
bool isRowsReshape(llvm::ArrayRef<int64_t> shape,
                   llvm::ArrayRef<mlir::ReassociationIndices> groups);

/// Adds the pattern that imports tensor.concat (torch.cat) as kernel.concat.
/// Part of populateLinalgToKernelPatterns.
void populateConcatToKernelPatterns(mlir::RewritePatternSet &patterns);

/// GELU's tanh approximation spelled out in kernel ops (as the import of
/// GPT-2's MLP writes it) -> kernel.gelu_tanh.
void populateGeluTanhPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_LINALGTOKERNEL_LINALGTOKERNEL_H
