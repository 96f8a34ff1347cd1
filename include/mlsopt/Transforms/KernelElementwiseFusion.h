//===- KernelElementwiseFusion.h - Elementwise ops into kernels -*- C++ -*-===//

#ifndef MLSOPT_TRANSFORMS_KERNELELEMENTWISEFUSION_H
#define MLSOPT_TRANSFORMS_KERNELELEMENTWISEFUSION_H

#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Search/CostModel.h"
#include "mlsopt/Support/Target.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlsopt {

/// Moves elementwise kernel ops (and rms_norms whose tiles hold whole rows
/// of the normalized dim) into the custom kernels beside them: as an
/// epilogue, after the for-loop of the kernel that produces all their
/// operands (when its blocks store matching tiles of them), or as a
/// prologue, on the loaded tiles of their operands in the one kernel that
/// reads their result (when the cost model finds that faster). Drops the
/// outputs nothing reads then. The new block ops become thread graphs
/// afterwards (thread::fuseElementwiseWithinSharedMemory), kernel by
/// kernel, where the merged graphs fit. `--superoptimize` applies them after it
/// replaced a function's subprograms, for its target and with its cost model
/// options;
/// `--fuse-kernel-elementwise` alone, for the module's (mlsopt.target, else
/// the default) with the roofline and, unless its `latency-veto` is off,
/// the latency veto.
void populateFuseKernelElementwisePatterns(
    mlir::RewritePatternSet &patterns,
    std::optional<TargetInfo> target = std::nullopt,
    search::CostModelOptions costOptions = {});

/// Whether `op` is an elementwise kernel op with one result, or an
/// rms_norm (elementwise once a tile holds whole rows of its dim), all of
/// whose operands have its rank (numpy broadcasting only stretches size-1
/// dims): what populateFuseKernelElementwisePatterns moves into a kernel
/// beside it. A causal mask is too, given its tile's place (createTileOp).
bool isFusableElementwise(mlir::Operation *op);

/// The custom kernel whose epilogue populateFuseKernelElementwisePatterns
/// may make `op`: the first custom kernel `op` reads, in its block, where
/// every other operand of `op` is an output of it or exists before it (a
/// bias, a gain); null if there is none.
kernel::CustomOp getEpilogueKernel(mlir::Operation *op);

/// Moves kernel.convert ops into the custom kernels beside them: a
/// conversion only kernels read becomes converting loads of its operand, and
/// a conversion of a kernel output nothing else reads a converting store.
/// Part of populateFuseKernelElementwisePatterns.
void populateFuseConversionPatterns(mlir::RewritePatternSet &patterns);

/// Makes a pre-defined kernel op beside a conversion or a transpose, which
/// no subprogram of the search holds, the kernel of its default block graph
/// (tiles fitting `maxSharedMemBytes`) where that kernel can then do the
/// copy in its loads or stores. Part of
/// populateFuseKernelElementwisePatterns.
void populateWrapKernelsBesideCopiesPatterns(mlir::RewritePatternSet &patterns,
                                             int64_t maxSharedMemBytes);

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_KERNELELEMENTWISEFUSION_H
