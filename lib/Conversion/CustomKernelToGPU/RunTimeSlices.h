//===- RunTimeSlices.h - Slices at run-time offsets on the GPU --*- C++ -*-===//
//
// Private to CustomKernelToGPU. A decode step writes its key and value rows
// into a KV cache at the position it is given (`tensor.insert_slice %k into
// %cache[%pos, 0]`), or reads a row at one (`tensor.extract_slice`). Each
// such slice is a kernel of its own, one thread per result element, which
// computes the offsets from the scalar arguments they read (the 0-d
// tensors the function takes them as) and clamps them into the tensor.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_CONVERSION_CUSTOMKERNELTOGPU_RUNTIMESLICES_H
#define MLSOPT_LIB_CONVERSION_CUSTOMKERNELTOGPU_RUNTIMESLICES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <optional>
#include <string>

namespace mlsopt::gpu_codegen {

/// Why `op`, a slice at run-time offsets (isRunTimeSlice), cannot run as a
/// kernel: a dynamic shape, a run-time size or stride, an insert with
/// strides, offsets not computed from constants and scalar arguments
/// alone; none when it can.
std::optional<std::string> whyNoRunTimeSliceKernel(mlir::Operation *op);

/// Whether `op` computes a scalar that only the offsets of run-time slices
/// read (`index_cast(extract(%pos))`, `%pos + 1`): the slice kernels
/// compute it again, so it is no host code.
bool onlyFeedsRunTimeSlices(mlir::Operation &op);

/// The tensors the kernel of the run-time slice `op` reads: its source, an
/// insert's destination, then the 0-d tensors its offsets read.
llvm::SmallVector<mlir::Value> getRunTimeSliceInputs(mlir::Operation *op);

/// Fills `func`, whose arguments are the memrefs of
/// getRunTimeSliceInputs(op) and then of its result, with the kernel of
/// `op`.
void emitRunTimeSliceKernel(mlir::Operation *op, mlir::gpu::GPUFuncOp func);

} // namespace mlsopt::gpu_codegen

#endif // MLSOPT_LIB_CONVERSION_CUSTOMKERNELTOGPU_RUNTIMESLICES_H
