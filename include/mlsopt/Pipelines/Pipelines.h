//===- Pipelines.h - mlsopt's pass pipelines --------------------*- C++ -*-===//

#ifndef MLSOPT_PIPELINES_PIPELINES_H
#define MLSOPT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlsopt {

/// --mlsopt-cpu-pipeline: lowers a module that mixes mlsopt's dialects with
/// func, arith, math, tensor and linalg to the LLVM dialect. Custom kernels
/// become loops that follow their block graphs, kernel ops become linalg,
/// then one-shot bufferization (identity layouts at function boundaries, so
/// functions take plain memrefs) and the upstream conversions to LLVM.
void buildCPUPipeline(mlir::OpPassManager &pm);

/// Registers mlsopt's pass pipelines with the global registry.
void registerPipelines();

} // namespace mlsopt

#endif // MLSOPT_PIPELINES_PIPELINES_H
