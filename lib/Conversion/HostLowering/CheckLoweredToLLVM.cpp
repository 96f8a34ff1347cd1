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
    // The first op left, in program order; a cast the partial conversions
    // put around such an op only follows from it, so the first cast is
    // reported only when no other op is left.
    Operation *left = nullptr, *firstCast = nullptr;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // A nested module (one for another chip) is a unit of its own, which
      // the pipeline's module passes leave as it is.
      if (op != module && isa<ModuleOp>(op))
        return WalkResult::skip();
      if (isa<UnrealizedConversionCastOp>(op)) {
        if (!firstCast)
          firstCast = op;
        return WalkResult::advance();
      }
      if (op == module || isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      left = op;
      return WalkResult::interrupt();
    });
    if (!left)
      left = firstCast;
    if (!left)
      return;
    left->emitOpError("was not lowered to the LLVM dialect by "
                      "--mlsopt-cpu-pipeline; no pass of it lowers this op");
    signalPassFailure();
  }
};

} // namespace
