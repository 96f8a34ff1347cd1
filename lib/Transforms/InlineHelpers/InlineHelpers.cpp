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
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/Inliner.h"

namespace mlsopt {
#define GEN_PASS_DEF_INLINEHELPERS
#include "mlsopt/Transforms/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

struct InlineHelpersPass : mlsopt::impl::InlineHelpersBase<InlineHelpersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The inliner erases every private function nothing calls once it is
    // done. One nothing called before is no helper but a program of its
    // own (Python's from_mlir may hold just that): it stays, public for
    // the inliner's run.
    SmallVector<func::FuncOp> uncalled;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPrivate() && !func.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(func, module))
        uncalled.push_back(func);
    for (func::FuncOp func : uncalled)
      func.setPublic();

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
    Inliner inliner(module, callGraph, *this, getAnalysisManager(), runPipeline,
                    config, isHelperCall);
    LogicalResult inlined = inliner.doInlining();
    for (func::FuncOp func : uncalled)
      func.setPrivate();
    if (failed(inlined))
      return signalPassFailure();
  }
};

} // namespace
