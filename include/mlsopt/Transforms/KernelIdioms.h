//===- KernelIdioms.h - Spelled-out kernel idioms as single ops -*- C++ -*-===//

#ifndef MLSOPT_TRANSFORMS_KERNELIDIOMS_H
#define MLSOPT_TRANSFORMS_KERNELIDIOMS_H

#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Rewrites x * rsqrt(mean(x^2 over a dim) + eps) and x / sqrt(...) into
/// kernel.rms_norm over that dim. `--superoptimize` applies them before it
/// cuts a function into subprograms; `--raise-kernel-idioms` alone.
void populateRaiseKernelIdiomPatterns(mlir::RewritePatternSet &patterns);

/// Moves a transpose of a value computed from function arguments by
/// elementwise ops and reductions alone onto those arguments (the ops then
/// compute on the transposed values), where nothing reads the values in
/// their old layout. Part of populateRaiseKernelIdiomPatterns.
void populateHoistTransposePatterns(mlir::RewritePatternSet &patterns);

/// Gives an operand of a kernel binary op (`add`, `sub`, `mul`, `div`) of
/// lower rank than the result its leading size-1 dims explicitly, with a
/// tensor.expand_shape: numpy broadcasting reads it the same, and the search
/// unifies dims of equal rank only. A bias `[n]` added to `[m, n]` (the
/// imported form of a linear layer's bias, a LayerNorm's gain) becomes
/// `[1, n]`. `--superoptimize` applies them before it cuts a function into
/// subprograms.
void populateAlignOperandRankPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_KERNELIDIOMS_H
