//===- CustomKernelToLoops.h - Custom kernels to loops ----------*- C++ -*-===//

#ifndef MLSOPT_CONVERSION_CUSTOMKERNELTOLOOPS_CUSTOMKERNELTOLOOPS_H
#define MLSOPT_CONVERSION_CUSTOMKERNELTOLOOPS_CUSTOMKERNELTOLOOPS_H

#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Adds the pattern that rewrites each kernel.custom into loops over its grid
/// and for-loop iterations (see --convert-custom-kernel-to-loops).
void populateCustomKernelToLoopsPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_CUSTOMKERNELTOLOOPS_CUSTOMKERNELTOLOOPS_H
