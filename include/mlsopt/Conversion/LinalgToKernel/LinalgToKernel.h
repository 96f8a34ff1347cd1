//===- LinalgToKernel.h - linalg on tensors to the kernel dialect -*- C++ -*-===//

#ifndef MLSOPT_CONVERSION_LINALGTOKERNEL_LINALGTOKERNEL_H
#define MLSOPT_CONVERSION_LINALGTOKERNEL_LINALGTOKERNEL_H

#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Adds the patterns of --convert-linalg-to-kernel to `patterns`.
void populateLinalgToKernelPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_LINALGTOKERNEL_LINALGTOKERNEL_H
