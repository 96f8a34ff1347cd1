//===- KernelEpilogues.h - Elementwise kernel ops into producers -*- C++
//-*-===//

#ifndef MLSOPT_TRANSFORMS_KERNELEPILOGUES_H
#define MLSOPT_TRANSFORMS_KERNELEPILOGUES_H

#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Computes an elementwise kernel op whose operands are all outputs of one
/// custom kernel in that kernel, after its for-loop, when the kernel's
/// blocks store matching tiles of them; drops the outputs nothing reads
/// then; wraps the new block ops in thread graphs. `--superoptimize`
/// applies them after it replaced a function's subprograms;
/// `--fuse-kernel-epilogues` alone.
void populateFuseKernelEpiloguePatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_KERNELEPILOGUES_H
