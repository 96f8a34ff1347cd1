//===- PTX.cpp - The PTX of a lowered module ------------------------------===//

#include "mlsopt/Target/GPU/PTX.h"
#include "LoweredModuleDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

LogicalResult mlsopt::gpu::translateToPTX(ModuleOp module, raw_ostream &os) {
  bool found = false;
  for (auto binary : module.getOps<mlir::gpu::BinaryOp>()) {
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<mlir::gpu::ObjectAttr>(attr);
      if (object.getFormat() != mlir::gpu::CompilationTarget::Assembly)
        return binary.emitError("gpu.binary @")
               << binary.getSymName() << " holds "
               << mlir::gpu::stringifyCompilationTarget(object.getFormat())
               << ", not PTX; lower it with gpu-module-to-binary{format=isa} "
                  "(as --mlsopt-gpu-pipeline does)";
      // ROCm and SPIR-V objects are no PTX, whatever their format says,
      // and an empty object is no program.
      if (!isa<NVVM::NVVMTargetAttr>(object.getTarget()))
        return binary.emitError("gpu.binary @")
               << binary.getSymName() << " holds an object for "
               << object.getTarget() << ", not an NVVM target's PTX";
      if (object.getObject().getValue().empty())
        return binary.emitError("gpu.binary @")
               << binary.getSymName() << " holds an empty object";
      os << "// gpu.binary @" << binary.getSymName() << ", target "
         << object.getTarget() << "\n"
         << object.getObject().getValue();
      found = true;
    }
  }
  if (!found)
    return emitError(module.getLoc())
           << "the module holds no gpu.binary; lower it with "
              "--mlsopt-gpu-pipeline first";
  return success();
}

void mlsopt::gpu::registerToPTXTranslation() {
  TranslateFromMLIRRegistration registration(
      "emit-ptx", "print the PTX of every gpu.binary",
      [](Operation *op, raw_ostream &os) {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return LogicalResult(op->emitError("expected a builtin.module"));
        return translateToPTX(module, os);
      },
      mlsopt::gpu::registerLoweredModuleDialects);
}
