//===- KernelIdioms.h - Spelled-out kernel idioms as single ops -*- C++ -*-===//

#ifndef MLSOPT_TRANSFORMS_KERNELIDIOMS_H
#define MLSOPT_TRANSFORMS_KERNELIDIOMS_H

#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Rewrites x * rsqrt(mean(x^2 over a dim) + eps) and x / sqrt(...) into
/// kernel.rms_norm over that dim. `--superoptimize` applies them before it
/// cuts a function into subprograms; `--raise-kernel-idioms` alone.
void populateRaiseKernelIdiomPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_KERNELIDIOMS_H
