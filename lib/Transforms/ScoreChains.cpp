//===- ScoreChains.cpp - Masks on attention scores as the search sees them ===//

#include "mlsopt/Transforms/ScoreChains.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlsopt;

/// Whether the block of `user` does not compute `value` itself: an
/// argument, or a boolean mask or integers made floats (kernel.where,
/// kernel.int_to_float), or a chain of one-operand elementwise ops on one,
/// each read once (Hugging Face's `(1 - mask) * finfo.min`):
/// --fuse-kernel-elementwise computes such a chain where the kernel that
/// reads it loads the mask or the integers.
static bool isInputOf(Operation *user, Value value) {
  Operation *def = value.getDefiningOp();
  while (def && def->getBlock() == user->getBlock()) {
    if (kernel::isInputConversion(def))
      return true;
    bool passesOn = isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def) ||
                    (isa<kernel::KernelDialect>(def->getDialect()) &&
                     def->hasTrait<OpTrait::ElementwiseByIndex>() &&
                     def->getNumOperands() == 1);
    if (!passesOn || !def->hasOneUse())
      return !isa<kernel::KernelDialect>(def->getDialect());
    def = def->getOperand(0).getDefiningOp();
  }
  return true;
}

static bool isStepKind(Operation *op) {
  return isa<kernel::AddOp, kernel::SubOp, kernel::MulOp, kernel::DivOp,
             kernel::MaxOp, kernel::MinOp>(op);
}

/// `op` as a step, if it is one: a binary op of one computed value and one
/// input that only it reads.
static std::optional<ScoreStep> matchStep(Operation *op) {
  if (!isStepKind(op))
    return std::nullopt;
  bool lhsInput = isInputOf(op, op->getOperand(0));
  bool rhsInput = isInputOf(op, op->getOperand(1));
  if (lhsInput == rhsInput)
    return std::nullopt;
  Value input = op->getOperand(lhsInput ? 0 : 1);
  if (!input.hasOneUse())
    return std::nullopt;
  return ScoreStep{op, input, lhsInput};
}

static Value getComputedOperand(const ScoreStep &step) {
  return step.op->getOperand(step.inputFirst ? 1 : 0);
}

std::optional<ScoreChain> mlsopt::matchScoreChain(Operation *op) {
  std::optional<ScoreStep> step = matchStep(op);
  if (!step)
    return std::nullopt;
  ScoreChain chain;
  chain.steps.push_back(*step);
  Value before = getComputedOperand(*step);
  while (Operation *def = before.getDefiningOp()) {
    std::optional<ScoreStep> earlier = matchStep(def);
    if (!earlier || !before.hasOneUse())
      break;
    chain.steps.insert(chain.steps.begin(), *earlier);
    before = getComputedOperand(*earlier);
  }
  Operation *def = before.getDefiningOp();
  if (isa_and_nonnull<kernel::MulScalarOp, kernel::AddScalarOp>(def))
    def = def->getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<kernel::MatmulOp>(def))
    return std::nullopt;
  chain.scores = before;
  Operation *last = op;
  while (last->hasOneUse()) {
    std::optional<ScoreStep> later = matchStep(*last->getUsers().begin());
    if (!later || getComputedOperand(*later) != last->getResult(0))
      break;
    chain.steps.push_back(*later);
    last = later->op;
  }
  // A scale or a causal fill after the masks (`where(m, s, min) * 0.125`,
  // a padding fill then an index-built causal one) keeps its place in the
  // problem: the search takes both as they are, and the chain ends where
  // they begin.
  Operation *end = last;
  while (end->hasOneUse() &&
         isa<kernel::MulScalarOp, kernel::AddScalarOp, kernel::TriangleFillOp>(
             *end->getUsers().begin()))
    end = *end->getUsers().begin();
  // One step may be read by a row sum; a chain of several must be on its
  // way to a softmax (a row maximum, or an exp), or a linear layer's bias
  // and a residual, summed by a LayerNorm's mean, would be one: counted
  // nothing, they let the layer join the norm without its mean.
  bool single = chain.steps.size() == 1;
  if (llvm::none_of(end->getUsers(), [&](Operation *user) {
        return isa<kernel::ReduceMaxOp>(user) ||
               (single ? isa<kernel::ReduceSumOp>(user)
                       : isa<kernel::ExpOp>(user));
      }))
    return std::nullopt;
  return chain;
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// The shape of the chain's inputs broadcast together, their last dims
/// aligned (a [t, s] mask on [b, h, t, s] scores), if they broadcast.
static std::optional<SmallVector<int64_t>>
getBroadcastShape(const ScoreChain &chain) {
  SmallVector<int64_t> shape;
  for (const ScoreStep &step : chain.steps) {
    ShapeOrError joined = broadcastShapes(shape, shapeOf(step.input));
    if (!joined.ok())
      return std::nullopt;
    shape = std::move(joined.shape);
  }
  return shape;
}

FailureOr<FoldedScoreChains> mlsopt::foldScoreChains(ArrayRef<Operation *> ops,
                                                     ArrayRef<Value> inputs,
                                                     ArrayRef<Value> outputs) {
  auto positionOf = [&](Value v) -> std::optional<unsigned> {
    const Value *it = llvm::find(inputs, v);
    if (it == inputs.end())
      return std::nullopt;
    return it - inputs.begin();
  };
  // The ops are copied into a module of their own, each chain's last step
  // as the add of the input standing for the chain's; the copies are read
  // by nothing and erased once the problem is built.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(ops.front()->getLoc());
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  FoldedScoreChains folded;
  // Each fold's stand-in, by the position of the input it replaces; each
  // fold by its chain's last step; the steps and inputs folds leave out.
  llvm::DenseMap<unsigned, Value> standInAt;
  llvm::DenseMap<Operation *, unsigned> foldEndingAt;
  llvm::DenseSet<Operation *> folding;
  llvm::DenseSet<unsigned> dropped;
  for (Operation *op : ops) {
    std::optional<ScoreChain> chain = matchScoreChain(op);
    if (!chain || chain->steps.size() < 2 || chain->steps.back().op != op ||
        llvm::any_of(chain->steps, [&](const ScoreStep &step) {
          return !llvm::is_contained(ops, step.op) || !positionOf(step.input);
        }))
      continue;
    std::optional<SmallVector<int64_t>> shape = getBroadcastShape(*chain);
    if (!shape)
      continue;
    // Each step's input has one reader, so the inputs are distinct.
    Value first = chain->steps.front().input;
    unsigned position = *positionOf(first);
    standInAt[position] =
        *shape == shapeOf(first)
            ? first
            : tensor::EmptyOp::create(
                  builder, op->getLoc(), *shape,
                  cast<RankedTensorType>(first.getType()).getElementType())
                  .getResult();
    for (const ScoreStep &step : chain->steps)
      folding.insert(step.op);
    for (const ScoreStep &step : ArrayRef(chain->steps).drop_front())
      dropped.insert(*positionOf(step.input));
    foldEndingAt[op] = folded.folds.size();
    folded.folds.push_back({*chain, position});
  }
  if (folded.folds.empty())
    return failure();

  SmallVector<Value> problemInputs;
  for (auto [i, v] : llvm::enumerate(inputs))
    if (!dropped.contains(i))
      problemInputs.push_back(standInAt.lookup_or(i, v));
  IRMapping mapping;
  SmallVector<Operation *> copies;
  for (Operation *op : ops) {
    if (auto it = foldEndingAt.find(op); it != foldEndingAt.end()) {
      const auto &[chain, position] = folded.folds[it->second];
      auto add = kernel::AddOp::create(builder, op->getLoc(),
                                       mapping.lookupOrDefault(chain.scores),
                                       standInAt.lookup(position));
      mapping.map(op->getResult(0), add.getResult());
      copies.push_back(add);
    } else if (!folding.contains(op)) {
      copies.push_back(builder.clone(*op, mapping));
    }
  }
  SmallVector<Value> mappedOutputs = llvm::map_to_vector(
      outputs, [&](Value v) { return mapping.lookupOrDefault(v); });
  FailureOr<search::SearchProblem> problem =
      search::buildSearchProblem(copies, problemInputs, mappedOutputs);
  for (Operation *copy : llvm::reverse(copies))
    copy->erase();
  if (failed(problem) || problem->inputValues.size() != problemInputs.size())
    return failure();
  folded.problem = std::move(*problem);
  // The stand-ins die with the scratch module; the search reads the
  // problem's shapes, not its values.
  folded.problem.inputValues.clear();
  return folded;
}

/// The step `like` is, on `lhs` and `rhs`: a block-dialect op in a block
/// graph, else a kernel-dialect one.
static Value createStep(OpBuilder &builder, Operation *like, bool inBlockGraph,
                        Value lhs, Value rhs) {
  Location loc = like->getLoc();
  auto create = [&](auto kernelOp, auto blockOp) -> Value {
    using KernelOp = decltype(kernelOp);
    using BlockOp = decltype(blockOp);
    if (inBlockGraph)
      return BlockOp::create(builder, loc, lhs, rhs).getResult();
    return KernelOp::create(builder, loc, lhs, rhs).getResult();
  };
  if (isa<kernel::AddOp>(like))
    return create(kernel::AddOp(), block::AddOp());
  if (isa<kernel::SubOp>(like))
    return create(kernel::SubOp(), block::SubOp());
  if (isa<kernel::MulOp>(like))
    return create(kernel::MulOp(), block::MulOp());
  if (isa<kernel::DivOp>(like))
    return create(kernel::DivOp(), block::DivOp());
  if (isa<kernel::MaxOp>(like))
    return create(kernel::MaxOp(), block::MaxOp());
  return create(kernel::MinOp(), block::MinOp());
}

/// Replaces `add`, the add of a chain's stand-in (`standIn`) and of some
/// value, by the chain's steps on that value with `inputs` (one per step).
static LogicalResult replayChain(Operation *add, Value standIn,
                                 const ScoreChain &chain,
                                 ArrayRef<Value> inputs, bool inBlockGraph) {
  if (add->getNumOperands() != 2 ||
      (add->getOperand(0) == standIn) == (add->getOperand(1) == standIn))
    return failure();
  Value value = add->getOperand(add->getOperand(0) == standIn ? 1 : 0);
  OpBuilder builder(add);
  for (auto [step, input] : llvm::zip(chain.steps, inputs))
    value = step.inputFirst
                ? createStep(builder, step.op, inBlockGraph, input, value)
                : createStep(builder, step.op, inBlockGraph, value, input);
  add->getResult(0).replaceAllUsesWith(value);
  add->erase();
  return success();
}

/// Replaces each load of `standIn` (a custom kernel's argument) by loads of
/// `args`, each placed as the stand-in's tile along the dims its input
/// does not broadcast, and each add of the stand-in's tile by the chain.
static LogicalResult replayChainInBlockGraph(Value standIn,
                                             const ScoreChain &chain,
                                             ArrayRef<Value> args) {
  SmallVector<block::LoadOp> loads;
  for (Operation *user : standIn.getUsers()) {
    auto load = dyn_cast<block::LoadOp>(user);
    if (!load || load.getOffsets())
      return failure();
    loads.push_back(load);
  }
  ArrayRef<int64_t> full = shapeOf(standIn);
  for (block::LoadOp load : loads) {
    OpBuilder builder(load);
    auto tileType = cast<RankedTensorType>(load.getTile().getType());
    SmallVector<Value> tiles;
    for (Value arg : args) {
      // Dim d of the stand-in is dim d - lead of an input of lower rank;
      // the input broadcasts the dims it lacks and those of size 1.
      ArrayRef<int64_t> shape = shapeOf(arg);
      int64_t lead = full.size() - shape.size();
      auto kept = [&](int64_t d) -> std::optional<int64_t> {
        if (d < lead || shape[d - lead] != full[d])
          return std::nullopt;
        return d - lead;
      };
      GridToTensorDims imap = load.getImap().getGridToTensorDims();
      for (std::optional<int64_t> &d : imap)
        if (d)
          d = kept(*d);
      IntegerAttr fmap = load.getFmapAttr();
      if (fmap) {
        std::optional<int64_t> d = kept(fmap.getInt());
        fmap = d ? builder.getI64IntegerAttr(*d) : IntegerAttr();
      }
      SmallVector<int64_t> tile(tileType.getShape().drop_front(lead));
      for (auto [d, size] : llvm::enumerate(tile))
        if (!kept(d + lead))
          size = 1;
      tiles.push_back(block::LoadOp::create(
          builder, load.getLoc(),
          RankedTensorType::get(tile, tileType.getElementType()), arg,
          block::DimMapAttr::get(builder.getContext(), imap), fmap,
          /*offsets=*/DenseI64ArrayAttr(), /*sizes=*/DenseI64ArrayAttr()));
    }
    for (Operation *user : llvm::make_early_inc_range(load->getUsers()))
      if (!isa<block::AddOp>(user) ||
          failed(replayChain(user, load.getTile(), chain, tiles,
                             /*inBlockGraph=*/true)))
        return failure();
    load->erase();
  }
  return success();
}

LogicalResult mlsopt::unfoldScoreChains(func::FuncOp answer,
                                        const FoldedScoreChains &folded,
                                        ArrayRef<Value> inputs) {
  // The inputs the problem dropped (every step's but the first's) become
  // arguments again, in place.
  SmallVector<unsigned> dropped;
  for (const auto &fold : folded.folds)
    for (const ScoreStep &step : ArrayRef(fold.first.steps).drop_front())
      dropped.push_back(llvm::find(inputs, step.input) - inputs.begin());
  llvm::sort(dropped);
  for (unsigned i : dropped)
    if (failed(answer.insertArgument(i, inputs[i].getType(), DictionaryAttr(),
                                     answer.getLoc())))
      return failure();
  Block &entry = answer.getBody().front();
  for (const auto &[chain, position] : folded.folds) {
    SmallVector<Value> args;
    for (const ScoreStep &step : chain.steps)
      args.push_back(
          entry.getArgument(llvm::find(inputs, step.input) - inputs.begin()));
    // The stand-in's argument takes the first input's type; each kernel
    // that reads it is rewritten in turn.
    BlockArgument standIn = entry.getArgument(position);
    Type firstType = chain.steps.front().input.getType();
    standIn.setType(firstType);
    llvm::SetVector<Operation *> users(standIn.getUsers().begin(),
                                       standIn.getUsers().end());
    for (Operation *user : users) {
      auto custom = dyn_cast<kernel::CustomOp>(user);
      if (!custom) {
        if (!isa<kernel::AddOp>(user) ||
            failed(replayChain(user, standIn, chain, args,
                               /*inBlockGraph=*/false)))
          return failure();
        continue;
      }
      auto reads = llvm::make_filter_range(
          custom->getOpOperands(),
          [&](OpOperand &operand) { return operand.get() == standIn; });
      if (std::distance(reads.begin(), reads.end()) != 1)
        return failure();
      unsigned index = (*reads.begin()).getOperandNumber();
      // The kernel reads the chain's other inputs after its own, each
      // through a region argument of its own; the stand-in's region
      // argument is loaded as before, and its loads become the inputs'.
      Block &body = custom.getBody().front();
      BlockArgument standInArg = custom.getInputArgument(index);
      SmallVector<Value> bodyArgs;
      for (auto [k, arg] : llvm::enumerate(args)) {
        unsigned added = custom.getInputs().size();
        custom.getInputsMutable().append(arg);
        bodyArgs.push_back(body.insertArgument(
            added, k == 0 ? firstType : arg.getType(), custom.getLoc()));
      }
      if (failed(replayChainInBlockGraph(standInArg, chain, bodyArgs)))
        return failure();
      body.eraseArgument(standInArg.getArgNumber());
      custom.getInputsMutable().erase(index);
    }
  }
  answer.setType(FunctionType::get(
      answer.getContext(), entry.getArgumentTypes(), answer.getResultTypes()));
  return success();
}
