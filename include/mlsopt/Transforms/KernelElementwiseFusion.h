//===- KernelElementwiseFusion.h - Elementwise ops into kernels -*- C++ -*-===//

#ifndef MLSOPT_TRANSFORMS_KERNELELEMENTWISEFUSION_H
#define MLSOPT_TRANSFORMS_KERNELELEMENTWISEFUSION_H

#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Moves elementwise kernel ops into the custom kernels beside them: as an
/// epilogue, after the for-loop of the kernel that produces all their
/// operands (when its blocks store matching tiles of them), or as a
/// prologue, on the loaded tiles of their operands in the one kernel that
/// reads their result (when the cost model finds that faster). Drops the
/// outputs nothing reads then, and wraps the new block ops in thread
/// graphs. `--superoptimize` applies them after it replaced a function's
/// subprograms; `--fuse-kernel-elementwise` alone.
void populateFuseKernelElementwisePatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_KERNELELEMENTWISEFUSION_H
