//===- DropBinaryTimings.cpp - Deterministic gpu.binary objects -----------===//

#include "mlsopt/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlsopt {
#define GEN_PASS_DEF_DROPBINARYTIMINGS
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

struct DropBinaryTimingsPass
    : mlsopt::impl::DropBinaryTimingsBase<DropBinaryTimingsPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute attr : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        DictionaryAttr properties = object.getProperties();
        if (properties) {
          SmallVector<NamedAttribute> kept = llvm::filter_to_vector(
              properties.getValue(), [](NamedAttribute property) {
                return !property.getName().strref().ends_with("TimeInMs");
              });
          properties = kept.empty()
                           ? DictionaryAttr()
                           : DictionaryAttr::get(binary.getContext(), kept);
        }
        objects.push_back(gpu::ObjectAttr::get(
            binary.getContext(), object.getTarget(), object.getFormat(),
            object.getObject(), properties, object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(binary.getContext(), objects));
    });
  }
};

} // namespace
