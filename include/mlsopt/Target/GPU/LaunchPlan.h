//===- LaunchPlan.h - How to run a lowered module ---------------*- C++ -*-===//
//
// The launch plan is the contract between the GPU pipeline and whatever runs
// its kernels (the Python package, CuPy, cuda-python): for each host function
// the ordered kernel launches with their configuration and arguments. Its
// JSON format is described in docs/gpu.md.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_TARGET_GPU_LAUNCHPLAN_H
#define MLSOPT_TARGET_GPU_LAUNCHPLAN_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlsopt::gpu {

/// Version of the launch plan's JSON format; bumped on incompatible changes.
inline constexpr int kLaunchPlanVersion = 1;

/// Writes the launch plan of `module` (the output of --mlsopt-gpu-pipeline,
/// or of --convert-custom-kernel-to-gpu) as JSON. Fails with a diagnostic
/// when a launch has a non-constant configuration or an argument that is
/// neither a function argument nor a gpu.alloc.
mlir::LogicalResult translateToLaunchPlan(mlir::ModuleOp module,
                                          llvm::raw_ostream &os);

/// Registers `mlsopt-translate --emit-launch-plan`.
void registerToLaunchPlanTranslation();

} // namespace mlsopt::gpu

#endif // MLSOPT_TARGET_GPU_LAUNCHPLAN_H
