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

#endif // MLSOPT_DIALECT_KERNEL_IR_KERNELOPS_H
