//===- DecomposeLinalgAggregates.cpp - linalg.softmax to generic ops ------===//

#include "mlsopt/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlsopt {
#define GEN_PASS_DEF_DECOMPOSELINALGAGGREGATES
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

struct DecomposeLinalgAggregatesPass
    : mlsopt::impl::DecomposeLinalgAggregatesBase<
          DecomposeLinalgAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    // Walked first and rewritten after: the decomposition inserts ops
    // beside the one it replaces.
    for (linalg::AggregatedOpInterface op : aggregates) {
      OpBuilder b(op);
      FailureOr<SmallVector<Value>> replacements = op.decomposeOperation(b);
      if (failed(replacements)) {
        op->emitOpError("cannot be decomposed into the ops it stands for, "
                        "so it cannot be lowered to loops");
        return signalPassFailure();
      }
      op->replaceAllUsesWith(*replacements);
      op->erase();
    }
  }
};

} // namespace
