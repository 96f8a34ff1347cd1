//===- BlockOps.h - Block dialect operations --------------------*- C++ -*-===//

#ifndef MLSOPT_DIALECT_BLOCK_IR_BLOCKOPS_H
#define MLSOPT_DIALECT_BLOCK_IR_BLOCKOPS_H

#include "mlsopt/Dialect/Block/IR/BlockDialect.h"
#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "mlsopt/Dialect/Block/IR/BlockOps.h.inc"

#endif // MLSOPT_DIALECT_BLOCK_IR_BLOCKOPS_H
