//===- PTX.h - The PTX of a lowered module ----------------------*- C++ -*-===//

#ifndef MLSOPT_TARGET_GPU_PTX_H
#define MLSOPT_TARGET_GPU_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlsopt::gpu {

/// Prints the PTX of every gpu.binary in `module` (the output of
/// --mlsopt-gpu-pipeline), each preceded by a `// gpu.binary @name` line.
/// Fails with a diagnostic when there is no binary or one holds anything but
/// PTX (lowered with a format other than `isa`).
mlir::LogicalResult translateToPTX(mlir::ModuleOp module,
                                   llvm::raw_ostream &os);

/// Registers `mlsopt-translate --emit-ptx`.
void registerToPTXTranslation();

} // namespace mlsopt::gpu

#endif // MLSOPT_TARGET_GPU_PTX_H
