//===- MLSOptDialect.cpp - The mlsopt attribute namespace -----------------===//

#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/Support/Target.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlsopt;

#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.cpp.inc"

void MLSOptDialect::initialize() {}

static LogicalResult verifyEquivalentTo(Operation *op, Attribute value) {
  auto ref = dyn_cast<FlatSymbolRefAttr>(value);
  if (!ref)
    return op->emitError() << MLSOptDialect::kEquivalentToAttrName
                           << " must name a function, as in @reference";
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitError() << MLSOptDialect::kEquivalentToAttrName
                           << " belongs on a function";
  Operation *target = SymbolTable::lookupNearestSymbolFrom(op, ref);
  auto reference = dyn_cast_or_null<FunctionOpInterface>(target);
  if (!reference)
    return op->emitError() << MLSOptDialect::kEquivalentToAttrName << " names "
                           << ref << ", which is not a function here";
  if (reference == func)
    return op->emitError() << "a function cannot be "
                           << MLSOptDialect::kEquivalentToAttrName
                           << " itself";
  if (reference.getFunctionType() != func.getFunctionType())
    return op->emitError() << "function type " << func.getFunctionType()
                           << " differs from " << reference.getFunctionType()
                           << " of " << ref
                           << "; equivalent functions take and return the "
                              "same tensors";
  return success();
}

LogicalResult MLSOptDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kTargetAttrName) {
    auto chip = dyn_cast<StringAttr>(attr.getValue());
    if (!chip || !lookupTarget(chip.getValue()))
      return op->emitError() << kTargetAttrName << " must be one of "
                             << supportedTargetNames() << ", got "
                             << attr.getValue();
    return success();
  }
  if (name == kEquivalentToAttrName)
    return verifyEquivalentTo(op, attr.getValue());
  return op->emitError() << "unknown mlsopt attribute '" << name
                         << "'; mlsopt knows " << kTargetAttrName << " and "
                         << kEquivalentToAttrName;
}
