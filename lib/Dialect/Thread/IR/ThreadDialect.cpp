//===- ThreadDialect.cpp - The thread-level dialect -----------------------===//

#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"
#include "mlsopt/Dialect/Common/InlineAnywhere.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlsopt::thread;

#include "mlsopt/Dialect/Thread/IR/ThreadDialect.cpp.inc"
#include "mlsopt/Dialect/Thread/IR/ThreadEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mlsopt/Dialect/Thread/IR/ThreadAttributes.cpp.inc"

void ThreadDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mlsopt/Dialect/Thread/IR/ThreadOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mlsopt/Dialect/Thread/IR/ThreadAttributes.cpp.inc"
      >();
  addInterfaces<mlsopt::InlineAnywhereInterface>();
}
