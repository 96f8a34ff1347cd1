//===- KernelIdioms.h - Spelled-out kernel idioms as single ops -*- C++ -*-===//

#ifndef MLSOPT_TRANSFORMS_KERNELIDIOMS_H
#define MLSOPT_TRANSFORMS_KERNELIDIOMS_H

#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Rewrites x * rsqrt(mean(x^2 over the last dim) + eps) and
/// x / sqrt(...) into kernel.rms_norm. `--superoptimize` applies them before
/// it cuts a function into subprograms.
void populateRaiseKernelIdiomPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_KERNELIDIOMS_H
