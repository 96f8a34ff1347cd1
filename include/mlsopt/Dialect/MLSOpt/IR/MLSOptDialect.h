//===- MLSOptDialect.h - The mlsopt attribute namespace ---------*- C++ -*-===//

#ifndef MLSOPT_DIALECT_MLSOPT_IR_MLSOPTDIALECT_H
#define MLSOPT_DIALECT_MLSOPT_IR_MLSOPTDIALECT_H

#include "mlir/IR/Dialect.h"

#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h.inc"

#endif // MLSOPT_DIALECT_MLSOPT_IR_MLSOPTDIALECT_H
