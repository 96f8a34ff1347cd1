//===- BlockDialect.h - The block-level dialect -----------------*- C++ -*-===//

#ifndef MLSOPT_DIALECT_BLOCK_IR_BLOCKDIALECT_H
#define MLSOPT_DIALECT_BLOCK_IR_BLOCKDIALECT_H

#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h"
#include "mlsopt/Support/TileShapes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "mlsopt/Dialect/Block/IR/BlockDialect.h.inc"
#include "mlsopt/Dialect/Block/IR/BlockEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mlsopt/Dialect/Block/IR/BlockAttributes.h.inc"

#endif // MLSOPT_DIALECT_BLOCK_IR_BLOCKDIALECT_H
