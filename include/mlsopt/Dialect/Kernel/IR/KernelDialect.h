//===- KernelDialect.h - The kernel-level dialect ---------------*- C++ -*-===//

#ifndef MLSOPT_DIALECT_KERNEL_IR_KERNELDIALECT_H
#define MLSOPT_DIALECT_KERNEL_IR_KERNELDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"

#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mlsopt/Dialect/Kernel/IR/KernelAttributes.h.inc"

#endif // MLSOPT_DIALECT_KERNEL_IR_KERNELDIALECT_H
