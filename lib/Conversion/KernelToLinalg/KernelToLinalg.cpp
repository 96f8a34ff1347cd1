//===- KernelToLinalg.cpp - The kernel dialect to linalg on tensors -------===//
//
// Lowers every pre-defined kernel op, and every block compute op outside a
// block graph, to linalg, tensor, arith and math ops on tensors. The kernel
// and block ops come from the same TableGen classes (TensorOps.td) and have
// the same accessors, so each lowering is one pattern template instantiated
// for both dialects. Custom kernels and everything inside them stay as they
// are: --convert-custom-kernel-to-loops owns them.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/KernelToLinalg/KernelToLinalg.h"
#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>
#include <tuple>

namespace mlsopt {
#define GEN_PASS_DEF_CONVERTKERNELTOLINALG
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

//===----------------------------------------------------------------------===//
// The ops this conversion lowers
//===----------------------------------------------------------------------===//

// The compute ops of dialect namespace NS (kernel or block), in the order of
// the lists in TensorOps.td. The elementwise patterns and the pass's legality
// both expand these lists, so they cannot drift apart.
#define MLSOPT_UNARY_OPS(NS)                                                   \
  NS::ExpOp, NS::LogOp, NS::SqrtOp, NS::RsqrtOp, NS::SquareOp, NS::SiluOp,     \
      NS::SigmoidOp, NS::GeluOp, NS::ReluOp, NS::TanhOp, NS::ErfOp, NS::NegOp, \
      NS::GeluTanhOp, NS::SinOp, NS::CosOp, NS::Log1pOp, NS::SoftplusOp,       \
      NS::FloorOp, NS::CeilOp, NS::RoundOp
#define MLSOPT_BINARY_OPS(NS)                                                  \
  NS::AddOp, NS::SubOp, NS::MulOp, NS::DivOp, NS::MaxOp, NS::MinOp
#define MLSOPT_SCALAR_OPS(NS)                                                  \
  NS::MulScalarOp, NS::AddScalarOp, NS::MaxScalarOp, NS::MinScalarOp
#define MLSOPT_ELEMENTWISE_OPS(NS)                                             \
  MLSOPT_UNARY_OPS(NS), MLSOPT_BINARY_OPS(NS), MLSOPT_SCALAR_OPS(NS),          \
      NS::WhereOp, NS::IntToFloatOp
#define MLSOPT_COMPUTE_OPS(NS)                                                 \
  MLSOPT_ELEMENTWISE_OPS(NS), NS::MatmulOp, NS::ReduceSumOp, NS::ReduceMaxOp,  \
      NS::RmsNormOp, NS::ConcatOp, NS::TransposeOp, NS::TriangleFillOp

// The thread kind enums come from the same TableGen lists as the elementwise
// ops: an op added there and not here would silently stay unlowered.
static_assert(std::tuple_size_v<std::tuple<MLSOPT_UNARY_OPS(kernel)>> ==
                  thread::getMaxEnumValForUnaryKind() + 1,
              "a unary op was added to TensorOps.td; add it to "
              "MLSOPT_UNARY_OPS");
static_assert(std::tuple_size_v<std::tuple<MLSOPT_BINARY_OPS(kernel)>> ==
                  thread::getMaxEnumValForBinaryKind() + 1,
              "a binary op was added to TensorOps.td; add it to "
              "MLSOPT_BINARY_OPS");

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static SmallVector<utils::IteratorType> getParallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

/// An uninitialized tensor of `type`: the init of an op that writes all of it.
static Value createEmptyTensor(OpBuilder &b, Location loc,
                               RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

/// Folds one element, already widened to the accumulator type, into the
/// accumulator.
using CombineFn =
    function_ref<Value(OpBuilder &, Location, Value element, Value acc)>;

/// Reduces `input` over `dim` into a tensor without that dim, whose elements
/// have type `accType` and start at `init`. This is a linalg.generic rather
/// than a linalg.reduce because its body widens (and for rms_norm squares)
/// each element before combining it: linalg.reduce's body must be a pure
/// combiner of two partial results.
static Value createReduction(OpBuilder &b, Location loc, Value input,
                             int64_t dim, Type accType, double init,
                             CombineFn combine) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> reducedShape(inputType.getShape());
  reducedShape.erase(reducedShape.begin() + dim);
  Value acc = buildFilledTensor(b, loc, reducedShape, accType, init);

  AffineMap inputMap = b.getMultiDimIdentityMap(rank);
  AffineMap accMap = inputMap.dropResult(dim);
  SmallVector<utils::IteratorType> iterators = getParallelIterators(rank);
  iterators[dim] = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, acc.getType(), input, acc, {inputMap, accMap}, iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               Value element =
                   buildScalarExtension(nested, nestedLoc, args[0], accType);
               linalg::YieldOp::create(
                   nested, nestedLoc,
                   combine(nested, nestedLoc, element, args[1]));
             })
      .getResult(0);
}

/// The reassociation that puts a size-1 dim back at `dim` of a result of rank
/// `rank`: the unit dim joins the group of the next dim, or of the previous
/// one when it is the last. A rank-1 result expands from rank 0, which has no
/// groups.
static SmallVector<ReassociationIndices> getUnitDimReassociation(int64_t rank,
                                                                 int64_t dim) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim)
      groups.push_back({i});
  if (groups.empty())
    return groups;
  if (dim < rank - 1)
    groups[dim].insert(groups[dim].begin(), dim);
  else
    groups.back().push_back(dim);
  return groups;
}

/// The batched matmul of rank > 3, which linalg has no named op for: loops
/// (batch..., m, n, k) with k the reduction.
static Value createBatchedMatmulGeneric(OpBuilder &b, Location loc, Value lhs,
                                        Value rhs, Value acc) {
  int64_t rank = cast<RankedTensorType>(acc.getType()).getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> batch;
  for (int64_t i = 0; i < rank - 2; ++i)
    batch.push_back(getAffineDimExpr(i, ctx));
  AffineExpr m = getAffineDimExpr(rank - 2, ctx);
  AffineExpr n = getAffineDimExpr(rank - 1, ctx);
  AffineExpr k = getAffineDimExpr(rank, ctx);
  auto map = [&](AffineExpr row, AffineExpr col) {
    SmallVector<AffineExpr> exprs(batch);
    exprs.append({row, col});
    return AffineMap::get(rank + 1, /*symbolCount=*/0, exprs, ctx);
  };
  SmallVector<utils::IteratorType> iterators = getParallelIterators(rank);
  iterators.push_back(utils::IteratorType::reduction);
  Type accType = cast<RankedTensorType>(acc.getType()).getElementType();
  return linalg::GenericOp::create(
             b, loc, acc.getType(), ValueRange{lhs, rhs}, acc,
             {map(m, k), map(k, n), map(m, n)}, iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               Value x = buildScalarExtension(nested, nestedLoc, args[0], accType);
               Value y = buildScalarExtension(nested, nestedLoc, args[1], accType);
               Value product = arith::MulFOp::create(nested, nestedLoc, x, y);
               Value sum =
                   arith::AddFOp::create(nested, nestedLoc, args[2], product);
               linalg::YieldOp::create(nested, nestedLoc, sum);
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// The base of every lowering here: ops inside a custom kernel belong to its
/// block graph, whose schedule --convert-custom-kernel-to-loops lowers, so
/// they are never matched, whatever conversion target a user of
/// populateKernelToLinalgPatterns sets up.
template <typename OpTy> struct ComputeOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (op->template getParentOfType<kernel::CustomOp>())
      return rewriter.notifyMatchFailure(
          op, "inside a custom kernel; --convert-custom-kernel-to-loops "
              "lowers it");
    return lower(op, adaptor, rewriter);
  }

  virtual LogicalResult lower(OpTy op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const = 0;
};

/// An elementwise op becomes one all-parallel linalg.generic whose body is
/// the scalar computation of ElementwiseMath.h; broadcast operands are read
/// through projected maps.
template <typename OpTy>
struct ElementwiseOpLowering : ComputeOpLowering<OpTy> {
  using ComputeOpLowering<OpTy>::ComputeOpLowering;

  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    ValueRange inputs = adaptor.getOperands();

    SmallVector<AffineMap> maps;
    SmallVector<Type> argTypes;
    for (Value input : inputs) {
      auto inputType = cast<RankedTensorType>(input.getType());
      maps.push_back(getBroadcastMap(op.getContext(), inputType.getShape(),
                                          resultType.getShape()));
      argTypes.push_back(inputType.getElementType());
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(resultType.getRank()));
    argTypes.push_back(resultType.getElementType());

    Value init = createEmptyTensor(rewriter, loc, resultType);
    auto generic =
        linalg::GenericOp::create(rewriter, loc, resultType, inputs, init, maps,
                                  getParallelIterators(resultType.getRank()));

    // The body is built here rather than in a body-builder callback so that
    // a failure of emitElementwise is reported, not left as a body without
    // a terminator.
    OpBuilder::InsertionGuard guard(rewriter);
    SmallVector<Location> argLocs(argTypes.size(), loc);
    Block *body =
        rewriter.createBlock(&generic.getRegion(), {}, argTypes, argLocs);
    FailureOr<Value> element =
        emitElementwise(rewriter, op, body->getArguments().drop_back());
    if (failed(element)) {
      rewriter.eraseOp(generic);
      rewriter.eraseOp(init.getDefiningOp());
      return rewriter.notifyMatchFailure(op, "not an elementwise op");
    }
    linalg::YieldOp::create(rewriter, loc, *element);
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// A matmul becomes linalg.matmul (rank 2), linalg.batch_matmul (rank 3) or a
/// linalg.generic (higher ranks) into a zero-filled accumulator. f16 and bf16
/// operands multiply into an f32 accumulator (the named ops widen their
/// inputs to the accumulator type) and the result is rounded once.
template <typename OpTy> struct MatmulOpLowering : ComputeOpLowering<OpTy> {
  using ComputeOpLowering<OpTy>::ComputeOpLowering;

  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();
    if (rank < 2)
      return rewriter.notifyMatchFailure(op, "matmul needs rank 2 or more");

    Type elementType = resultType.getElementType();
    Type accType = getAccumulatorElementType(elementType);
    Value acc =
        buildFilledTensor(rewriter, loc, resultType.getShape(), accType, 0.0);
    SmallVector<Value, 2> inputs = {adaptor.getLhs(), adaptor.getRhs()};
    Value product;
    if (rank == 2)
      product =
          linalg::MatmulOp::create(rewriter, loc, inputs, acc).getResult(0);
    else if (rank == 3)
      product = linalg::BatchMatmulOp::create(rewriter, loc, inputs, acc)
                    .getResult(0);
    else
      product = createBatchedMatmulGeneric(rewriter, loc, adaptor.getLhs(),
                                           adaptor.getRhs(), acc);
    rewriter.replaceOp(op, buildElementCast(rewriter, loc, product, elementType));
    return success();
  }
};

enum class ReductionKind { sum, max };

/// reduce_sum and reduce_max reduce into a tensor without the reduced dim
/// (f16 and bf16 in f32), round once and put the dim back with size 1 by a
/// tensor.expand_shape.
template <typename OpTy> struct ReductionOpLowering : ComputeOpLowering<OpTy> {
  ReductionOpLowering(MLIRContext *ctx, ReductionKind kind)
      : ComputeOpLowering<OpTy>(ctx), kind(kind) {}

  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();
    uint64_t dim = op.getDim();
    if (dim >= static_cast<uint64_t>(rank))
      return rewriter.notifyMatchFailure(op, "reduction dim out of range");

    Type elementType = resultType.getElementType();
    Type accType = getAccumulatorElementType(elementType);
    bool isSum = kind == ReductionKind::sum;
    Value reduced = createReduction(
        rewriter, loc, adaptor.getInput(), dim, accType,
        isSum ? 0.0 : -std::numeric_limits<double>::infinity(),
        [&](OpBuilder &b, Location l, Value element, Value acc) -> Value {
          if (isSum)
            return arith::AddFOp::create(b, l, acc, element);
          return arith::MaximumFOp::create(b, l, acc, element);
        });
    Value rounded = buildElementCast(rewriter, loc, reduced, elementType);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, resultType, rounded, getUnitDimReassociation(rank, dim));
    return success();
  }

  ReductionKind kind;
};

/// rms_norm is a reduction of squares over its dim into f32, then one
/// elementwise linalg.generic: y = x / sqrt(sum / n + epsilon), computed in
/// f32 and rounded once.
template <typename OpTy> struct RmsNormOpLowering : ComputeOpLowering<OpTy> {
  using ComputeOpLowering<OpTy>::ComputeOpLowering;

  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();
    if (rank == 0)
      return rewriter.notifyMatchFailure(op, "rms_norm needs a dim");
    int64_t dim = op.getNormalizedDim();

    Value input = adaptor.getInput();
    Type elementType = resultType.getElementType();
    Type f32 = rewriter.getF32Type();
    Value sumOfSquares = createReduction(
        rewriter, loc, input, dim, f32, 0.0,
        [](OpBuilder &b, Location l, Value element, Value acc) -> Value {
          Value square = emitUnary(b, l, thread::UnaryKind::square, element);
          return arith::AddFOp::create(b, l, acc, square);
        });

    int64_t n = resultType.getDimSize(dim);
    double epsilon = op.getEpsilon().convertToDouble();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    Value init = createEmptyTensor(rewriter, loc, resultType);
    auto normalize = [&](OpBuilder &b, Location l, ValueRange args) {
      Value x = buildScalarExtension(b, l, args[0], f32);
      // The mean divides by n rather than multiplying by 1/n, which is not
      // exact unless n is a power of two.
      Value count = arith::ConstantOp::create(
          b, l, f32, b.getFloatAttr(f32, static_cast<double>(n)));
      Value mean = emitBinary(b, l, thread::BinaryKind::div, args[1], count);
      Value shifted = emitScalarOp(b, l, "add_scalar", mean, epsilon);
      Value rms = emitUnary(b, l, thread::UnaryKind::sqrt, shifted);
      Value y = emitBinary(b, l, thread::BinaryKind::div, x, rms);
      if (y.getType() != elementType)
        y = arith::TruncFOp::create(b, l, elementType, y);
      linalg::YieldOp::create(b, l, y);
    };
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, resultType, ValueRange{input, sumOfSquares}, init,
        ArrayRef<AffineMap>{identity, identity.dropResult(dim), identity},
        getParallelIterators(rank), normalize);
    return success();
  }
};

/// concat is tensor.concat, which one-shot bufferization turns into copies
/// into subviews of one buffer.
template <typename OpTy> struct ConcatOpLowering : ComputeOpLowering<OpTy> {
  using ComputeOpLowering<OpTy>::ComputeOpLowering;

  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, op.getType(), op.getDim(),
                                                  adaptor.getInputs());
    return success();
  }
};

/// kernel.transpose and block.transpose are linalg.transpose; all use
/// "result dim i is operand dim permutation[i]".
template <typename OpTy> struct TransposeOpLowering : ComputeOpLowering<OpTy> {
  using ComputeOpLowering<OpTy>::ComputeOpLowering;

  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    // The identity (a rank-0 tensor's, whose linalg.transpose upstream
    // cannot build the indexing maps of) is its operand.
    if (isIdentityPermutation(op.getPermutation())) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Value init = createEmptyTensor(rewriter, op.getLoc(), op.getType());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getInput(), init, op.getPermutation());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

/// kernel.triangle_fill reads its indices in a linalg.generic; a block
/// graph's, which needs its tile's place, is lowered with the block graph
/// (--convert-custom-kernel-to-loops).
struct TriangleFillOpLowering : ComputeOpLowering<kernel::TriangleFillOp> {
  using ComputeOpLowering::ComputeOpLowering;

  LogicalResult lower(kernel::TriangleFillOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildTriangleFill(rewriter, op.getLoc(),
                                             adaptor.getInput(), op.getDims(),
                                             op.getDiagonal(),
                                             op.getValue().convertToDouble()));
    return success();
  }
};

/// A convert is an all-parallel linalg.generic whose body extends
/// (arith.extf) or rounds to nearest even (arith.truncf), as a front end
/// writes it.
template <typename OpTy> struct ConvertOpLowering : ComputeOpLowering<OpTy> {
  using ComputeOpLowering<OpTy>::ComputeOpLowering;

  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildElementCast(rewriter, op.getLoc(),
                                            adaptor.getInput(),
                                            op.getType().getElementType()));
    return success();
  }
};

} // namespace

/// Adds `Pattern<OpTy>` for every op in `OpTys`, constructed from the
/// context and `args`.
template <template <typename> class Pattern, typename... OpTys,
          typename... Args>
static void addPatternPerOp(RewritePatternSet &patterns, Args... args) {
  patterns.add<Pattern<OpTys>...>(patterns.getContext(), args...);
}

void mlsopt::populateKernelToLinalgPatterns(RewritePatternSet &patterns) {
  addPatternPerOp<ElementwiseOpLowering, MLSOPT_ELEMENTWISE_OPS(kernel),
                  MLSOPT_ELEMENTWISE_OPS(block)>(patterns);
  addPatternPerOp<MatmulOpLowering, kernel::MatmulOp, block::MatmulOp>(
      patterns);
  addPatternPerOp<RmsNormOpLowering, kernel::RmsNormOp, block::RmsNormOp>(
      patterns);
  addPatternPerOp<ConcatOpLowering, kernel::ConcatOp, block::ConcatOp>(
      patterns);
  addPatternPerOp<ReductionOpLowering, kernel::ReduceSumOp,
                  block::ReduceSumOp>(patterns, ReductionKind::sum);
  addPatternPerOp<ReductionOpLowering, kernel::ReduceMaxOp,
                  block::ReduceMaxOp>(patterns, ReductionKind::max);
  addPatternPerOp<TransposeOpLowering, kernel::TransposeOp, block::TransposeOp>(
      patterns);
  addPatternPerOp<ConvertOpLowering, kernel::ConvertOp, block::ConvertOp>(
      patterns);
  patterns.add<TriangleFillOpLowering>(patterns.getContext());
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertKernelToLinalgPass
    : mlsopt::impl::ConvertKernelToLinalgBase<ConvertKernelToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // A partial conversion: only the compute ops outside custom kernels must
    // go; everything else, custom kernels and their block graphs included,
    // is left untouched (a greedy driver would also fold and erase dead ops
    // inside them). What the patterns create must be legal.
    ConversionTarget target(*ctx);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect>();
    target.addDynamicallyLegalOp<MLSOPT_COMPUTE_OPS(kernel),
                                 MLSOPT_COMPUTE_OPS(block)>([](Operation *op) {
      return op->getParentOfType<kernel::CustomOp>() != nullptr;
    });
    RewritePatternSet patterns(ctx);
    populateKernelToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
