//===- InlineHelpers.cpp - Calls to private functions inlined -------------===//
//
// Upstream's inliner, restricted to calls whose callee is a private function
// and with no simplification pipeline: a harness's call to a public entry
// point keeps the rounding at the boundary each function has on its own.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Transforms/Passes.h"

#include "mlir/Analysis/CallGraph.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Inliner.h"

namespace mlsopt {
#define GEN_PASS_DEF_INLINEHELPERS
#include "mlsopt/Transforms/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

struct InlineHelpersPass : mlsopt::impl::InlineHelpersBase<InlineHelpersPass> {
  void runOnOperation() override {
    CallGraph &callGraph = getAnalysis<CallGraph>();
    InlinerConfig config;
    config.setDefaultPipeline([](OpPassManager &) {});
    auto isHelperCall = [](const Inliner::ResolvedCall &call) {
      Region *body = call.targetNode->getCallableRegion();
      auto callee =
          dyn_cast_or_null<func::FuncOp>(body ? body->getParentOp() : nullptr);
      return callee && callee.isPrivate();
    };
    auto runPipeline = [this](Pass &, OpPassManager &pipeline, Operation *op) {
      return this->runPipeline(pipeline, op);
    };
    Inliner inliner(getOperation(), callGraph, *this, getAnalysisManager(),
                    runPipeline, config, isHelperCall);
    if (failed(inliner.doInlining()))
      return signalPassFailure();
  }
};

} // namespace
