//===- BroadcastOperands.cpp - Broadcasts read by contractions ------------===//
//
// torch-mlir lowers torch.matmul of a [b, m, k] activation and a [k, n]
// weight as a linalg.broadcast of the weight to [b, k, n] and a
// linalg.batch_matmul. Kernel ops have no broadcast, and the copy would cost
// b times the weight's bytes; a contraction can read the weight itself,
// through an indexing map that ignores the batch loop. This pattern rewrites
// the contraction that way (generalized first when it is a named op), and
// the import's FlattenedRowsToMatmul then makes it one matmul of the
// flattened rows.
//
// torch-mlir's aten.expand is a linalg.generic copy; GenericToBroadcast
// makes it the linalg.broadcast the patterns here and BatchMatmulRows.cpp
// read. A transpose of a broadcast (multi-query attention's K expanded to
// every head, then K^T) is the broadcast of the transposed input
// (TransposeOfBroadcast), and a kernel.matmul already imported with such a
// broadcast weight becomes the matmul of the rows (MatmulOfBroadcastWeight).
// A broadcast given size-1 dims by an expand_shape (a reduction's init with
// its reduced dim kept) is the broadcast of the expanded input
// (ExpandOfBroadcast), which elementwise ops read through. A kernel op of
// one operand, or a reduction along a dim the broadcast keeps, computes on
// the broadcast's input and is broadcast after (UnaryBeforeBroadcast,
// ReduceBeforeBroadcast), so broadcasts move down to the binary ops that
// read them through numpy broadcasting.
//
//===----------------------------------------------------------------------===//

#include "ImportSupport.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::linalg_import;

namespace {

/// The right operand of `op` when a linalg.broadcast on tensors writes it
/// by adding leading dims that are the leading dims of the left operand and
/// of the result too (batch dims, which then become rows the weight does not
/// vary along: what FlattenedRowsToMatmul takes).
OpOperand *findBroadcastInput(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return nullptr;
  OpOperand *rhs = op.getDpsInputOperand(1);
  auto broadcast = rhs->get().getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast || !broadcast.hasPureTensorSemantics())
    return nullptr;
  ArrayRef<int64_t> added = broadcast.getDimensions();
  AffineMap rhsMap = op.getMatchingIndexingMap(rhs);
  AffineMap lhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (auto [i, dim] : llvm::enumerate(added)) {
    if (dim != static_cast<int64_t>(i) ||
        static_cast<int64_t>(lhsMap.getNumResults()) <= dim ||
        static_cast<int64_t>(outMap.getNumResults()) <= dim ||
        rhsMap.getResult(dim) != lhsMap.getResult(dim) ||
        rhsMap.getResult(dim) != outMap.getResult(dim))
      return nullptr;
  }
  return rhs;
}

/// Ahead of the import's contraction patterns (benefit 2), which would
/// otherwise take the broadcast tensor as a batched operand.
struct ContractionReadsBroadcastInput
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  ContractionReadsBroadcastInput(MLIRContext *context)
      : OpInterfaceRewritePattern(context, /*benefit=*/3) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        !linalg::isaContractionOpInterface(op) || !findBroadcastInput(op))
      return rewriter.notifyMatchFailure(
          op, "not a contraction that reads a broadcast");
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized))
        return rewriter.notifyMatchFailure(op, "cannot be generalized");
      generic = *generalized;
    }
    OpOperand *input = findBroadcastInput(generic);
    auto broadcast = input->get().getDefiningOp<linalg::BroadcastOp>();
    // The broadcast's result dims `dimensions` are the added ones: the
    // operand's map without them reads the broadcast's input.
    AffineMap map = generic.getMatchingIndexingMap(input);
    SmallVector<int64_t> added(broadcast.getDimensions());
    AffineMap reduced = map.dropResults(added);
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    maps[input->getOperandNumber()] = reduced;
    rewriter.modifyOpInPlace(generic, [&] {
      input->set(broadcast.getInput());
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// A linalg.generic that only copies its input along added dims, or along
/// size-1 dims it reads at index 0 (torch-mlir's aten.expand of
/// [b, kv, 1, s, d] to [b, kv, rep, s, d]), is the linalg.broadcast of the
/// input without those size-1 dims: the form the patterns here and the
/// import's elementwise patterns read through.
struct GenericToBroadcast : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
        op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops())
      return rewriter.notifyMatchFailure(op, "not a parallel copy");
    Block &body = op.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    if (body.getOperations().size() != 1 || yield.getNumOperands() != 1 ||
        yield.getOperand(0) != body.getArgument(0))
      return rewriter.notifyMatchFailure(op, "the payload is not a copy");
    Value input = op.getDpsInputs()[0];
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    auto initType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
    AffineMap inputMap = op.getIndexingMapsArray()[0];
    if (!inputType || !inputType.hasStaticShape() ||
        inputType.getElementType() != initType.getElementType() ||
        !op.getIndexingMapsArray()[1].isIdentity())
      return rewriter.notifyMatchFailure(op, "not a static copy");
    SmallVector<int64_t> kept;
    llvm::SmallBitVector read(op.getNumLoops());
    int64_t last = -1;
    for (auto [i, expr] : llvm::enumerate(inputMap.getResults())) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        // In order: a broadcast does not transpose.
        if (static_cast<int64_t>(dim.getPosition()) <= last)
          return rewriter.notifyMatchFailure(op, "transposes its input");
        last = dim.getPosition();
        read.set(dim.getPosition());
        kept.push_back(inputType.getDimSize(i));
        continue;
      }
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      if (!constant || constant.getValue() != 0 || inputType.getDimSize(i) != 1)
        return rewriter.notifyMatchFailure(op, "reads an input dim partly");
    }
    SmallVector<int64_t> added;
    for (int64_t d = 0; d < static_cast<int64_t>(op.getNumLoops()); ++d)
      if (!read.test(d))
        added.push_back(d);
    if (added.empty())
      return rewriter.notifyMatchFailure(op, "adds no dim");
    if (static_cast<int64_t>(kept.size()) != inputType.getRank()) {
      auto keptType = RankedTensorType::get(kept, inputType.getElementType());
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForReshape(inputType, keptType);
      if (!groups)
        return rewriter.notifyMatchFailure(op, "cannot drop the size-1 dims");
      input = tensor::CollapseShapeOp::create(rewriter, op.getLoc(), keptType,
                                              input, *groups);
    }
    rewriter.replaceOpWithNewOp<linalg::BroadcastOp>(
        op, input, op.getDpsInits()[0], added);
    return success();
  }
};

/// A parallel linalg.generic that computes on inputs which all leave some
/// loops out (an addmm's init written as `b + 0.0` broadcast to every row,
/// a per-channel scale stretched to the whole tensor) computes the same
/// value at every point of those loops. It becomes the generic over the
/// loops its inputs read, then a linalg.broadcast of that: kernel ops have
/// no broadcast, and the import reads a broadcast through numpy
/// broadcasting (BroadcastOperandToUnitDims) where the generic could not be
/// imported at all. A payload that reads its loop indices or its output
/// varies along every loop.
struct ComputeBeforeBroadcast : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() == 0 ||
        op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops() ||
        !op.getIndexingMapsArray().back().isIdentity())
      return rewriter.notifyMatchFailure(op, "not a parallel elementwise op");
    Block &body = op.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    if (!op.getRegionOutputArgs().front().use_empty() ||
        !body.getOps<linalg::IndexOp>().empty())
      return rewriter.notifyMatchFailure(op,
                                         "reads its output or loop indices");
    // A copy in order is GenericToBroadcast's; one that also transposes
    // becomes a transpose here, then the broadcast.
    if (isa<BlockArgument>(yield.getOperand(0)) && op.getNumDpsInputs() == 1 &&
        llvm::is_sorted(op.getIndexingMapsArray().front().getResults(),
                        [](AffineExpr a, AffineExpr b) {
                          auto da = dyn_cast<AffineDimExpr>(a);
                          auto db = dyn_cast<AffineDimExpr>(b);
                          return da && db &&
                                 da.getPosition() < db.getPosition();
                        }))
      return rewriter.notifyMatchFailure(op, "a copy without a transpose");
    llvm::SmallBitVector read(op.getNumLoops());
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
        return rewriter.notifyMatchFailure(op, "an input map is not a view");
      for (AffineExpr expr : map.getResults())
        read.set(cast<AffineDimExpr>(expr).getPosition());
    }
    auto initType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
    SmallVector<int64_t> kept, added, keptShape;
    for (int64_t d = 0; d < initType.getRank(); ++d) {
      if (read.test(d)) {
        kept.push_back(d);
        keptShape.push_back(initType.getDimSize(d));
      } else {
        added.push_back(d);
      }
    }
    // Along size-1 loops there is nothing to broadcast: the import takes
    // such a generic as it is.
    if (!initType.hasStaticShape() || kept.empty() ||
        llvm::all_of(added,
                     [&](int64_t d) { return initType.getDimSize(d) == 1; }))
      return rewriter.notifyMatchFailure(op, "no loop to broadcast along");

    // Loop kept[i] becomes loop i of the narrower generic.
    SmallVector<AffineExpr> renumbered(op.getNumLoops(),
                                       rewriter.getAffineConstantExpr(0));
    for (auto [i, d] : llvm::enumerate(kept))
      renumbered[d] = rewriter.getAffineDimExpr(i);
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands())
      maps.push_back(op.getMatchingIndexingMap(input).replaceDimsAndSymbols(
          renumbered, {}, kept.size(), 0));
    maps.push_back(rewriter.getMultiDimIdentityMap(kept.size()));
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, keptShape,
                                         initType.getElementType());
    auto narrow = linalg::GenericOp::create(
        rewriter, loc, init.getType(), op.getDpsInputs(), init, maps,
        SmallVector<utils::IteratorType>(kept.size(),
                                         utils::IteratorType::parallel));
    rewriter.inlineRegionBefore(op.getRegion(), narrow.getRegion(),
                                narrow.getRegion().end());
    rewriter.replaceOpWithNewOp<linalg::BroadcastOp>(
        op, narrow.getResult(0), op.getDpsInits()[0], added);
    return success();
  }
};

/// How a transpose by `permutation` of a broadcast that adds `added` dims
/// is a broadcast of the transposed input: the dims the broadcast adds to
/// it (`added`), and the permutation of the input (`input`).
struct TransposedBroadcast {
  SmallVector<int64_t> added, input;

  TransposedBroadcast(ArrayRef<int64_t> broadcastAdded,
                      ArrayRef<int64_t> permutation) {
    // Result dim i reads broadcast dim permutation[i]: added dims stay
    // added where they land, and the input's dims follow in their order.
    for (auto [i, from] : llvm::enumerate(permutation)) {
      if (llvm::is_contained(broadcastAdded, from)) {
        added.push_back(static_cast<int64_t>(i));
        continue;
      }
      input.push_back(from - llvm::count_if(broadcastAdded, [&](int64_t d) {
                        return d < from;
                      }));
    }
  }

  bool transposesInput() const {
    return !llvm::equal(input, llvm::seq<int64_t>(0, input.size()));
  }
};

/// A transpose of a linalg.broadcast is the broadcast of the transposed
/// input: torch-mlir writes multi-query attention's K^T as k.expand(...)
/// then .transpose(-1, -2), and only a broadcast that the contraction reads
/// directly lets it read the one K head in place (else the copy of K to
/// every head was a launch of its own). The linalg.transpose is rewritten
/// before it is imported, which would hide the broadcast behind it; the
/// kernel.transpose it becomes when the expand was still a linalg.generic
/// (GenericToBroadcast had not run) is rewritten as well.
template <typename TransposeOpTy>
struct TransposeOfBroadcast : public OpRewritePattern<TransposeOpTy> {
  TransposeOfBroadcast(MLIRContext *context)
      : OpRewritePattern<TransposeOpTy>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(TransposeOpTy op,
                                PatternRewriter &rewriter) const override {
    Value transposed = op->getOperand(0);
    auto broadcast = transposed.template getDefiningOp<linalg::BroadcastOp>();
    if (!broadcast || !broadcast->hasOneUse() ||
        !isa<RankedTensorType>(transposed.getType()))
      return rewriter.notifyMatchFailure(op, "not a transposed broadcast");
    TransposedBroadcast through(broadcast.getDimensions(), op.getPermutation());
    Location loc = op.getLoc();
    Value input = broadcast.getInput();
    if (through.transposesInput()) {
      if constexpr (std::is_same_v<TransposeOpTy, kernel::TransposeOp>) {
        input =
            kernel::TransposeOp::create(rewriter, loc, input, through.input);
      } else {
        auto type = cast<RankedTensorType>(input.getType());
        SmallVector<int64_t> shape;
        for (int64_t d : through.input)
          shape.push_back(type.getDimSize(d));
        Value init = tensor::EmptyOp::create(rewriter, loc, shape,
                                             type.getElementType());
        input = linalg::TransposeOp::create(rewriter, loc, input, init,
                                            through.input)
                    .getResult()
                    .front();
      }
    }
    Value init;
    if constexpr (std::is_same_v<TransposeOpTy, kernel::TransposeOp>) {
      auto resultType = cast<RankedTensorType>(op.getType());
      init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                     resultType.getElementType());
    } else {
      init = op.getInit();
    }
    rewriter.replaceOpWithNewOp<linalg::BroadcastOp>(op, input, init,
                                                     through.added);
    return success();
  }
};

/// A kernel.matmul whose right operand is a 2-D weight broadcast along
/// all the batch dims is one matmul of the left operand's rows by the
/// weight: what ContractionReadsBroadcastInput makes of the linalg
/// contraction, for one imported before the broadcast was in its operand
/// (a transposed broadcast, TransposeOfBroadcast).
struct MatmulOfBroadcastWeight : public OpRewritePattern<kernel::MatmulOp> {
  using OpRewritePattern<kernel::MatmulOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto broadcast = op.getRhs().getDefiningOp<linalg::BroadcastOp>();
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    int64_t rank = lhsType.getRank();
    if (!broadcast || rank < 3 ||
        !llvm::equal(broadcast.getDimensions(),
                     llvm::seq<int64_t>(0, rank - 2)))
      return rewriter.notifyMatchFailure(op, "not a broadcast weight");
    Value weight = broadcast.getInput();
    SmallVector<ReassociationIndices> groups(1);
    for (int64_t d = 0; d < rank - 1; ++d)
      groups.front().push_back(d);
    groups.push_back({rank - 1});
    Location loc = op.getLoc();
    Value rows =
        tensor::CollapseShapeOp::create(rewriter, loc, op.getLhs(), groups);
    Value product = kernel::MatmulOp::create(rewriter, loc, rows, weight);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, op.getResult().getType(), product, groups);
    return success();
  }
};

/// expand_shape(linalg.broadcast(x)) -> linalg.broadcast(expand_shape(x))
/// when the expand adds size-1 dims beside the input's dims only: the
/// reduction import reads an init with its reduced dim kept ([b, o] as
/// [b, o, 1]), and a bias broadcast to every row ([o] to [b, o]) then sat
/// behind the expand, where the elementwise patterns that read broadcasts
/// through numpy broadcasting (BroadcastOperandToUnitDims) could not see
/// it: a copy kernel of its own.
struct ExpandOfBroadcast : public OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    auto broadcast = expand.getSrc().getDefiningOp<linalg::BroadcastOp>();
    if (!broadcast || !broadcast.hasPureTensorSemantics() ||
        !expand.getResultType().hasStaticShape())
      return rewriter.notifyMatchFailure(expand, "not of a broadcast");
    ArrayRef<int64_t> added = broadcast.getDimensions();
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    // Each added dim stays one dim; the input's dims gain size-1 dims only.
    SmallVector<int64_t> newAdded;
    SmallVector<ReassociationIndices> inputGroups;
    SmallVector<int64_t> inputShape;
    for (auto [dim, group] : llvm::enumerate(groups)) {
      if (llvm::is_contained(added, static_cast<int64_t>(dim))) {
        if (group.size() != 1)
          return rewriter.notifyMatchFailure(expand, "splits an added dim");
        newAdded.push_back(group.front());
        continue;
      }
      if (llvm::count_if(group, [&](int64_t d) { return shape[d] != 1; }) > 1)
        return rewriter.notifyMatchFailure(expand, "splits an input dim");
      ReassociationIndices inputGroup;
      for (int64_t d : group) {
        inputGroup.push_back(static_cast<int64_t>(inputShape.size()));
        inputShape.push_back(shape[d]);
      }
      inputGroups.push_back(std::move(inputGroup));
    }
    Value input = broadcast.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    Location loc = expand.getLoc();
    Value expandedInput = inputShape == inputType.getShape()
                              ? input
                              : tensor::ExpandShapeOp::create(
                                    rewriter, loc, inputType.clone(inputShape),
                                    input, inputGroups);
    Value init = tensor::EmptyOp::create(rewriter, loc, shape,
                                         inputType.getElementType());
    rewriter.replaceOpWithNewOp<linalg::BroadcastOp>(expand, expandedInput,
                                                     init, newAdded);
    return success();
  }
};
/// Replaces `op` by a linalg.broadcast of `value` to `op`'s result type,
/// adding `dims`.
static void replaceByBroadcast(PatternRewriter &rewriter, Operation *op,
                               Value value, ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Value init = tensor::EmptyOp::create(rewriter, op->getLoc(), type.getShape(),
                                       type.getElementType());
  rewriter.replaceOpWithNewOp<linalg::BroadcastOp>(op, value, init, dims);
}

/// A kernel op of one operand that computes elementwise (`int_to_float`,
/// `where`, `convert`, `exp`, `max_scalar`, ...) on a linalg.broadcast
/// computes on the broadcast's input and is broadcast after: torch's
/// `mask.unsqueeze(-1).expand(x.shape).float()` converts the mask once per
/// element of the input, not of the expanded tensor, and the broadcast moves
/// towards the binary ops that read it through numpy broadcasting
/// (BroadcastOperandToUnitDims). An integer broadcast no kernel op takes
/// would otherwise stay unimported, and the whole program with it.
struct UnaryBeforeBroadcast : public RewritePattern {
  UnaryBeforeBroadcast(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!(isElementwiseKernelOp(op) || isa<kernel::ConvertOp>(op)) ||
        op->getNumOperands() != 1)
      return rewriter.notifyMatchFailure(op, "not a unary elementwise op");
    auto broadcast = op->getOperand(0).getDefiningOp<linalg::BroadcastOp>();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (!broadcast || !broadcast.hasPureTensorSemantics() ||
        resultType.getShape() !=
            cast<RankedTensorType>(op->getOperand(0).getType()).getShape())
      return rewriter.notifyMatchFailure(op, "reads no broadcast");
    Value input = broadcast.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    // A scalar stays where it is: kernel ops compute on tensors of rank 1
    // and more.
    if (!inputType || !inputType.hasStaticShape() || inputType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "broadcasts a scalar or a "
                                             "dynamic shape");
    Operation *computed = rewriter.clone(*op);
    rewriter.modifyOpInPlace(computed, [&] {
      computed->setOperand(0, input);
      computed->getResult(0).setType(
          inputType.clone(resultType.getElementType()));
    });
    replaceByBroadcast(rewriter, op, computed->getResult(0),
                       broadcast.getDimensions());
    return success();
  }
};

/// A kernel reduction of a linalg.broadcast along a dim the broadcast does
/// not add reduces the broadcast's input and is broadcast after: a masked
/// mean's count of kept tokens (`mask.expand(x.shape).sum(1)`) sums the
/// mask, not its copy along the hidden dim, and the copy itself is never
/// written (the broadcast moves on to the ops that read it).
template <typename OpTy>
struct ReduceBeforeBroadcast : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto broadcast =
        op.getInput().template getDefiningOp<linalg::BroadcastOp>();
    if (!broadcast || !broadcast.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "reads no broadcast");
    ArrayRef<int64_t> added = broadcast.getDimensions();
    int64_t dim = op.getDim();
    if (llvm::is_contained(added, dim))
      return rewriter.notifyMatchFailure(op, "reduces an added dim");
    Value input = broadcast.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "broadcasts a dynamic shape");
    int64_t inputDim =
        dim - llvm::count_if(added, [&](int64_t d) { return d < dim; });
    Value reduced = OpTy::create(rewriter, op.getLoc(), input, inputDim);
    replaceByBroadcast(rewriter, op, reduced, added);
    return success();
  }
};
} // namespace

void mlsopt::populateBroadcastOperandPatterns(RewritePatternSet &patterns) {
  patterns.add<ComputeBeforeBroadcast, ContractionReadsBroadcastInput,
               ExpandOfBroadcast, GenericToBroadcast, MatmulOfBroadcastWeight,
               ReduceBeforeBroadcast<kernel::ReduceSumOp>,
               ReduceBeforeBroadcast<kernel::ReduceMaxOp>,
               TransposeOfBroadcast<linalg::TransposeOp>,
               TransposeOfBroadcast<kernel::TransposeOp>, UnaryBeforeBroadcast>(
      patterns.getContext());
}
