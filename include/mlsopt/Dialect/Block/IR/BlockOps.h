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

/// The element type of a tile loaded from an input of element type
/// `source` for a kernel that wants `wanted`: a mask or integers load as
/// stored (block.where and block.int_to_float make floats of them, the
/// rule LoadOp's verifier checks), floats convert as they load.
mlir::Type getLoadedElementType(mlir::Type source, mlir::Type wanted);

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
