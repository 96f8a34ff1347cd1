//===- PTX.cpp - The PTX of a lowered module ------------------------------===//

#include "mlsopt/Target/GPU/PTX.h"

#include "mlsopt/Dialect/Block/IR/BlockDialect.h"
#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/InitAllDialects.h"
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
      [](DialectRegistry &registry) {
        // The host functions next to the binaries are parsed too, and so
        // are the functions the GPU pipeline leaves as they were (linalg on
        // tensors, say, in a function with no kernel ops).
        registerAllDialects(registry);
        // And mlsopt's, so that a module not lowered yet is told so
        // rather than failing to parse.
        registry.insert<mlsopt::MLSOptDialect, mlsopt::kernel::KernelDialect,
                        mlsopt::block::BlockDialect,
                        mlsopt::thread::ThreadDialect>();
      });
}
