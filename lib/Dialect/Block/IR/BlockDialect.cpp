//===- BlockDialect.cpp - The block-level dialect -------------------------===//

#include "mlsopt/Dialect/Block/IR/BlockDialect.h"
#include "mlsopt/Dialect/Block/IR/BlockGraphVerifier.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Common/InlineAnywhere.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlsopt::block;

#include "mlsopt/Dialect/Block/IR/BlockDialect.cpp.inc"
#include "mlsopt/Dialect/Block/IR/BlockEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mlsopt/Dialect/Block/IR/BlockAttributes.cpp.inc"

void BlockDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mlsopt/Dialect/Block/IR/BlockOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mlsopt/Dialect/Block/IR/BlockAttributes.cpp.inc"
      >();
  addInterfaces<BlockGraphVerifier, mlsopt::InlineAnywhereInterface>();
}

//===----------------------------------------------------------------------===//
// DimMapAttr
//===----------------------------------------------------------------------===//

Attribute DimMapAttr::parse(AsmParser &parser, Type) {
  int64_t dims[3] = {-1, -1, -1};
  if (parser.parseLess())
    return {};
  if (succeeded(parser.parseOptionalGreater()))
    return DimMapAttr::get(parser.getContext(), -1, -1, -1);
  do {
    SMLoc loc = parser.getCurrentLocation();
    StringRef name;
    int64_t dim;
    if (parser.parseKeyword(&name) || parser.parseEqual() ||
        parser.parseInteger(dim))
      return {};
    const auto *it = llvm::find(mlsopt::kGridDimNames, name);
    if (it == std::end(mlsopt::kGridDimNames)) {
      parser.emitError(loc, "expected grid dim x, y or z, got '") << name
                                                                   << "'";
      return {};
    }
    unsigned g = it - std::begin(mlsopt::kGridDimNames);
    if (dims[g] != -1) {
      parser.emitError(loc, "grid dim ") << name << " is mapped twice";
      return {};
    }
    if (dim < 0) {
      parser.emitError(loc, "tensor dim must be non-negative, got ") << dim;
      return {};
    }
    dims[g] = dim;
  } while (succeeded(parser.parseOptionalComma()));
  if (parser.parseGreater())
    return {};
  return parser.getChecked<DimMapAttr>(parser.getContext(), dims[0], dims[1],
                                       dims[2]);
}

void DimMapAttr::print(AsmPrinter &printer) const {
  printer << "<";
  bool first = true;
  for (unsigned g = 0; g < 3; ++g) {
    if (std::optional<int64_t> d = getTensorDim(g)) {
      printer << (first ? "" : ", ") << mlsopt::kGridDimNames[g] << " = " << *d;
      first = false;
    }
  }
  printer << ">";
}

LogicalResult DimMapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t x, int64_t y, int64_t z) {
  int64_t dims[3] = {x, y, z};
  for (unsigned g = 0; g < 3; ++g) {
    if (dims[g] < -1)
      return emitError() << "grid dim " << mlsopt::kGridDimNames[g]
                         << " maps to invalid tensor dim " << dims[g];
    for (unsigned h = 0; h < g; ++h)
      if (dims[g] >= 0 && dims[g] == dims[h])
        return emitError() << "grid dims " << mlsopt::kGridDimNames[h] << " and "
                           << mlsopt::kGridDimNames[g] << " both split tensor dim "
                           << dims[g] << "; map each tensor dim at most once";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AccumulatorAttr
//===----------------------------------------------------------------------===//

LogicalResult
AccumulatorAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        AccumKind kind, std::optional<int64_t> scaleBy) {
  if (kind == AccumKind::rescale && !scaleBy)
    return emitError() << "a rescale accumulator needs `by <index>` naming "
                          "the max accumulator it rescales by";
  if (kind != AccumKind::rescale && scaleBy)
    return emitError() << "only rescale accumulators take `by <index>`";
  if (scaleBy && *scaleBy < 0)
    return emitError() << "accumulator index must be non-negative, got "
                       << *scaleBy;
  return success();
}
