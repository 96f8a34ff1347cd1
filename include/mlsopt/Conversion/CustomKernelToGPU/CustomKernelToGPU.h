//===- CustomKernelToGPU.h - Custom kernels to gpu.func ---------*- C++ -*-===//

#ifndef MLSOPT_CONVERSION_CUSTOMKERNELTOGPU_CUSTOMKERNELTOGPU_H
#define MLSOPT_CONVERSION_CUSTOMKERNELTOGPU_CUSTOMKERNELTOGPU_H

#include "llvm/ADT/StringRef.h"

namespace mlsopt {

/// The gpu.module (later gpu.binary) that holds every generated kernel.
inline constexpr llvm::StringLiteral kKernelModuleName = "mlsopt_kernels";

/// Argument attribute of a GPU host function: this memref argument receives
/// result `i` of the original tensor function.
inline constexpr llvm::StringLiteral kResultIndexAttrName =
    "mlsopt.result_index";

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_CUSTOMKERNELTOGPU_CUSTOMKERNELTOGPU_H
