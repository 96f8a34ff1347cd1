//===- ScaledContractions.cpp - A constant factor out of a contraction ----===//
//
// A contraction whose payload scales each product by a constant,
// `acc + a * b * c` in any association (an einsum with a scale folded in,
// alpha * A B written in one generic), sums c * a * b: c times the plain
// contraction. It becomes the plain contraction on a zero-filled init, then
// an elementwise generic that scales it and adds the old init (unless that
// is a zero fill), which the patterns of LinalgToKernel.cpp import: a matmul
// and a mul_scalar. Over the reals both sum the same terms; in floating
// point the scale moves from each term to the sum, a rounding's difference.
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

bool isZeroFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.value(), m_AnyZeroFloat());
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

    Location loc = op.getLoc();
    Value init = op.getDpsInitOperand(0)->get();
    auto type = cast<RankedTensorType>(init.getType());
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    // The plain contraction, on zeros.
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(elementType, 0.0));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), elementType);
    Value zeros =
        linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    auto plain = linalg::GenericOp::create(
        rewriter, loc, type, op.getDpsInputs(), ValueRange{zeros},
        op.getIndexingMapsArray(), op.getIteratorTypesArray(),
        [](OpBuilder &b, Location l, ValueRange args) {
          Value p = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(
              b, l, Value(arith::AddFOp::create(b, l, args[2], p)));
        });
    // Scaled, plus the old init unless it is zeros.
    Value c = arith::ConstantOp::create(rewriter, loc, scale);
    bool addInit = !isZeroFill(init);
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<Value> ins = {plain.getResult(0)};
    if (addInit)
      ins.push_back(init);
    SmallVector<AffineMap> maps(ins.size() + 1, id);
    SmallVector<utils::IteratorType> parallel(type.getRank(),
                                              utils::IteratorType::parallel);
    auto scaled = linalg::GenericOp::create(
        rewriter, loc, type, ins, ValueRange{empty}, maps, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value s = arith::MulFOp::create(b, l, args[0], c);
          if (addInit)
            s = arith::AddFOp::create(b, l, args[1], s);
          linalg::YieldOp::create(b, l, s);
        });
    rewriter.replaceOp(op, scaled.getResults());
    return success();
  }
};

} // namespace

void mlsopt::populateScaledContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<ScaledContraction>(patterns.getContext());
}
