//===- MaskedFills.cpp - Masked fills as the search sees them -------------===//

#include "mlsopt/Transforms/MaskedFills.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlsopt;

FailureOr<FoldedMaskedFills> mlsopt::foldMaskedFills(ArrayRef<Operation *> ops,
                                                     ArrayRef<Value> inputs,
                                                     ArrayRef<Value> outputs) {
  auto positionOf = [&](Value v) -> std::optional<unsigned> {
    const Value *it = llvm::find(inputs, v);
    if (it == inputs.end())
      return std::nullopt;
    return it - inputs.begin();
  };
  FoldedMaskedFills folded;
  llvm::DenseMap<Operation *, kernel::MaskedFill> fills;
  for (Operation *op : ops) {
    if (!isa<kernel::MaxOp>(op))
      continue;
    std::optional<kernel::MaskedFill> fill = kernel::matchMaskedFill(op);
    if (!fill || !llvm::is_contained(ops, fill->add.getOperation()))
      continue;
    std::optional<unsigned> keep = positionOf(fill->keep);
    std::optional<unsigned> filled = positionOf(fill->fill);
    if (!keep || !filled)
      continue;
    fills[op] = *fill;
    folded.folds.push_back({*keep, *filled});
  }
  if (fills.empty())
    return failure();

  // The folded ops are copies in a module of their own, read by nothing and
  // erased once the problem is built: the subprogram stays as it is.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(ops.front()->getLoc());
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  IRMapping mapping;
  SmallVector<Operation *> copies;
  for (Operation *op : ops) {
    auto it = fills.find(op);
    if (it == fills.end()) {
      if (isa<kernel::AddOp>(op) && kernel::matchMaskedFill(op) &&
          fills.count(*op->getUsers().begin()))
        continue;
      copies.push_back(builder.clone(*op, mapping));
      continue;
    }
    const kernel::MaskedFill &fill = it->second;
    auto add = kernel::AddOp::create(
        builder, op->getLoc(), mapping.lookupOrDefault(fill.value), fill.keep);
    mapping.map(op->getResult(0), add.getResult());
    copies.push_back(add);
  }
  SmallVector<Value> keptInputs;
  for (auto [i, v] : llvm::enumerate(inputs))
    if (llvm::none_of(folded.folds,
                      [&, i = i](auto fold) { return fold.second == i; }))
      keptInputs.push_back(v);
  SmallVector<Value> mappedOutputs = llvm::map_to_vector(
      outputs, [&](Value v) { return mapping.lookupOrDefault(v); });
  FailureOr<search::SearchProblem> problem =
      search::buildSearchProblem(copies, keptInputs, mappedOutputs);
  for (Operation *copy : llvm::reverse(copies))
    copy->erase();
  if (failed(problem) || problem->inputValues.size() != keptInputs.size())
    return failure();
  folded.problem = std::move(*problem);
  return folded;
}

/// Follows each add of `tile` in a block graph with the max of its result
/// and `fillTile`.
static LogicalResult refillBlockAdds(Value tile, Value fillTile) {
  for (Operation *user : llvm::make_early_inc_range(tile.getUsers())) {
    auto add = dyn_cast<block::AddOp>(user);
    if (!add)
      return failure();
    OpBuilder builder(add->getContext());
    builder.setInsertionPointAfter(add);
    auto max =
        block::MaxOp::create(builder, add.getLoc(), add.getResult(), fillTile);
    add.getResult().replaceAllUsesExcept(max.getResult(), max);
  }
  return success();
}

/// Makes `custom`, which reads `keep` at input `position`, also read
/// `fill`, and follows each add of a tile of `keep` with the max of that
/// and the tile of `fill` loaded the same way.
static LogicalResult refillCustomKernel(kernel::CustomOp custom,
                                        unsigned position, Value fill) {
  Block &body = custom.getBody().front();
  unsigned added = custom.getInputs().size();
  custom.getInputsMutable().append(fill);
  BlockArgument fillArg =
      body.insertArgument(added, fill.getType(), custom.getLoc());
  SmallVector<block::LoadOp> loads;
  for (Operation *user : custom.getInputArgument(position).getUsers()) {
    auto load = dyn_cast<block::LoadOp>(user);
    if (!load)
      return failure();
    loads.push_back(load);
  }
  for (block::LoadOp load : loads) {
    OpBuilder builder(load);
    builder.setInsertionPointAfter(load);
    auto fillLoad = cast<block::LoadOp>(builder.clone(*load));
    fillLoad.getSourceMutable().assign(fillArg);
    if (failed(refillBlockAdds(load.getTile(), fillLoad.getTile())))
      return failure();
  }
  return success();
}

LogicalResult mlsopt::unfoldMaskedFills(func::FuncOp answer,
                                        const FoldedMaskedFills &folded,
                                        ArrayRef<Value> inputs) {
  for (auto [i, v] : llvm::enumerate(inputs))
    if (llvm::any_of(folded.folds,
                     [&, i = i](auto fold) { return fold.second == i; }))
      if (failed(answer.insertArgument(i, v.getType(), DictionaryAttr(),
                                       answer.getLoc())))
        return failure();
  for (auto [keepPosition, fillPosition] : folded.folds) {
    Value keep = answer.getArgument(keepPosition);
    Value fill = answer.getArgument(fillPosition);
    for (OpOperand &use : llvm::make_early_inc_range(keep.getUses())) {
      Operation *user = use.getOwner();
      if (auto custom = dyn_cast<kernel::CustomOp>(user)) {
        if (failed(refillCustomKernel(custom, use.getOperandNumber(), fill)))
          return failure();
        continue;
      }
      auto add = dyn_cast<kernel::AddOp>(user);
      if (!add)
        return failure();
      OpBuilder builder(add);
      builder.setInsertionPointAfter(add);
      auto max =
          kernel::MaxOp::create(builder, add.getLoc(), add.getResult(), fill);
      add.getResult().replaceAllUsesExcept(max.getResult(), max);
    }
  }
  return success();
}
