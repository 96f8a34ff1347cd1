//===- ThreadDialect.h - The thread-level dialect ---------------*- C++ -*-===//

#ifndef MLSOPT_DIALECT_THREAD_IR_THREADDIALECT_H
#define MLSOPT_DIALECT_THREAD_IR_THREADDIALECT_H

#include "mlsopt/Dialect/Block/IR/BlockDialect.h"

#include "mlir/IR/Dialect.h"

#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h.inc"
#include "mlsopt/Dialect/Thread/IR/ThreadEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mlsopt/Dialect/Thread/IR/ThreadAttributes.h.inc"

#endif // MLSOPT_DIALECT_THREAD_IR_THREADDIALECT_H
