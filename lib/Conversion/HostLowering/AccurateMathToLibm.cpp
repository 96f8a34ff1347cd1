//===- AccurateMathToLibm.cpp - log1p and expm1 as libm calls -------------===//

#include "mlsopt/Conversion/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlsopt {
#define GEN_PASS_DEF_ACCURATEMATHTOLIBM
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

struct AccurateMathToLibmPass
    : mlsopt::impl::AccurateMathToLibmBase<AccurateMathToLibmPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathToLibmConversionPatterns(patterns);
    // Only the two ops whose LLVM lowering is inexact, and only in the
    // types libm has them in; everything else keeps its LLVM intrinsic.
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<math::Log1pOp, math::ExpM1Op>(
        [](Operation *op) {
          Type type = getElementTypeOrSelf(op->getResult(0).getType());
          return !type.isF32() && !type.isF64();
        });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
