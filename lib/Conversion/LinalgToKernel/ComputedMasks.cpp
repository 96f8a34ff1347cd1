//===- ComputedMasks.cpp - Select conditions computed as masks of their own
//===//
//
// A mask that varies at run time reaches linalg as a payload condition
// computed from loop indices and integers, not as a boolean input: a decode
// step's `key > position` with the position passed as a scalar (`%past:
// i64`, the number of cached tokens), a sliding window of a run-time width,
// a padding mask `ids[j] != pad`. The import reads a select on a boolean
// input (kernel.where, which the attention kernel loads), but no kernel op
// computes such a condition, so the whole generic, scores and all, stayed
// linalg: a loop kernel that cut the attention in pieces.
//
// Computed by a generic of its own over only the loops it varies along, the
// condition is such a boolean input: the mask generic stays linalg (a small
// loop kernel on the GPU), and the select joins the kernel ops around it.
// A condition of loop indices and constants alone that is a union of
// triangles (a causal mask) is left to the import, which fills it without
// loading anything.
//
//===----------------------------------------------------------------------===//

#include "ImportSupport.h"
#include "TriangleMasks.h"

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// Whether `op` may compute part of a mask condition: integer and index
/// arithmetic, comparisons and casts, loop indices and constants. Float
/// comparisons are left out: a select on `x > 0` of the data it selects is
/// an activation (leaky relu, a clamp), which the import reads as such.
bool isConditionOp(Operation *op) {
  if (isa<linalg::IndexOp, arith::ConstantOp>(op))
    return true;
  if (!isa<arith::ArithDialect>(op->getDialect()) || !isPure(op) ||
      op->getNumResults() != 1)
    return false;
  return llvm::all_of(op->getOperandTypes(),
                      [](Type t) { return t.isIntOrIndex(); }) &&
         op->getResult(0).getType().isIntOrIndex();
}

/// What a select's condition is computed from, within one generic's body.
struct ConditionSlice {
  /// The body's ops that compute it, in body order.
  SmallVector<Operation *> ops;
  /// The input block arguments it reads.
  llvm::SmallSetVector<BlockArgument, 4> inputs;
  /// The loops it varies along, in loop order.
  SmallVector<unsigned> loops;
};

/// The slice computing `condition` in `op`'s body, or none if some part of
/// it is no condition op or reads the accumulator. Values from above (a
/// captured index argument) are read as they are.
std::optional<ConditionSlice> getConditionSlice(linalg::GenericOp op,
                                                Value condition) {
  Block *body = op.getBlock();
  llvm::SmallSetVector<Operation *, 8> ops;
  llvm::SmallSetVector<BlockArgument, 4> inputs;
  SmallVector<Value> worklist{condition};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() != body)
        continue;
      if (arg.getArgNumber() >= op.getNumDpsInputs() ||
          !arg.getType().isIntOrIndex())
        return std::nullopt;
      inputs.insert(arg);
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != body)
      continue;
    if (!isConditionOp(def))
      return std::nullopt;
    if (ops.insert(def))
      worklist.append(def->operand_begin(), def->operand_end());
  }
  llvm::SmallBitVector varies(op.getNumLoops());
  for (Operation *def : ops)
    if (auto index = dyn_cast<linalg::IndexOp>(def))
      varies.set(index.getDim());
  for (BlockArgument arg : inputs) {
    AffineMap map = op.getMatchingIndexingMap(op.getMatchingOpOperand(arg));
    for (unsigned d = 0; d < op.getNumLoops(); ++d)
      if (map.isFunctionOfDim(d))
        varies.set(d);
  }
  ConditionSlice slice;
  slice.ops = ops.takeVector();
  llvm::sort(slice.ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  slice.inputs = std::move(inputs);
  for (int d = varies.find_first(); d >= 0; d = varies.find_next(d))
    slice.loops.push_back(d);
  return slice;
}

/// Whether `condition` is `not m` (an xori with true, any number of times)
/// of a boolean input `m`, which the import reads as it is.
bool isNegatedInput(Value condition, Block *body) {
  while (auto xori = condition.getDefiningOp<arith::XOrIOp>()) {
    if (matchPattern(xori.getRhs(), m_One()))
      condition = xori.getLhs();
    else if (matchPattern(xori.getLhs(), m_One()))
      condition = xori.getRhs();
    else
      return false;
  }
  auto arg = dyn_cast<BlockArgument>(condition);
  return arg && arg.getOwner() == body;
}

/// The mask generic: `slice`'s condition over its loops, read from the
/// inputs it reads, as a tensor of i1.
Value buildMaskGeneric(PatternRewriter &rewriter, linalg::GenericOp op,
                       const ConditionSlice &slice, Value condition) {
  SmallVector<int64_t> loopShape = op.getStaticLoopRanges();
  llvm::SmallBitVector unused(op.getNumLoops(), true);
  SmallVector<int64_t> shape;
  for (unsigned d : slice.loops) {
    unused.reset(d);
    shape.push_back(loopShape[d]);
  }
  MLIRContext *context = rewriter.getContext();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (BlockArgument arg : slice.inputs) {
    OpOperand *operand = op.getMatchingOpOperand(arg);
    inputs.push_back(operand->get());
    maps.push_back(compressDims(op.getMatchingIndexingMap(operand), unused));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(shape.size(), context));
  Location loc = condition.getLoc();
  Value init =
      tensor::EmptyOp::create(rewriter, loc, shape, rewriter.getI1Type());
  SmallVector<utils::IteratorType> iterators(shape.size(),
                                             utils::IteratorType::parallel);
  auto mask = linalg::GenericOp::create(
      rewriter, loc, init.getType(), inputs, init, maps, iterators,
      [&](OpBuilder &b, Location, ValueRange args) {
        IRMapping mapping;
        for (auto [arg, element] : llvm::zip(slice.inputs, args))
          mapping.map(arg, element);
        for (Operation *def : slice.ops) {
          if (auto index = dyn_cast<linalg::IndexOp>(def)) {
            // The loops of the mask generic are the slice's loops.
            unsigned dim =
                llvm::find(slice.loops, index.getDim()) - slice.loops.begin();
            mapping.map(index.getResult(),
                        linalg::IndexOp::create(b, index.getLoc(), dim));
            continue;
          }
          b.clone(*def, mapping);
        }
        linalg::YieldOp::create(b, loc, mapping.lookup(condition));
      });
  return mask.getResult(0);
}

struct ComputedConditionToMask : public OpRewritePattern<linalg::GenericOp> {
  /// Below the imports (benefit 1): a generic they read as it is keeps its
  /// condition.
  ComputedConditionToMask(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/0) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.hasDynamicShape())
      return rewriter.notifyMatchFailure(op, "not on static tensors");
    SmallVector<int64_t> loopShape = op.getStaticLoopRanges();
    Block *body = op.getBlock();
    for (auto select : body->getOps<arith::SelectOp>()) {
      Value condition = select.getCondition();
      // The import reads selects of floats on a boolean input
      // (PayloadPlanner::planMaskSelect).
      if (!isa<FloatType>(select.getType()) ||
          !isa_and_nonnull<arith::CmpIOp, arith::AndIOp, arith::OrIOp,
                           arith::XOrIOp>(condition.getDefiningOp()) ||
          condition.getDefiningOp()->getBlock() != body)
        continue;
      std::optional<ConditionSlice> slice = getConditionSlice(op, condition);
      // A union of triangles where the select fills, on either side (a
      // sliding window's `keep` is the complement of one), the import fills
      // without a mask.
      if (!slice ||
          matchTriangleUnion(condition, body, loopShape, /*negated=*/false) ||
          matchTriangleUnion(condition, body, loopShape, /*negated=*/true))
        continue;
      if (isNegatedInput(condition, body))
        continue;
      replaceCondition(rewriter, op, *slice, condition);
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "selects on no condition computed from indices and integers");
  }

  /// `op` reading the mask of `condition` through a map to the slice's
  /// loops, with the inputs only the condition read dropped.
  void replaceCondition(PatternRewriter &rewriter, linalg::GenericOp op,
                        const ConditionSlice &slice, Value condition) const {
    // The slice's ops that nothing but the condition needs once the mask
    // stands for it (a loop index the payload also reads stays), and the
    // inputs only they read.
    llvm::SmallPtrSet<Operation *, 8> dead;
    dead.insert(condition.getDefiningOp());
    for (Operation *def : llvm::reverse(slice.ops))
      if (llvm::all_of(def->getUsers(),
                       [&](Operation *user) { return dead.contains(user); }))
        dead.insert(def);
    auto onlyReadByDead = [&](BlockArgument arg) {
      return llvm::all_of(arg.getUsers(),
                          [&](Operation *user) { return dead.contains(user); });
    };
    Value mask = buildMaskGeneric(rewriter, op, slice, condition);
    Block *body = op.getBlock();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    SmallVector<unsigned> dropped;
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument arg = body->getArgument(input->getOperandNumber());
      if (slice.inputs.contains(arg) && onlyReadByDead(arg)) {
        dropped.push_back(arg.getArgNumber());
        continue;
      }
      inputs.push_back(input->get());
      maps.push_back(op.getMatchingIndexingMap(input));
    }
    inputs.push_back(mask);
    SmallVector<AffineExpr> loops = llvm::map_to_vector(
        slice.loops, [&](unsigned d) { return rewriter.getAffineDimExpr(d); });
    maps.push_back(
        AffineMap::get(op.getNumLoops(), 0, loops, rewriter.getContext()));
    linalg::GenericOp generic =
        linalg_import::rebuildWithInputs(rewriter, op, inputs, maps);
    Block &newBody = generic.getRegion().front();
    // After the old inputs' arguments, so that once the dropped ones (all
    // before it) are erased it is where the mask is among the operands.
    BlockArgument element = newBody.insertArgument(
        op.getNumDpsInputs(), rewriter.getI1Type(), condition.getLoc());
    rewriter.replaceAllUsesWith(condition, element);
    for (Operation *def : llvm::reverse(slice.ops))
      if (dead.contains(def))
        rewriter.eraseOp(def);
    for (unsigned arg : llvm::reverse(dropped))
      newBody.eraseArgument(arg);
    rewriter.replaceOp(op, generic->getResults());
  }
};

} // namespace

void mlsopt::populateComputedMaskPatterns(RewritePatternSet &patterns) {
  patterns.add<ComputedConditionToMask>(patterns.getContext());
}
