//===- KernelOps.h - Kernel dialect operations ------------------*- C++ -*-===//

#ifndef MLSOPT_DIALECT_KERNEL_IR_KERNELOPS_H
#define MLSOPT_DIALECT_KERNEL_IR_KERNELOPS_H

#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h.inc"

namespace mlsopt::kernel {

/// Whether `op` is a kernel-dialect op of `function` below its top level (in
/// a loop or a branch) and outside any custom kernel: one that the search
/// does not partition and the GPU pipeline does not launch.
bool isNestedKernelOp(mlir::Operation *op, mlir::Operation *function);

/// Whether `op` makes floats of a mask or integer input (kernel.where,
/// kernel.int_to_float): input-like for the search, whose result a kernel
/// computes from the loaded mask or integers.
inline bool isInputConversion(mlir::Operation *op) {
  return mlir::isa<WhereOp, IntToFloatOp>(op);
}

} // namespace mlsopt::kernel

#endif // MLSOPT_DIALECT_KERNEL_IR_KERNELOPS_H
