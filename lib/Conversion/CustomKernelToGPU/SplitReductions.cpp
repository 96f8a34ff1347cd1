//===- SplitReductions.cpp - Long reductions as two loop kernels ----------===//
//
// A loop kernel runs one thread per result element, and that thread runs
// the whole reduction: an argmax over a 32000-word vocabulary for one
// sequence is one thread walking 32000 logits. Where the result has few
// elements and the reduction is long, the outermost reduction loop is split
// into C contiguous chunks of L iterations:
//
//   partial: a generic with one more parallel loop, the chunk c, whose
//            payload is the op's own at reduction index c * L + r; its
//            results have one more dim, of C partial results;
//   combine: a generic that reduces those C partial results, in chunk
//            order, into the op's results.
//
// Both are loop kernels, so C threads share each reduction, and each thread
// runs about sqrt(R) iterations where one ran R. Two kinds of payload split:
//
//   - each result folded by an associative, commutative op with a neutral
//     element (`acc + f(x)`, `max(acc, x)`, `acc | x`): the chunks start
//     from the neutral element, and the combine folds them into the op's
//     init with the same op;
//   - a selection (an argmax or argmin as torch-mlir writes it): a strict
//     comparison of the element with the carried value picks, for every
//     result, either the element (its value, or its reduction index) or
//     what is carried. The chunks start from the op's init, and the combine
//     runs the same payload on the chunks' winners, in order: the first
//     strict maximum of the whole row is the first of the chunks' first
//     strict maxima. (With a NaN in the row, a payload that keeps the value
//     with arith.maximumf may pick another index than one sequential walk;
//     the value is NaN either way.)
//
// Float sums are added in another order than one walk, as every reduction
// kernel of the search adds them.
//
//===----------------------------------------------------------------------===//

#include "LoopKernels.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

namespace {

/// Below this many result elements a loop kernel leaves most of a GPU idle
/// (132 SMs of 2048 threads on an H100): its reduction is worth splitting.
constexpr int64_t kFewResultElements = 16384;
/// A reduction shorter than this runs on one thread in less time than a
/// second launch takes.
constexpr int64_t kLongReduction = 512;
/// At most this many chunks, which one thread of the combine then walks.
constexpr int64_t kMaxChunks = 1024;

/// How the partial results of the chunks combine.
struct Combination {
  /// Per result, the payload op that folds the element into it (the
  /// associative kind), with the neutral element the chunks start from.
  SmallVector<Operation *> folds;
  SmallVector<TypedAttr> neutral;
  /// The selection kind: the payload's element (an input's block argument)
  /// and its reduction index, as the payload casts it (arith.index_cast of
  /// linalg.index), which the combine reads from the partial results.
  BlockArgument element;
  Operation *index = nullptr, *indexCast = nullptr;
  /// Per result, which partial it selects: the element's or the index's.
  SmallVector<bool> selectsIndex;

  bool isSelection() const { return element != nullptr; }
};

/// The associative kind: every result is folded by one op with a neutral
/// element, from its carried value and something that does not depend on
/// any carried value.
std::optional<Combination> matchFolds(linalg::LinalgOp op) {
  Combination combination;
  Operation *yield = op.getBlock()->getTerminator();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument carried = op.getMatchingBlockArgument(&init);
    Value folded =
        yield->getOperand(init.getOperandNumber() - op.getNumDpsInputs());
    Operation *fold = folded.getDefiningOp();
    if (!fold || fold->getBlock() != op.getBlock() ||
        fold->getNumOperands() != 2 || !folded.hasOneUse() ||
        !carried.hasOneUse() || carried.getUses().begin()->getOwner() != fold)
      return std::nullopt;
    std::optional<TypedAttr> neutral = arith::getNeutralElement(fold);
    if (!neutral || !fold->hasTrait<OpTrait::IsCommutative>())
      return std::nullopt;
    combination.folds.push_back(fold);
    combination.neutral.push_back(*neutral);
  }
  return combination;
}

/// A strict order: the selection keeps the first of equal elements. For
/// floats an ordered one, which never picks a NaN: an unordered `ugt` picks
/// every element after a NaN, which no chunk's winner tells the combine
/// (an argmax by ugt over a row with a NaN at 100 gave 27 split, 108 in
/// one walk).
bool isStrictOrder(Operation *compare) {
  if (auto cmpf = dyn_cast<arith::CmpFOp>(compare))
    return llvm::is_contained(
        {arith::CmpFPredicate::OGT, arith::CmpFPredicate::OLT},
        cmpf.getPredicate());
  if (auto cmpi = dyn_cast<arith::CmpIOp>(compare))
    return llvm::is_contained(
        {arith::CmpIPredicate::sgt, arith::CmpIPredicate::slt,
         arith::CmpIPredicate::ugt, arith::CmpIPredicate::ult},
        cmpi.getPredicate());
  return false;
}

/// The selection kind (see the file comment) over the reduction loop
/// `dim`: the payload is one strict comparison of the element with a
/// carried value, selects between the element or its index and the carried
/// values, and may keep the value with a max or min op instead.
std::optional<Combination> matchSelection(linalg::LinalgOp op, unsigned dim) {
  Combination combination;
  Block *body = op.getBlock();
  Operation *compare = nullptr;
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      if (index.getDim() != dim || combination.index || !index->hasOneUse())
        return std::nullopt;
      combination.index = index;
      combination.indexCast = *index->getUsers().begin();
      if (!isa<arith::IndexCastOp>(combination.indexCast))
        return std::nullopt;
    } else if (isa<arith::CmpFOp, arith::CmpIOp>(inner)) {
      if (compare || !isStrictOrder(&inner))
        return std::nullopt;
      compare = &inner;
    } else if (!isa<arith::IndexCastOp, arith::SelectOp, arith::MaximumFOp,
                    arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp,
                    arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
                    arith::MinUIOp>(inner)) {
      return std::nullopt;
    }
  }
  if (!compare || !combination.indexCast)
    return std::nullopt;
  // The element: the one input the payload reads.
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(input);
    if (arg.use_empty())
      continue;
    if (combination.element)
      return std::nullopt;
    combination.element = arg;
  }
  if (!combination.element)
    return std::nullopt;

  Operation *yield = body->getTerminator();
  SmallVector<BlockArgument> carriedValues;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument carried = op.getMatchingBlockArgument(&init);
    Operation *pick =
        yield->getOperand(init.getOperandNumber() - op.getNumDpsInputs())
            .getDefiningOp();
    if (!pick || pick->getBlock() != body || !pick->hasOneUse())
      return std::nullopt;
    bool selectsIndex;
    if (auto select = dyn_cast<arith::SelectOp>(pick)) {
      if (select.getCondition() != compare->getResult(0) ||
          select.getFalseValue() != carried)
        return std::nullopt;
      Value picked = select.getTrueValue();
      if (picked != combination.element &&
          picked != combination.indexCast->getResult(0))
        return std::nullopt;
      selectsIndex = picked != combination.element;
    } else {
      // maximumf(x, acc) keeps the element where the comparison would.
      ValueRange operands = pick->getOperands();
      if (!llvm::is_contained(operands, combination.element) ||
          !llvm::is_contained(operands, Value(carried)))
        return std::nullopt;
      selectsIndex = false;
    }
    // The carried value is read by its pick and, for the element's value,
    // by the comparison.
    for (Operation *user : carried.getUsers())
      if (user != pick && user != compare)
        return std::nullopt;
    if (!selectsIndex)
      carriedValues.push_back(carried);
    combination.selectsIndex.push_back(selectsIndex);
  }
  // The comparison is of the element with a carried element value.
  ValueRange compared = compare->getOperands();
  if (!llvm::is_contained(compared, combination.element) ||
      !llvm::any_of(carriedValues,
                    [&](BlockArgument carried) {
                      return llvm::is_contained(compared, Value(carried));
                    }) ||
      !llvm::is_contained(combination.selectsIndex, true))
    return std::nullopt;
  // Each init the chunks start from is a constant, as the op starts from it.
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!getFillConstant(init.get()))
      return std::nullopt;
  return combination;
}

/// The number of chunks to split a reduction loop of `range` iterations
/// into: a divisor of it near its square root, so that a chunk and the
/// combine take about as many iterations; 1 where none fits.
int64_t chooseChunks(int64_t range) {
  int64_t target = static_cast<int64_t>(std::sqrt(double(range)));
  int64_t best = 1;
  for (int64_t c = 2; c <= std::min(range / 2, kMaxChunks); ++c)
    if (range % c == 0 && std::abs(c - target) < std::abs(best - target))
      best = c;
  return best;
}

/// Where the reduction loop `dim` indexes an input: the position of the one
/// result of `map` that is `dim` itself, none where `dim` is not among its
/// results; failure where it is part of another expression or indexes two
/// dims (the chunks are a reshape of that dim, which needs it alone).
FailureOr<std::optional<unsigned>> findReducedDim(AffineMap map, unsigned dim) {
  std::optional<unsigned> position;
  for (auto [p, expr] : llvm::enumerate(map.getResults())) {
    if (!expr.isFunctionOfDim(dim))
      continue;
    if (position || expr != getAffineDimExpr(dim, map.getContext()))
      return failure();
    position = p;
  }
  return position;
}

/// A linalg.fill of `value` on a new tensor of `type`, before `op`.
Value createFill(OpBuilder &b, Location loc, RankedTensorType type,
                 TypedAttr value) {
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

} // namespace

std::optional<SplitLoopKernel>
gpu_codegen::splitLoopKernelReduction(linalg::LinalgOp linalgOp) {
  // A named op with a payload (a linalg.reduce, as StableHLO's lowering
  // writes a sum) splits as the generic it stands for.
  linalg::LinalgOp op = linalgOp;
  if (op->getNumRegions() != 1 || op->getRegion(0).empty() ||
      whyNoLoopKernel(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto reduction = llvm::find(iterators, utils::IteratorType::reduction);
  if (reduction == iterators.end())
    return std::nullopt;
  unsigned dim = std::distance(iterators.begin(), reduction);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t points =
      cast<RankedTensorType>(op->getResult(0).getType()).getNumElements();
  int64_t reductionIterations = 1;
  for (auto [iterator, range] : llvm::zip(iterators, ranges))
    if (iterator == utils::IteratorType::reduction)
      reductionIterations *= range;
  if (points >= kFewResultElements || reductionIterations < kLongReduction)
    return std::nullopt;
  int64_t chunks = chooseChunks(ranges[dim]);
  if (chunks < 4)
    return std::nullopt;
  // Every input that the reduction loop indexes is read as its reshape,
  // that dim split into [chunks, chunkLength]: the loop then walks a chunk
  // and the new loop picks it, each a dim of its own, as linalg needs.
  SmallVector<std::optional<unsigned>> reducedDims;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<std::optional<unsigned>> position =
        findReducedDim(op.getMatchingIndexingMap(input), dim);
    if (failed(position))
      return std::nullopt;
    reducedDims.push_back(*position);
  }
  if (llvm::none_of(reducedDims,
                    [](std::optional<unsigned> p) { return p.has_value(); }))
    return std::nullopt;
  std::optional<Combination> combination = matchFolds(op);
  if (!combination)
    combination = matchSelection(op, dim);
  if (!combination)
    return std::nullopt;
  int64_t chunkLength = ranges[dim] / chunks;

  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  OpBuilder b(op);
  unsigned numLoops = op.getNumLoops();

  // The partial results: loop `dim` walks a chunk, a new parallel loop
  // `numLoops` picks it, and the payload sees reduction index c * L + r.
  AffineExpr chunk = getAffineDimExpr(numLoops, ctx);
  SmallVector<AffineMap> partialMaps;
  SmallVector<Value> partialInputs;
  for (auto [input, position] :
       llvm::zip(op.getDpsInputOperands(), reducedDims)) {
    AffineMap map = op.getMatchingIndexingMap(input);
    SmallVector<AffineExpr> results(map.getResults());
    Value value = input->get();
    if (position) {
      results.insert(results.begin() + *position, chunk);
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape[*position] = chunkLength;
      shape.insert(shape.begin() + *position, chunks);
      auto split = RankedTensorType::get(shape, type.getElementType());
      if (TypedAttr constant = getFillConstant(value)) {
        // A constant the kernel reads as such, not a buffer to reshape.
        value = createFill(b, loc, split, constant);
      } else {
        SmallVector<ReassociationIndices> groups;
        for (unsigned d = 0; d < type.getRank(); ++d) {
          unsigned to = d + (d > *position ? 1 : 0);
          groups.push_back(d == *position ? ReassociationIndices{to, to + 1}
                                          : ReassociationIndices{to});
        }
        value = tensor::ExpandShapeOp::create(b, loc, split, value, groups);
      }
    }
    partialInputs.push_back(value);
    partialMaps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
  }
  SmallVector<Value> partialInits;
  SmallVector<Type> partialTypes;
  for (auto [n, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    SmallVector<AffineExpr> results(map.getResults());
    results.push_back(getAffineDimExpr(numLoops, ctx));
    partialMaps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
    auto type = cast<RankedTensorType>(init.get().getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.push_back(chunks);
    auto partialType = RankedTensorType::get(shape, type.getElementType());
    partialTypes.push_back(partialType);
    partialInits.push_back(createFill(b, loc, partialType,
                                      combination->isSelection()
                                          ? getFillConstant(init.get())
                                          : combination->neutral[n]));
  }
  SmallVector<utils::IteratorType> partialIterators = iterators;
  partialIterators.push_back(utils::IteratorType::parallel);
  auto partial =
      linalg::GenericOp::create(b, loc, partialTypes, partialInputs,
                                partialInits, partialMaps, partialIterators);
  IRMapping cloned;
  op->getRegion(0).cloneInto(&partial.getRegion(), cloned);
  for (auto index : llvm::make_early_inc_range(
           partial.getBlock()->getOps<linalg::IndexOp>())) {
    if (index.getDim() != dim)
      continue;
    OpBuilder ib(index);
    Value chunk = linalg::IndexOp::create(ib, loc, numLoops);
    Value start = arith::MulIOp::create(
        ib, loc, chunk, arith::ConstantIndexOp::create(ib, loc, chunkLength));
    Value at = linalg::IndexOp::create(ib, loc, dim);
    index.replaceAllUsesWith(
        arith::AddIOp::create(ib, loc, start, at).getResult());
    index.erase();
  }

  // The combine: the op's parallel loops, as its first result orders them,
  // and the chunks, reduced in order into the op's inits.
  AffineMap firstMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned numParallel = firstMap.getNumResults();
  SmallVector<AffineExpr> parallelDims(numLoops, getAffineConstantExpr(0, ctx));
  for (auto [k, expr] : llvm::enumerate(firstMap.getResults()))
    parallelDims[cast<AffineDimExpr>(expr).getPosition()] =
        getAffineDimExpr(k, ctx);
  SmallVector<AffineMap> combineMaps;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init).replaceDimsAndSymbols(
        parallelDims, {}, numParallel + 1, 0);
    SmallVector<AffineExpr> results(map.getResults());
    results.push_back(getAffineDimExpr(numParallel, ctx));
    combineMaps.push_back(AffineMap::get(numParallel + 1, 0, results, ctx));
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    combineMaps.push_back(
        op.getMatchingIndexingMap(&init).replaceDimsAndSymbols(
            parallelDims, {}, numParallel + 1, 0));
  SmallVector<utils::IteratorType> combineIterators(
      numParallel, utils::IteratorType::parallel);
  combineIterators.push_back(utils::IteratorType::reduction);
  unsigned numResults = op.getNumDpsInits();
  auto combine = linalg::GenericOp::create(
      b, loc, op->getResultTypes(), partial->getResults(), op.getDpsInits(),
      combineMaps, combineIterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        ValueRange partials = args.take_front(numResults);
        ValueRange carried = args.drop_front(numResults);
        IRMapping mapping;
        for (OpOperand &init : op.getDpsInitsMutable())
          mapping.map(op.getMatchingBlockArgument(&init),
                      carried[init.getOperandNumber() - op.getNumDpsInputs()]);
        if (!combination->isSelection()) {
          // Each fold again, of a chunk's partial result into the carried.
          SmallVector<Value> folded;
          for (auto [n, fold] : llvm::enumerate(combination->folds)) {
            BlockArgument own =
                op.getMatchingBlockArgument(op.getDpsInitOperand(n));
            for (Value operand : fold->getOperands())
              if (operand != own)
                mapping.map(operand, partials[n]);
            folded.push_back(nested.clone(*fold, mapping)->getResult(0));
          }
          linalg::YieldOp::create(nested, nestedLoc, folded);
          return;
        }
        // The payload again, on each chunk's winner: its value as the
        // element, its index as the cast index.
        for (auto [n, selectsIndex] :
             llvm::enumerate(combination->selectsIndex))
          mapping.map(selectsIndex ? combination->indexCast->getResult(0)
                                   : Value(combination->element),
                      partials[n]);
        for (Operation &inner : op.getBlock()->without_terminator())
          if (&inner != combination->index && &inner != combination->indexCast)
            nested.clone(inner, mapping);
        linalg::YieldOp::create(
            nested, nestedLoc,
            llvm::map_to_vector(
                op.getBlock()->getTerminator()->getOperands(),
                [&](Value v) { return mapping.lookupOrDefault(v); }));
      });
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    partial->setAttr(attr.getName(), attr.getValue());
    combine->setAttr(attr.getName(), attr.getValue());
  }
  op->replaceAllUsesWith(combine->getResults());
  // A fill of a constant the chunks read as a new fill of their shape is
  // read by nothing else now, nor may be the tensor.empty it fills: neither
  // may stay behind in a function the GPU lowering takes.
  auto producersOf = [](Operation *user) {
    llvm::SetVector<Operation *> producers;
    for (Value operand : user->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        producers.insert(producer);
    return producers;
  };
  llvm::SetVector<Operation *> producers = producersOf(op);
  op->erase();
  while (!producers.empty()) {
    Operation *producer = producers.pop_back_val();
    if (!isa<linalg::FillOp, tensor::EmptyOp, arith::ConstantOp>(producer) ||
        !isOpTriviallyDead(producer))
      continue;
    for (Operation *above : producersOf(producer))
      producers.insert(above);
    producer->erase();
  }
  return SplitLoopKernel{partial, combine, chunks, chunkLength};
}
