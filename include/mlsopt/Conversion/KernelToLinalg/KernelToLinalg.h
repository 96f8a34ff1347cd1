//===- KernelToLinalg.h - The kernel dialect to linalg on tensors -*- C++ -*-===//

#ifndef MLSOPT_CONVERSION_KERNELTOLINALG_KERNELTOLINALG_H
#define MLSOPT_CONVERSION_KERNELTOLINALG_KERNELTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Adds patterns that lower every pre-defined kernel op and every block
/// compute op (matmul, elementwise, reductions, rms_norm, concat, transpose)
/// to linalg, tensor, arith and math ops on tensors.
void populateKernelToLinalgPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_KERNELTOLINALG_KERNELTOLINALG_H
