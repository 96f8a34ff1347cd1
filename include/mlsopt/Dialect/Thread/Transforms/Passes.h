//===- Passes.h - Thread dialect passes -------------------------*- C++ -*-===//

#ifndef MLSOPT_DIALECT_THREAD_TRANSFORMS_PASSES_H
#define MLSOPT_DIALECT_THREAD_TRANSFORMS_PASSES_H

#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlsopt::thread {

#define GEN_PASS_DECL
#include "mlsopt/Dialect/Thread/Transforms/Passes.h.inc"

/// Adds the patterns of --thread-fuse-elementwise to `patterns`.
void populateFuseElementwisePatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "mlsopt/Dialect/Thread/Transforms/Passes.h.inc"

} // namespace mlsopt::thread

#endif // MLSOPT_DIALECT_THREAD_TRANSFORMS_PASSES_H
