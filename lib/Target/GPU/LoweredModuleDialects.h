//===- LoweredModuleDialects.h - What the GPU translations parse -*- C++
//-*-===//

#ifndef MLSOPT_LIB_TARGET_GPU_LOWEREDMODULEDIALECTS_H
#define MLSOPT_LIB_TARGET_GPU_LOWEREDMODULEDIALECTS_H

#include "mlsopt/Dialect/Block/IR/BlockDialect.h"
#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"

#include "mlir/InitAllDialects.h"

namespace mlsopt::gpu {

/// The dialects of a module --emit-ptx and --emit-launch-plan read: every
/// upstream one (the host functions and binaries, kernels not yet compiled
/// to a binary, and the functions the GPU pipeline leaves as they were,
/// linalg on tensors, say), and mlsopt's, so that a module not lowered yet
/// is told so rather than failing to parse.
inline void registerLoweredModuleDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  registry.insert<MLSOptDialect, kernel::KernelDialect, block::BlockDialect,
                  thread::ThreadDialect>();
}

} // namespace mlsopt::gpu

#endif // MLSOPT_LIB_TARGET_GPU_LOWEREDMODULEDIALECTS_H
