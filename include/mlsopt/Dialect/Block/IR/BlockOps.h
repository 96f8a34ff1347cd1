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
#include "llvm/ADT/SmallBitVector.h"

namespace mlsopt::block {
/// Whether `actual` is the one `inferred` tensor type or, where that holds
/// f16 or bf16, the same shape in f32: a widening block.matmul's result.
bool isWidenedResult(mlir::TypeRange inferred, mlir::TypeRange actual);
/// custom<WidenedResult>: `-> type` after a matmul's operand types when its
/// result is widened, nothing (the inferred type) otherwise.
mlir::ParseResult parseWidenedResult(mlir::OpAsmParser &parser,
                                     mlir::Type &result, mlir::Type lhs,
                                     mlir::Type rhs);
void printWidenedResult(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                        mlir::Type result, mlir::Type lhs, mlir::Type rhs);
} // namespace mlsopt::block

#define GET_OP_CLASSES
#include "mlsopt/Dialect/Block/IR/BlockOps.h.inc"

#endif // MLSOPT_DIALECT_BLOCK_IR_BLOCKOPS_H
