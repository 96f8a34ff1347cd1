//===- OutlineLoopNests.cpp - Loop nests into functions of their own ------===//
//
// A lowered program is one function of loop nests in a row, which LLVM
// compiles in time quadratic in the nests (its scalar evolution walks back
// through every earlier nest for a loop's guards). Each nest as a noinline
// function of its own compiles in linear time.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlsopt {
#define GEN_PASS_DEF_OUTLINELOOPNESTS
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {
struct OutlineLoopNestsPass
    : public mlsopt::impl::OutlineLoopNestsBase<OutlineLoopNestsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ForOp> nests;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        for (Block &block : func.getBody())
          for (Operation &op : block)
            if (auto loop = dyn_cast<scf::ForOp>(op))
              nests.push_back(loop);
    if (nests.size() < minNests)
      return;
    MLIRContext *context = &getContext();
    SymbolTable symbols(module);
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    ArrayAttr noinline =
        ArrayAttr::get(context, {StringAttr::get(context, "noinline")});
    for (scf::ForOp loop : nests) {
      llvm::SetVector<Value> captured;
      for (Value operand : loop->getOperands())
        captured.insert(operand);
      getUsedValuesDefinedAbove(loop.getRegion(), captured);
      SmallVector<Value> arguments;
      SmallVector<Operation *> constants;
      for (Value value : captured) {
        Operation *def = value.getDefiningOp();
        if (def && def->hasTrait<OpTrait::ConstantLike>())
          constants.push_back(def);
        else
          arguments.push_back(value);
      }
      auto parent = loop->getParentOfType<func::FuncOp>();
      auto outlined = func::FuncOp::create(
          builder, loop.getLoc(), (parent.getName() + "_nest").str(),
          FunctionType::get(context, ValueRange(arguments).getTypes(),
                            loop->getResultTypes()));
      // Uniqued against the module's names ("_nest_0", "_nest_1", ...).
      symbols.insert(outlined);
      outlined.setPrivate();
      outlined->setAttr("passthrough", noinline);
      Block *entry = outlined.addEntryBlock();
      IRMapping mapping;
      mapping.map(arguments, entry->getArguments());
      OpBuilder inside = OpBuilder::atBlockBegin(entry);
      for (Operation *constant : constants)
        inside.clone(*constant, mapping);
      Operation *clone = inside.clone(*loop, mapping);
      func::ReturnOp::create(inside, loop.getLoc(), clone->getResults());
      OpBuilder before(loop);
      auto call =
          func::CallOp::create(before, loop.getLoc(), outlined, arguments);
      loop->replaceAllUsesWith(call.getResults());
      loop->erase();
    }
  }
};
} // namespace
