//===- LinalgToKernel.cpp - linalg on tensors to the kernel dialect -------===//
//
// Imports what front ends (torch-mlir, IREE, ...) emit as linalg on tensors
// into the kernel dialect. Every pattern matches the structured-op interface
// (`linalg::LinalgOp`), so `linalg.generic`, the named ops (`linalg.matmul`,
// `linalg.add`, `linalg.exp`, ...), `linalg.elementwise`, `linalg.map`,
// `linalg.reduce` and `linalg.transpose` are all read the same way: through
// their indexing maps, iterator types and payload block.
//
// - A contraction with one M, N and K dim (and any batch dims shared by all
//   operands) becomes `kernel.matmul`, with `kernel.transpose` around it where
//   the maps permute the operands, plus the init: nothing for a zero fill,
//   `kernel.add_scalar` for another constant fill, `kernel.add` otherwise.
// - A reduction (over one dim or several, one after the other) whose
//   combiner is `arith.addf` or `arith.maximumf`
//   (or `arith.maxnumf`, which differs from it on NaN only) becomes
//   `kernel.reduce_sum` or `kernel.reduce_max` of the value its payload
//   computes, a minimum the negated maximum of the negated value; an init
//   that is not the identity is folded in after (added to a sum; a constant
//   fill bounds a maximum or minimum).
// - An all-parallel op becomes one kernel op per payload op, or one for the
//   sigmoid, silu, gelu and (in f32) `1 / sqrt(x)` idioms. Constants become
//   scalar operands (`kernel.add_scalar`, `kernel.mul_scalar`); a division
//   by a constant c is a multiplication by 1.0 / c (exact where the inverse
//   is, within an ulp otherwise; for an integer count n, a mean's, what the
//   verifier reads as 1/n).
// - A `linalg.broadcast` that only adds dims, read by a kernel binary op
//   (an elementwise op above that read it), is replaced in that op by its
//   input reshaped with size-1 dims, which numpy broadcasting stretches.
//
// Kernel ops on f16 and bf16 compute in f32 and round once, so a payload
// that extends to f32, computes one op and truncates back is that kernel op;
// a longer chain in f32 rounds less often than kernel ops would and stays.
//
// Kernel elementwise ops broadcast like numpy, so an operand read through a
// projected permutation is transposed into loop order and given size-1 dims
// for the loops it does not index. Kernel reductions keep the reduced dim, so
// results are permuted and reshaped (size-1 dims only) into the type of the
// linalg result. Every pattern plans the whole replacement before it creates
// any op, so an op it cannot express stays exactly as it was.
//
// This file holds the import's main patterns and the pass; the translation
// of payloads is PayloadPlanner.h, the patterns for the size-1 reshapes left
// between kernel ops UnitReshapes.cpp, and the helpers they share
// ImportSupport.h.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "ImportSupport.h"
#include "PayloadPlanner.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/ResourceBlobs.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <optional>

namespace mlsopt {
#define GEN_PASS_DEF_CONVERTLINALGTOKERNEL
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::linalg_import;

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

FailureOr<linalg::ContractionDimensions>
mlsopt::inferMatmulDims(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty() ||
      dims->batch.size() + dims->m.size() + dims->n.size() + dims->k.size() !=
          static_cast<size_t>(op.getNumLoops()))
    return failure();
  return dims;
}

namespace {

/// A contraction with M, N and K loops, and batch loops indexed by every
/// operand, to `kernel.matmul` (batched over leading dims), with
/// `kernel.transpose` where an operand's map orders its dims otherwise.
/// Several M, N or K loops (an einsum `bhsd,hdo->bso`, a multi-head output
/// projection written as one op) are flattened into one each, around the
/// matmul, after the transposes that make each group's loops adjacent. Covers
/// `linalg.matmul` and `linalg.batch_matmul` with any `indexing_maps` (the
/// transposed-operand forms), `linalg.contract` and `linalg.generic`
/// matmuls. `C += A B` with an init that is not a zero fill becomes
/// `kernel.add` of the init and the product.
/// With `grouped`, only contractions with several loops in some group,
/// at a lower benefit than the patterns that read such contractions without
/// a transpose (FlattenedRowsToMatmul).
struct ContractionToMatmul
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  /// Why the ungrouped pattern leaves what the grouped one takes.
  static constexpr llvm::StringLiteral kSeveralLoops =
      "several M, N or K loops";

  ContractionToMatmul(MLIRContext *context, bool grouped)
      : OpInterfaceRewritePattern(context, /*benefit=*/grouped ? 1 : 2),
        grouped(grouped) {}
  bool grouped;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    Type elementType;
    if (failed(matchMulAddContraction(op, rewriter, elementType)))
      return failure();

    FailureOr<linalg::ContractionDimensions> dims = inferMatmulDims(op);
    if (failed(dims))
      return rewriter.notifyMatchFailure(
          op, "loops are not batch dims plus M, N and K dims");
    bool single =
        dims->m.size() == 1 && dims->n.size() == 1 && dims->k.size() == 1;
    if (single == grouped)
      return rewriter.notifyMatchFailure(
          op, grouped ? llvm::StringRef("one M, N and K loop")
                      : llvm::StringRef(kSeveralLoops));

    OpOperand *lhs = op.getDpsInputOperand(0);
    OpOperand *rhs = op.getDpsInputOperand(1);
    OpOperand *init = op.getDpsInitOperand(0);
    size_t numBatch = dims->batch.size();
    for (auto [operand, rank] :
         {std::pair(lhs, numBatch + dims->m.size() + dims->k.size()),
          std::pair(rhs, numBatch + dims->k.size() + dims->n.size()),
          std::pair(init, numBatch + dims->m.size() + dims->n.size())}) {
      AffineMap map = op.getMatchingIndexingMap(operand);
      // Every dim is read once: no broadcast, no constant index.
      if (!map.isProjectedPermutation() || map.getNumResults() != rank)
        return rewriter.notifyMatchFailure(
            op, "an operand broadcasts or reads at a constant index");
    }

    // Batch dims in the order the result has them, so the result needs no
    // transpose when the maps are those of a (batch_)matmul.
    AffineMap resultMap = op.getMatchingIndexingMap(init);
    SmallVector<unsigned> batch;
    for (AffineExpr expr : resultMap.getResults()) {
      unsigned dim = cast<AffineDimExpr>(expr).getPosition();
      if (llvm::is_contained(dims->batch, dim))
        batch.push_back(dim);
    }
    // Each group's loops in the order the result (M, N) or the rhs (K)
    // has them: a plain matmul's maps then need no transpose.
    auto inOrderOf = [&](OpOperand *operand, ArrayRef<unsigned> group) {
      SmallVector<unsigned> order;
      for (AffineExpr expr : op.getMatchingIndexingMap(operand).getResults())
        if (unsigned d = cast<AffineDimExpr>(expr).getPosition();
            llvm::is_contained(group, d))
          order.push_back(d);
      return order;
    };
    SmallVector<unsigned> m = inOrderOf(init, dims->m);
    SmallVector<unsigned> n = inOrderOf(init, dims->n);
    SmallVector<unsigned> k = inOrderOf(rhs, dims->k);
    auto withBatch = [&](ArrayRef<unsigned> first, ArrayRef<unsigned> second) {
      SmallVector<unsigned> order(batch);
      llvm::append_range(order, first);
      llvm::append_range(order, second);
      return order;
    };
    SmallVector<unsigned> lhsOrder = withBatch(m, k);
    SmallVector<unsigned> rhsOrder = withBatch(k, n);
    SmallVector<unsigned> resultOrder = withBatch(m, n);
    SmallVector<int64_t> loopShape = op.getStaticLoopRanges();
    auto shapeOf = [&](ArrayRef<unsigned> order) {
      return llvm::map_to_vector(order,
                                 [&](unsigned dim) { return loopShape[dim]; });
    };
    // The batch dims one by one, then each group as one dim.
    auto groupsOf = [&](size_t first, size_t second) {
      SmallVector<ReassociationIndices> groups;
      int64_t next = 0;
      for (size_t i = 0; i < numBatch; ++i)
        groups.push_back({next++});
      for (size_t size : {first, second}) {
        ReassociationIndices group;
        for (size_t i = 0; i < size; ++i)
          group.push_back(next++);
        groups.push_back(std::move(group));
      }
      return groups;
    };
    auto flatShapeOf = [&](ArrayRef<unsigned> order,
                           ArrayRef<ReassociationIndices> groups) {
      SmallVector<int64_t> shape = shapeOf(order), flat;
      for (const ReassociationIndices &group : groups) {
        flat.push_back(1);
        for (int64_t i : group)
          flat.back() *= shape[i];
      }
      return flat;
    };
    SmallVector<ReassociationIndices> lhsGroups = groupsOf(m.size(), k.size());
    SmallVector<ReassociationIndices> rhsGroups = groupsOf(k.size(), n.size());
    SmallVector<ReassociationIndices> resultGroups =
        groupsOf(m.size(), n.size());
    SmallVector<int64_t> lhsShape = flatShapeOf(lhsOrder, lhsGroups);
    SmallVector<int64_t> rhsShape = flatShapeOf(rhsOrder, rhsGroups);
    if (ShapeOrError shape = matmulShape(lhsShape, rhsShape); !shape.ok())
      return rewriter.notifyMatchFailure(op, shape.error);

    Location loc = op.getLoc();
    auto read = [&](OpOperand *operand, ArrayRef<unsigned> order,
                    ArrayRef<ReassociationIndices> groups) -> Value {
      Value value = readOperand(rewriter, loc, operand->get(),
                                op.getMatchingIndexingMap(operand), order,
                                shapeOf(order));
      if (groups.size() == order.size())
        return value;
      return tensor::CollapseShapeOp::create(rewriter, loc, value, groups);
    };
    Value lhsValue = read(lhs, lhsOrder, lhsGroups);
    Value rhsValue = read(rhs, rhsOrder, rhsGroups);
    Value product = kernel::MatmulOp::create(rewriter, loc, lhsValue, rhsValue);
    if (resultGroups.size() != resultOrder.size())
      product = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(
              shapeOf(resultOrder),
              cast<RankedTensorType>(product.getType()).getElementType()),
          product, resultGroups);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value result =
        writeResult(rewriter, loc, product, resultOrder, resultMap, resultType);
    rewriter.replaceOp(op, addInit(rewriter, loc, init->get(), result));
    return success();
  }

  /// A two-operand contraction over one or more reduction loops, on kernel
  /// operand types (`elementType` is theirs), whose payload is
  /// init + lhs * rhs.
  static LogicalResult matchMulAddContraction(linalg::LinalgOp op,
                                              PatternRewriter &rewriter,
                                              Type &elementType) {
    if (op.getNumDpsInputs() != 2 || op.getNumReductionLoops() == 0)
      return rewriter.notifyMatchFailure(op,
                                         "is not a two-operand contraction");
    if (failed(checkKernelOperands(op, rewriter, elementType)))
      return failure();
    if (!isMulAddBody(op))
      return rewriter.notifyMatchFailure(
          op, "payload is not init + lhs * rhs in the element type");
    return success();
  }

  static bool isMulAddBody(linalg::LinalgOp op) {
    Block *body = op.getBlock();
    if (body->getNumArguments() != 3 || body->getOperations().size() != 3)
      return false;
    auto add =
        body->getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
    if (!add)
      return false;
    BlockArgument acc = body->getArgument(2);
    Value product = add.getLhs() == acc   ? add.getRhs()
                    : add.getRhs() == acc ? add.getLhs()
                                          : Value();
    auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
    if (!mul)
      return false;
    Value a = body->getArgument(0), b = body->getArgument(1);
    return (mul.getLhs() == a && mul.getRhs() == b) ||
           (mul.getLhs() == b && mul.getRhs() == a);
  }
};

/// A reduction over one loop whose payload is `acc = combine(v, acc)`, with
/// `arith.addf` or `arith.maximumf` as the combiner and an init that is its
/// identity, to the kernel ops of `v` followed by `kernel.reduce_sum` or
/// `kernel.reduce_max`. The kernel reduction keeps the reduced dim with size
/// 1; the result is reshaped to the linalg result, which drops it or keeps it
/// at a constant index.
/// A contraction whose left operand and result have several row dims that
/// the right operand does not index, (b, m, k) x (k, n) -> (b, m, n): a
/// linear layer applied to a batch of sequences, one weight for all. The rows
/// are contiguous in the left operand and the result, so it is one matmul of
/// the flattened rows: collapse, kernel.matmul, expand. Loops that all three
/// operands index stay batch dims of the matmul; a right operand stored
/// [n, k] (F.linear's weight) is read through a transpose.
struct FlattenedRowsToMatmul
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  FlattenedRowsToMatmul(MLIRContext *context)
      : OpInterfaceRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    Type elementType;
    if (failed(ContractionToMatmul::matchMulAddContraction(op, rewriter,
                                                           elementType)))
      return failure();
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.size() < 2 || dims->n.size() != 1 ||
        dims->k.size() != 1 ||
        dims->batch.size() + dims->m.size() + 2 !=
            static_cast<size_t>(op.getNumLoops()))
      return rewriter.notifyMatchFailure(
          op, "loops are not batch dims, several M dims, one N and one K");

    OpOperand *lhs = op.getDpsInputOperand(0);
    OpOperand *rhs = op.getDpsInputOperand(1);
    OpOperand *init = op.getDpsInitOperand(0);
    auto dimsOf =
        [&](OpOperand *operand) -> std::optional<SmallVector<unsigned>> {
      AffineMap map = op.getMatchingIndexingMap(operand);
      if (!map.isProjectedPermutation())
        return std::nullopt;
      SmallVector<unsigned> positions;
      for (AffineExpr expr : map.getResults()) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (!dim)
          return std::nullopt;
        positions.push_back(dim.getPosition());
      }
      return positions;
    };
    std::optional<SmallVector<unsigned>> lhsDims = dimsOf(lhs),
                                         rhsDims = dimsOf(rhs),
                                         resultDims = dimsOf(init);
    if (!lhsDims || !rhsDims || !resultDims)
      return rewriter.notifyMatchFailure(op, "an operand reads a constant "
                                             "index");
    // The left operand's order of the batch and row dims: the batch dims,
    // then the rows, then k; the right operand the batch dims, then k and n.
    // The result holds the same dims and n, in that order or another (a
    // product written transposed, [b, n, m]), which a transpose then makes.
    unsigned k = dims->k.front(), n = dims->n.front();
    if (lhsDims->empty() || lhsDims->back() != k)
      return rewriter.notifyMatchFailure(op, "the left operand's last dim is "
                                             "not the contraction's");
    SmallVector<unsigned> outer(lhsDims->begin(), std::prev(lhsDims->end()));
    SmallVector<unsigned> batch = llvm::filter_to_vector(
        outer, [&](unsigned d) { return llvm::is_contained(dims->batch, d); });
    SmallVector<unsigned> rows = llvm::filter_to_vector(
        outer, [&](unsigned d) { return llvm::is_contained(dims->m, d); });
    SmallVector<unsigned> expectedRhs(batch), productOrder(outer);
    expectedRhs.append({k, n});
    productOrder.push_back(n);
    // The right operand may hold its dims in another order (torch's
    // F.linear reads a weight stored [n, k]): a transpose reads it.
    if (!std::is_permutation(rhsDims->begin(), rhsDims->end(),
                             expectedRhs.begin(), expectedRhs.end()) ||
        outer != llvm::to_vector(llvm::concat<unsigned>(batch, rows)) ||
        !std::is_permutation(resultDims->begin(), resultDims->end(),
                             productOrder.begin(), productOrder.end()))
      return rewriter.notifyMatchFailure(
          op, "rows are not contiguous after the batch dims in the left "
              "operand");

    // Collapse the rows of the left operand into one dim; the result
    // expands back the same way.
    SmallVector<ReassociationIndices> groups;
    for (unsigned i = 0; i < batch.size(); ++i)
      groups.push_back({static_cast<int64_t>(i)});
    ReassociationIndices rowGroup;
    for (unsigned i = 0; i < rows.size(); ++i)
      rowGroup.push_back(static_cast<int64_t>(batch.size() + i));
    groups.push_back(rowGroup);
    groups.push_back({static_cast<int64_t>(batch.size() + rows.size())});

    SmallVector<int64_t> loopShape = op.getStaticLoopRanges();
    SmallVector<int64_t> flatShape;
    for (unsigned d : batch)
      flatShape.push_back(loopShape[d]);
    int64_t numRows = 1;
    for (unsigned d : rows)
      numRows *= loopShape[d];
    flatShape.append({numRows, loopShape[k]});
    Location loc = op.getLoc();
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get(flatShape, elementType),
        lhs->get(), groups);
    SmallVector<int64_t> rhsShape = llvm::map_to_vector(
        expectedRhs, [&](unsigned d) { return loopShape[d]; });
    Value rhsValue =
        readOperand(rewriter, loc, rhs->get(), op.getMatchingIndexingMap(rhs),
                    expectedRhs, rhsShape);
    Value product = kernel::MatmulOp::create(rewriter, loc, flat, rhsValue);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<int64_t> productShape = llvm::map_to_vector(
        productOrder, [&](unsigned d) { return loopShape[d]; });
    Value result = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(productShape, elementType),
        product, groups);
    result = writeResult(rewriter, loc, result, productOrder,
                         op.getMatchingIndexingMap(init), resultType);
    rewriter.replaceOp(op, addInit(rewriter, loc, init->get(), result));
    return success();
  }
};

struct ReductionToKernel : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    // Several reduced loops (a full sum, a mean over [H, W]) are reduced
    // one after the other, each keeping its dim until the result drops them
    // (in f16 and bf16 each rounds its partial sums once).
    SmallVector<unsigned> reductionDims;
    op.getReductionDims(reductionDims);
    if (reductionDims.empty())
      return rewriter.notifyMatchFailure(op, "reduces no loop");
    Type elementType;
    if (failed(checkKernelOperands(op, rewriter, elementType,
                                   /*plansIndices=*/true)))
      return failure();

    Block *body = op.getBlock();
    BlockArgument accumulator = op.getRegionOutputArgs().front();
    Operation *combiner = body->getTerminator()->getOperand(0).getDefiningOp();
    if (!combiner || combiner->getBlock() != body ||
        !isa<arith::AddFOp, arith::MaximumFOp, arith::MaxNumFOp,
             arith::MinimumFOp, arith::MinNumFOp>(combiner))
      return rewriter.notifyMatchFailure(
          op, "combiner is not arith.addf or a maximum or minimum");
    bool isSum = isa<arith::AddFOp>(combiner);
    bool isMin = isa<arith::MinimumFOp, arith::MinNumFOp>(combiner);
    Value lhs = combiner->getOperand(0), rhs = combiner->getOperand(1);
    Value reduced = lhs == accumulator   ? rhs
                    : rhs == accumulator ? lhs
                                         : Value();
    if (!reduced || !accumulator.hasOneUse())
      return rewriter.notifyMatchFailure(
          op, "combiner does not fold one value into the accumulator");
    OpOperand *init = op.getDpsInitOperand(0);
    // A sum may start from any init, which is then added (a bias, another
    // reduction's partial sum); a maximum or minimum from a constant fill,
    // folded in by max_scalar or min_scalar (max(0, max_j x) is a relu of
    // the row maximum), or from a tensor, folded in by max or min (a running
    // maximum carried between calls).
    bool foldsInit = !isIdentityInit(combiner, init->get());
    std::optional<APFloat> initValue = getSplatValue(init->get());

    SmallVector<int64_t> loopShape = op.getStaticLoopRanges();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    AffineMap resultMap = op.getMatchingIndexingMap(init);
    if (failed(checkResultMap(op, rewriter, resultMap, resultType.getShape(),
                              loopShape, reductionDims)))
      return failure();

    PayloadPlanner planner(op, rewriter, elementType, loopShape);
    FailureOr<unsigned> root = planner.plan(reduced, accumulator);
    if (failed(root))
      return failure();
    if (!planner.coversAllLoops(*root))
      return rewriter.notifyMatchFailure(
          op, "reduced value does not vary along every loop");
    // An outer product reduced (a matmul with broadcast operands) would build
    // a tensor larger than any operand first; it stays for a matmul lowering.
    if (!planner.readsFullOperand())
      return rewriter.notifyMatchFailure(
          op, "no operand covers every loop: the reduced value is an outer "
              "product");

    Location loc = op.getLoc();
    Value value = planner.emit(loc, *root);
    // min_j x = -max_j(-x): negation is exact, so this is the minimum.
    auto negate = [&](Value v) {
      return kernel::MulScalarOp::create(rewriter, loc, v,
                                         rewriter.getF64FloatAttr(-1.0));
    };
    if (isMin)
      value = negate(value);
    // Innermost first: each pass reads rows that lie contiguous.
    for (unsigned reductionDim : llvm::reverse(reductionDims))
      value = isSum ? Value(kernel::ReduceSumOp::create(rewriter, loc, value,
                                                        reductionDim))
                    : Value(kernel::ReduceMaxOp::create(rewriter, loc, value,
                                                        reductionDim));
    if (isMin)
      value = negate(value);
    SmallVector<unsigned> loopOrder =
        llvm::to_vector(llvm::seq<unsigned>(0, loopShape.size()));
    Value result =
        writeResult(rewriter, loc, value, loopOrder, resultMap, resultType);
    if (foldsInit && isSum) {
      result = addInit(rewriter, loc, init->get(), result);
    } else if (foldsInit && !initValue) {
      result =
          isMin
              ? Value(kernel::MinOp::create(rewriter, loc, result, init->get()))
              : Value(
                    kernel::MaxOp::create(rewriter, loc, result, init->get()));
    } else if (foldsInit) {
      FloatAttr bound = rewriter.getF64FloatAttr(initValue->convertToDouble());
      result =
          isMin
              ? Value(kernel::MinScalarOp::create(rewriter, loc, result, bound))
              : Value(
                    kernel::MaxScalarOp::create(rewriter, loc, result, bound));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An all-parallel op (`linalg.generic`, the named elementwise ops,
/// `linalg.elementwise`, `linalg.map`, `linalg.transpose`) to one kernel op
/// per payload op, with operands broadcast by numpy rules after a transpose
/// and size-1 dims for the loops they do not index.
struct ElementwiseToKernel
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isAllParallelLoops())
      return rewriter.notifyMatchFailure(op, "has a reduction loop");
    Type elementType;
    if (failed(checkKernelOperands(op, rewriter, elementType,
                                   /*plansIndices=*/true)))
      return failure();

    SmallVector<int64_t> loopShape = op.getStaticLoopRanges();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    if (failed(checkResultMap(op, rewriter, resultMap, resultType.getShape(),
                              loopShape, {})))
      return failure();

    PayloadPlanner planner(op, rewriter, elementType, loopShape);
    FailureOr<unsigned> root =
        planner.plan(op.getBlock()->getTerminator()->getOperand(0));
    if (failed(root))
      return failure();
    // The kernel dialect has no broadcast op: a result that does not vary
    // along some loop (linalg.broadcast) stays.
    if (!planner.coversAllLoops(*root))
      return rewriter.notifyMatchFailure(
          op, "result broadcasts along a loop; the kernel dialect has no "
              "broadcast");

    Location loc = op.getLoc();
    Value value = planner.emit(loc, *root);
    SmallVector<unsigned> loopOrder =
        llvm::to_vector(llvm::seq<unsigned>(0, loopShape.size()));
    rewriter.replaceOp(op, writeResult(rewriter, loc, value, loopOrder,
                                       resultMap, resultType));
    return success();
  }
};

/// `linalg.softmax` (IREE's, and what torch-mlir's softmax becomes through
/// it) as upstream decomposes it: a max reduction, exp of the difference, a
/// sum reduction and a division, which the patterns above import.
struct DecomposeSoftmax : public OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern<linalg::SoftmaxOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getOutput().getType());
    if (!op.hasPureTensorSemantics() || !type || !type.hasStaticShape() ||
        !isa<Float16Type, BFloat16Type, Float32Type>(type.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "not a static softmax on f16, bf16 or f32 tensors");
    FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
    if (failed(results))
      return failure();
    rewriter.replaceOp(op, *results);
    return success();
  }
};

} // namespace

namespace {
/// The reason the last pattern that failed gave for it.
struct MatchFailureReason : RewriterBase::Listener {
  std::string reason;
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    Diagnostic diagnostic(loc, DiagnosticSeverity::Remark);
    reasonCallback(diagnostic);
    reason = diagnostic.str();
  }
};
} // namespace

bool mlsopt::onlyInitializesLinalgOps(Operation *op) {
  // (A two-result reduction left as linalg was reported as its fill.)
  return !op->use_empty() && llvm::all_of(op->getUses(), [](OpOperand &use) {
    auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return user && user.isDpsInit(&use);
  });
}

void mlsopt::walkLeftLinalgOps(Operation *root,
                               function_ref<WalkResult(Operation *)> callback) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isa_and_nonnull<linalg::LinalgDialect>(op->getDialect()))
      return WalkResult::advance();
    if (!onlyInitializesLinalgOps(op) && callback(op).wasInterrupted())
      return WalkResult::interrupt();
    return WalkResult::skip();
  });
}

std::optional<std::string> mlsopt::explainNotImported(Operation *op) {
  if (op->getNumResults() == 0 || !isa<linalg::LinalgOp, linalg::SoftmaxOp>(op))
    return "";
  // On a copy of the function: a pattern that matches rewrites it.
  Operation *function = op->getParentOp();
  if (!function)
    return "";
  IRMapping mapping;
  OwningOpRef<Operation *> copy(function->clone(mapping));
  Operation *copied = mapping.lookup(op);
  MatchFailureReason listener;
  PatternRewriter rewriter(op->getContext());
  rewriter.setListener(&listener);
  rewriter.setInsertionPoint(copied);
  LogicalResult imported = failure();
  auto target = dyn_cast<linalg::LinalgOp>(copied);
  if (!target)
    imported = DecomposeSoftmax(op->getContext())
                   .matchAndRewrite(cast<linalg::SoftmaxOp>(copied), rewriter);
  else if (linalg::isaContractionOpInterface(target)) {
    imported = ContractionToMatmul(op->getContext(), /*grouped=*/false)
                   .matchAndRewrite(target, rewriter);
    if (failed(imported) &&
        listener.reason == ContractionToMatmul::kSeveralLoops)
      imported = ContractionToMatmul(op->getContext(), /*grouped=*/true)
                     .matchAndRewrite(target, rewriter);
  } else if (target.isAllParallelLoops())
    imported =
        ElementwiseToKernel(op->getContext()).matchAndRewrite(target, rewriter);
  else
    imported =
        ReductionToKernel(op->getContext()).matchAndRewrite(target, rewriter);
  if (succeeded(imported))
    return std::nullopt;
  return listener.reason;
}

void mlsopt::populateLinalgToKernelPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractionToMatmul>(patterns.getContext(), /*grouped=*/false);
  patterns.add<ContractionToMatmul>(patterns.getContext(), /*grouped=*/true);
  patterns.add<FlattenedRowsToMatmul, ReductionToKernel, ElementwiseToKernel>(
      patterns.getContext());
  populateUnitReshapePatterns(patterns);
  patterns.add<DecomposeSoftmax>(patterns.getContext());
  // Chains of reshapes between a reduction and its readers (a batch of one:
  // [1, s, 1] collapsed to [1, s], to [s], expanded to [s, 1]) become one
  // reshape, which the readers then see through (ReshapedOperandToSource);
  // left as chains, they cut a batch-1 attention into four kernels.
  populateReshapeCompositionPatterns(patterns);
  populateMixedPrecisionPatterns(patterns);
  populateBroadcastOperandPatterns(patterns);
  populateFlattenRowsPatterns(patterns);
  populateConcatToKernelPatterns(patterns);
  populateStridedSlicePatterns(patterns);
  populateSplitResultsPatterns(patterns);
  populateIndexTablePatterns(patterns);
  populateActivationIdiomPatterns(patterns);
  populateConstantFillPatterns(patterns);
  populateFactoredContractionPatterns(patterns);
  populateCapturedElementPatterns(patterns);
  populateComputedMaskPatterns(patterns);
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertLinalgToKernelPass
    : public mlsopt::impl::ConvertLinalgToKernelBase<
          ConvertLinalgToKernelPass> {
  using Base::Base;

  void runOnOperation() override {
    // A weight whose blob is not its type's size would be read from bytes
    // that are not the weight.
    if (failed(checkResourceBlobs(getOperation(), "cannot be read")))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateLinalgToKernelPatterns(patterns);
    // arith and math ops on tensors (a front end's `x + y` on whole tensors)
    // are elementwise linalg.generics in disguise: as such they import like
    // any other, where left alone they reached neither the search nor the
    // CPU pipeline, which cannot bufferize them.
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    // Greedy and partial: what no pattern matches stays, and the tensor.empty
    // and linalg.fill ops that only fed converted ops die with them. Folding
    // removes the collapse/expand pairs between a kernel reduction and its
    // consumers; constants are not hoisted out of the payloads that stay, and
    // the control flow of the functions is left as the front end wrote it.
    GreedyRewriteConfig config;
    config.enableConstantCSE(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    // Two patterns that undo each other would rewrite forever within one
    // sweep, which no iteration limit stops: a bound on the rewrites, far
    // above the few each op takes, makes that an error, not a hang.
    int64_t numOps = 0;
    getOperation()->walk([&](Operation *) { ++numOps; });
    config.setMaxNumRewrites(64 * numOps + 4096);
    // A pattern set that never settles is a bug of the import; it is
    // reported, not left as an exit code alone.
    auto notConverged = [&] {
      getOperation()->emitError(
          "convert-linalg-to-kernel: the import's rewrites did not converge");
      signalPassFailure();
    };
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return notConverged();
    // The batch matmuls' rows are decided by the ops between two matmuls,
    // which must be kernel ops by then, as must the softmax that is
    // narrowed.
    RewritePatternSet afterImport(&getContext());
    populateBatchMatmulRowsPatterns(afterImport);
    if (narrowSoftmax)
      populateNarrowSoftmaxPatterns(afterImport);
    if (failed(applyPatternsGreedily(getOperation(), std::move(afterImport),
                                     config)))
      return notConverged();
    // Ops moved onto the pairs view read broadcasts and size-1 reshapes
    // that the unit-dim patterns then read past again (a rotation's
    // repeat_interleave'd tables, broadcast along the pairs).
    RewritePatternSet pairs(&getContext());
    populatePairsViewPatterns(pairs);
    populateUnitReshapePatterns(pairs);
    if (failed(applyPatternsGreedily(getOperation(), std::move(pairs), config)))
      return notConverged();
    if (!remarkUnimported)
      return;
    walkLeftLinalgOps(getOperation(), [](Operation *op) {
      std::optional<std::string> reason = explainNotImported(op);
      InFlightDiagnostic remark =
          op->emitRemark("convert-linalg-to-kernel: left as it is");
      if (reason && !reason->empty())
        remark << ": " << *reason;
      return WalkResult::advance();
    });
    // Tensor ops that compute data (a pad, an insert into a tensor that
    // is not rebuilt as a concat, a gather) stop the GPU pipeline and the
    // verifier as well; views, shapes and sizes are not reported.
    getOperation()->walk([](Operation *op) {
      if (isa_and_nonnull<tensor::TensorDialect>(op->getDialect()) &&
          isa<FunctionOpInterface>(op->getParentOp()) &&
          !isa<tensor::EmptyOp, tensor::DimOp, tensor::CastOp,
               tensor::ExpandShapeOp, tensor::CollapseShapeOp,
               tensor::ExtractSliceOp>(op))
        op->emitRemark("convert-linalg-to-kernel: left as it is: no kernel op "
                       "computes it");
    });
  }
};
} // namespace
