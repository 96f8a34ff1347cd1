//===- ScaledContractions.cpp - A constant factor out of a contraction ----===//
//
// A contraction whose payload scales each product by a constant,
// `acc + a * b * c` in any association (an einsum with a scale folded in,
// alpha * A B written in one generic), is the plain contraction of c * a
// (or c * b, whichever operand is smaller) with the other operand: the
// same terms, associated (a c) b instead of (a b) c. The patterns of
// LinalgToKernel.cpp then import a mul_scalar and a matmul. Scaling the sum
// instead would have changed more than a rounding: an f16 sum of products
// that only the scale brings back into range (attention scores with 1/sqrt(d)
// folded in) would overflow.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// The factors of a product of mulf ops in `body` (at most three leaves).
void collectFactors(Value v, Block *body, SmallVectorImpl<Value> &factors) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != body || factors.size() > 3) {
    factors.push_back(v);
    return;
  }
  collectFactors(mul.getLhs(), body, factors);
  collectFactors(mul.getRhs(), body, factors);
}

struct ScaledContraction : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
      return rewriter.notifyMatchFailure(op, "not a two-operand reduction");
    Block *body = op.getBody();
    Type elementType = body->getArgument(2).getType();
    if (!isa<Float16Type, BFloat16Type, Float32Type>(elementType) ||
        body->getArgument(0).getType() != elementType ||
        body->getArgument(1).getType() != elementType)
      return rewriter.notifyMatchFailure(op, "operands of other types");
    // acc + (a, b and c multiplied in any order), and nothing else.
    auto add =
        body->getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
    if (!add || add->getBlock() != body)
      return rewriter.notifyMatchFailure(op, "payload ends in no addf");
    Value acc = body->getArgument(2);
    Value product = add.getLhs() == acc   ? add.getRhs()
                    : add.getRhs() == acc ? add.getLhs()
                                          : Value();
    if (!product)
      return rewriter.notifyMatchFailure(op, "payload adds no accumulator");
    SmallVector<Value> factors;
    collectFactors(product, body, factors);
    FloatAttr scale;
    unsigned constants = 0;
    bool readsA = false, readsB = false;
    for (Value f : factors) {
      if (f == body->getArgument(0))
        readsA = true;
      else if (f == body->getArgument(1))
        readsB = true;
      else if (matchPattern(f, m_Constant(&scale)))
        ++constants;
      else
        return rewriter.notifyMatchFailure(op, "a factor is no operand or "
                                               "constant");
    }
    // Two mulf, the addf and the yield, besides the constant.
    auto computes = [](Operation &bodyOp) {
      return !bodyOp.hasTrait<OpTrait::ConstantLike>();
    };
    if (factors.size() != 3 || !readsA || !readsB || constants != 1 ||
        scale.getType() != elementType ||
        llvm::count_if(body->getOperations(), computes) != 4)
      return rewriter.notifyMatchFailure(op, "payload is not acc + a * b * c");

    // An infinite scale or a NaN is not moved: a * inf is no longer the
    // NaN of (a * b) * inf where b is 0.
    if (!scale.getValue().isFinite())
      return rewriter.notifyMatchFailure(op, "the scale is not finite");
    // Only where the plain contraction imports as a matmul: else the scale
    // alone would become a kernel op amid linalg.
    if (failed(inferMatmulDims(op)))
      return rewriter.notifyMatchFailure(op, "not a matmul-shaped contraction");

    // The smaller operand, scaled elementwise.
    Location loc = op.getLoc();
    SmallVector<Value> inputs(op.getDpsInputs());
    auto lhsType = dyn_cast<RankedTensorType>(inputs[0].getType());
    auto rhsType = dyn_cast<RankedTensorType>(inputs[1].getType());
    if (!lhsType || !rhsType || !lhsType.hasStaticShape() ||
        !rhsType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "an operand of dynamic shape");
    unsigned scaledInput =
        rhsType.getNumElements() < lhsType.getNumElements() ? 1 : 0;
    RankedTensorType type = scaledInput ? rhsType : lhsType;
    Value c = arith::ConstantOp::create(rewriter, loc, scale);
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), elementType);
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> parallel(type.getRank(),
                                              utils::IteratorType::parallel);
    inputs[scaledInput] =
        linalg::GenericOp::create(
            rewriter, loc, type, ValueRange{inputs[scaledInput]},
            ValueRange{empty}, ArrayRef<AffineMap>{id, id}, parallel,
            [&](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  b, l, Value(arith::MulFOp::create(b, l, args[0], c)));
            })
            .getResult(0);
    // The contraction of the scaled operand: acc + a * b, on the same init.
    auto plain = linalg::GenericOp::create(
        rewriter, loc, op->getResultTypes(), inputs, op.getDpsInits(),
        op.getIndexingMapsArray(), op.getIteratorTypesArray(),
        [](OpBuilder &b, Location l, ValueRange args) {
          Value p = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(
              b, l, Value(arith::AddFOp::create(b, l, args[2], p)));
        });
    rewriter.replaceOp(op, plain.getResults());
    return success();
  }
};

} // namespace

void mlsopt::populateScaledContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<ScaledContraction>(patterns.getContext());
}
