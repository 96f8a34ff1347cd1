//===- ResourceBlobs.cpp - dense_resource constants and their bytes ------===//

#include "mlsopt/Support/ResourceBlobs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

LogicalResult mlsopt::checkResourceBlobs(Operation *root, StringRef what) {
  bool failed = false;
  root->walk([&](arith::ConstantOp constant) {
    auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    if (!resource || !type || !type.hasStaticShape())
      return;
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      constant.emitOpError(what)
          << ": the module holds no data for its dense_resource '"
          << resource.getRawHandle().getKey()
          << "' (a dialect_resources section without it)";
      failed = true;
      return;
    }
    bool splat = false;
    if (DenseElementsAttr::isValidRawBuffer(type, blob->getData(), splat))
      return;
    constant.emitOpError(what)
        << ": its dense_resource '" << resource.getRawHandle().getKey()
        << "' holds " << blob->getData().size() << " bytes, where " << type
        << " needs " << type.getNumElements() << " elements";
    failed = true;
  });
  return failure(failed);
}
