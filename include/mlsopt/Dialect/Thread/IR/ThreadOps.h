//===- ThreadOps.h - Thread dialect operations ------------------*- C++ -*-===//

#ifndef MLSOPT_DIALECT_THREAD_IR_THREADOPS_H
#define MLSOPT_DIALECT_THREAD_IR_THREADOPS_H

#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h.inc"

namespace mlsopt {
/// Whether `name` is the mnemonic of an op of an element and a constant
/// (MLSOpt_ScalarOpList in TensorOps.td: mul_scalar, add_scalar,
/// max_scalar, min_scalar), which every level spells the same.
bool isScalarOpName(llvm::StringRef name);

/// Whether `op` is a block op with a one-element form in the thread
/// dialect: a unary or binary kind (the block and thread ops share their
/// mnemonics, both come from one list in TensorOps.td), an op of an element
/// and a constant, or a conversion. Thread-graph fusion builds those forms,
/// and the GPU lowering computes them per element.
bool hasThreadForm(mlir::Operation *op);
} // namespace mlsopt

#endif // MLSOPT_DIALECT_THREAD_IR_THREADOPS_H
