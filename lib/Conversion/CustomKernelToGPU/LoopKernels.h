//===- LoopKernels.h - Linalg ops the import left, on the GPU ---*- C++ -*-===//
//
// Private to CustomKernelToGPU. A linalg op the import cannot express in the
// kernel dialect (an argmax, an embedding's gather, math.atan) would keep
// its whole function off the GPU. It runs instead as a kernel of its own:
// one thread per point of its parallel loops, which runs the reduction loops
// in order and applies the payload as linalg defines it. No tiles and no
// search: a fallback that is correct, not fast. A long reduction into few
// elements (an argmax) is split into chunks that threads share.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_CONVERSION_CUSTOMKERNELTOGPU_LOOPKERNELS_H
#define MLSOPT_LIB_CONVERSION_CUSTOMKERNELTOGPU_LOOPKERNELS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>
#include <string>

namespace mlsopt::gpu_codegen {

/// Why `op` cannot run as a loop kernel; none when it can.
std::optional<std::string> whyNoLoopKernel(mlir::linalg::LinalgOp op);

/// Whether `op` is a linalg.fill of a scalar constant that only loop kernels
/// read, as an input or as the init their payloads start from: they read
/// the constant, and the fill is no launch of its own.
bool isFoldedIntoLoopKernels(mlir::Operation &op);

/// The tensors the loop kernel of `op` reads, its arguments before its
/// results: the inputs, the inits its payload reads (but a fill of a
/// constant, which the kernel starts from), and the tensors its payload
/// extracts elements of.
llvm::SmallVector<mlir::Value> getLoopKernelInputs(mlir::linalg::LinalgOp op);

/// The two loop kernels a long reduction is split into: `partial` reduces
/// `chunks` chunks of `chunkLength` iterations of the outermost reduction
/// loop each, `combine` reduces their partial results.
struct SplitLoopKernel {
  mlir::linalg::GenericOp partial, combine;
  int64_t chunks, chunkLength;
};

/// Where `op` (a loop kernel) has few result elements and a long reduction
/// whose payload folds or selects (SplitReductions.cpp), replaces it by the
/// two generics of a split reduction and returns them; none otherwise.
std::optional<SplitLoopKernel>
splitLoopKernelReduction(mlir::linalg::LinalgOp op);

/// Whether the readers of the result of `op`, a loop kernel, may compute
/// the elements they read instead of loading what a launch of its own
/// wrote: a mask a decode step computes from its position, whose launch
/// would cost more than its elements. `op` has one result, parallel loops
/// only, a payload that does not read its init, and is a mask (i1 elements)
/// or reads scalars alone (0-d tensors and constants).
bool isComputedWhereRead(mlir::linalg::LinalgOp op);

/// The element at `indices` of the result of `op` (isComputedWhereRead),
/// computed at `b`'s insertion point from `inputs`, the memrefs of
/// getLoopKernelInputs(op).
mlir::Value emitLoopKernelElement(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::linalg::LinalgOp op,
                                  mlir::ValueRange indices,
                                  mlir::ValueRange inputs);

/// Fills `func`, whose arguments are the memrefs of getLoopKernelInputs(op)
/// and then of the results of `op`, with the loop kernel of `op`.
void emitLoopKernel(mlir::linalg::LinalgOp op, mlir::gpu::GPUFuncOp func);

} // namespace mlsopt::gpu_codegen

#endif // MLSOPT_LIB_CONVERSION_CUSTOMKERNELTOGPU_LOOPKERNELS_H
