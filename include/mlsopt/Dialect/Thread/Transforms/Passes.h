//===- Passes.h - Thread dialect passes -------------------------*- C++ -*-===//

#ifndef MLSOPT_DIALECT_THREAD_TRANSFORMS_PASSES_H
#define MLSOPT_DIALECT_THREAD_TRANSFORMS_PASSES_H

#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

#include <cstdint>
#include <optional>

namespace mlsopt::thread {

#define GEN_PASS_DECL
#include "mlsopt/Dialect/Thread/Transforms/Passes.h.inc"

/// Adds the patterns of --thread-fuse-elementwise to `patterns`.
void populateFuseElementwisePatterns(mlir::RewritePatternSet &patterns);

/// Applies the patterns of --thread-fuse-elementwise to the block graph of
/// every custom kernel under `root` whose fused graph still needs at most
/// `maxSharedMemBytes` of shared memory (by default, what a block has on the
/// kernel's target, mlsopt.target); a kernel whose fused graph needs more
/// keeps its block graph as it was. Merged graphs keep values live
/// longer and make loads' first readers earlier (an epilogue's gain and
/// bias read beside the row their norm is computing), which can take more
/// shared memory than the block graph the search sized for the target.
void fuseElementwiseWithinSharedMemory(
    mlir::Operation *root,
    std::optional<int64_t> maxSharedMemBytes = std::nullopt);

#define GEN_PASS_REGISTRATION
#include "mlsopt/Dialect/Thread/Transforms/Passes.h.inc"

} // namespace mlsopt::thread

#endif // MLSOPT_DIALECT_THREAD_TRANSFORMS_PASSES_H
