//===- CheckLoweredToLLVM.cpp - Fail on ops the LLVM lowering left --------===//

#include "mlsopt/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlsopt {
#define GEN_PASS_DEF_CHECKLOWEREDTOLLVM
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

struct CheckLoweredToLLVMPass
    : mlsopt::impl::CheckLoweredToLLVMBase<CheckLoweredToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The first op left, in program order; the casts the partial
    // conversions put around it only follow from it.
    Operation *left = nullptr;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // A nested module (one for another chip) is a unit of its own, which
      // the pipeline's module passes leave as it is.
      if (op != module && isa<ModuleOp>(op))
        return WalkResult::skip();
      if (op == module || isa<LLVM::LLVMDialect>(op->getDialect()) ||
          isa<UnrealizedConversionCastOp>(op))
        return WalkResult::advance();
      left = op;
      return WalkResult::interrupt();
    });
    if (!left) {
      module.walk([&](UnrealizedConversionCastOp cast) {
        left = cast;
        return WalkResult::interrupt();
      });
    }
    if (!left)
      return;
    left->emitOpError("was not lowered to the LLVM dialect by "
                      "--mlsopt-cpu-pipeline; no pass of it lowers this op");
    signalPassFailure();
  }
};

} // namespace
