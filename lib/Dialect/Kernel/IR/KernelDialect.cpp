//===- KernelDialect.cpp - The kernel-level dialect -----------------------===//

#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h"
#include "mlsopt/Dialect/Common/InlineAnywhere.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlsopt::kernel;

#include "mlsopt/Dialect/Kernel/IR/KernelDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mlsopt/Dialect/Kernel/IR/KernelAttributes.cpp.inc"

void KernelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mlsopt/Dialect/Kernel/IR/KernelOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mlsopt/Dialect/Kernel/IR/KernelAttributes.cpp.inc"
      >();
  addInterfaces<mlsopt::InlineAnywhereInterface>();
}

LogicalResult Dim3Attr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t x, int64_t y, int64_t z) {
  if (x < 1 || y < 1 || z < 1)
    return emitError() << "dim3 sizes must be positive, got <" << x << ", "
                       << y << ", " << z << ">";
  return success();
}
