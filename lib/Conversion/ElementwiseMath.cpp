//===- ElementwiseMath.cpp - Elementwise ops as arith and math ------------===//

#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlsopt;

/// Runs `compute` on f32 copies of `args` when their type is narrower and
/// rounds the result back.
static Value inF32(OpBuilder &b, Location loc, ValueRange args,
                   function_ref<Value(ValueRange)> compute) {
  Type type = args.front().getType();
  if (type.isF32() || type.isF64())
    return compute(args);
  Type f32 = b.getF32Type();
  SmallVector<Value> wide = llvm::map_to_vector(args, [&](Value v) -> Value {
    return arith::ExtFOp::create(b, loc, f32, v);
  });
  return arith::TruncFOp::create(b, loc, type, compute(wide));
}

static Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

Value mlsopt::emitUnary(OpBuilder &b, Location loc, thread::UnaryKind kind,
                        Value x) {
  using thread::UnaryKind;
  return inF32(b, loc, x, [&](ValueRange args) -> Value {
    Value v = args[0];
    Type t = v.getType();
    auto one = [&] { return constant(b, loc, t, 1.0); };
    // sigmoid(v) = 1 / (1 + exp(-v))
    auto sigmoid = [&] {
      Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, v));
      return arith::DivFOp::create(b, loc, one(),
                                   arith::AddFOp::create(b, loc, one(), e));
    };
    switch (kind) {
    case UnaryKind::exp:
      return math::ExpOp::create(b, loc, v);
    case UnaryKind::log:
      return math::LogOp::create(b, loc, v);
    case UnaryKind::sqrt:
      return math::SqrtOp::create(b, loc, v);
    case UnaryKind::rsqrt:
      return math::RsqrtOp::create(b, loc, v);
    case UnaryKind::square:
      return arith::MulFOp::create(b, loc, v, v);
    case UnaryKind::silu:
      return arith::MulFOp::create(b, loc, v, sigmoid());
    case UnaryKind::sigmoid:
      return sigmoid();
    case UnaryKind::gelu: {
      // The exact (erf) form, in torch's order: (v / 2) (1 + erf(v /
      // sqrt(2))). Halving last, v (1 + erf) overflowed past half the
      // largest float, where the result is v.
      Value scaled =
          arith::MulFOp::create(b, loc, v, constant(b, loc, t, M_SQRT1_2));
      Value cdf = arith::AddFOp::create(b, loc, one(),
                                        math::ErfOp::create(b, loc, scaled));
      return arith::MulFOp::create(
          b, loc, arith::MulFOp::create(b, loc, v, constant(b, loc, t, 0.5)),
          cdf);
    }
    case UnaryKind::relu:
      return arith::MaximumFOp::create(b, loc, v, constant(b, loc, t, 0.0));
    case UnaryKind::tanh:
      return math::TanhOp::create(b, loc, v);
    case UnaryKind::erf:
      return math::ErfOp::create(b, loc, v);
    case UnaryKind::neg:
      return arith::NegFOp::create(b, loc, v);
    case UnaryKind::sin:
      return math::SinOp::create(b, loc, v);
    case UnaryKind::cos:
      return math::CosOp::create(b, loc, v);
    case UnaryKind::log1p:
      return math::Log1pOp::create(b, loc, v);
    case UnaryKind::floor:
      return math::FloorOp::create(b, loc, v);
    case UnaryKind::ceil:
      return math::CeilOp::create(b, loc, v);
    case UnaryKind::round:
      return math::RoundEvenOp::create(b, loc, v);
    case UnaryKind::softplus: {
      // torch's threshold: past it, log1p(exp(v)) is v within rounding, and
      // exp(v) would overflow a few units later (f16's at 11 when the
      // program computes in f16; here in f32, at 88).
      Value linear = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v,
                                           constant(b, loc, t, 20.0));
      Value smooth =
          math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, v));
      return arith::SelectOp::create(b, loc, linear, v, smooth);
    }
    case UnaryKind::gelu_tanh: {
      // 0.5 v (1 + tanh(sqrt(2 / pi) (v + 0.044715 v^3))), torch's form.
      Value cube =
          arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, v, v), v);
      Value inner = arith::AddFOp::create(
          b, loc, v,
          arith::MulFOp::create(b, loc, cube, constant(b, loc, t, 0.044715)));
      Value scaled = arith::MulFOp::create(
          b, loc, inner, constant(b, loc, t, M_2_SQRTPI * M_SQRT1_2));
      Value cdf = arith::AddFOp::create(b, loc, one(),
                                        math::TanhOp::create(b, loc, scaled));
      return arith::MulFOp::create(
          b, loc, arith::MulFOp::create(b, loc, v, constant(b, loc, t, 0.5)),
          cdf);
    }
    }
    llvm_unreachable("unknown unary kind");
  });
}

Value mlsopt::emitBinary(OpBuilder &b, Location loc, thread::BinaryKind kind,
                         Value lhs, Value rhs) {
  using thread::BinaryKind;
  return inF32(b, loc, {lhs, rhs}, [&](ValueRange args) -> Value {
    switch (kind) {
    case BinaryKind::add:
      return arith::AddFOp::create(b, loc, args[0], args[1]);
    case BinaryKind::sub:
      return arith::SubFOp::create(b, loc, args[0], args[1]);
    case BinaryKind::mul:
      return arith::MulFOp::create(b, loc, args[0], args[1]);
    case BinaryKind::div:
      return arith::DivFOp::create(b, loc, args[0], args[1]);
    // torch.maximum and torch.minimum propagate NaN, as these do.
    case BinaryKind::max:
      return arith::MaximumFOp::create(b, loc, args[0], args[1]);
    case BinaryKind::min:
      return arith::MinimumFOp::create(b, loc, args[0], args[1]);
    }
    llvm_unreachable("unknown binary kind");
  });
}

Value mlsopt::emitScalarOp(OpBuilder &b, Location loc, StringRef op, Value x,
                           double scalar) {
  return inF32(b, loc, x, [&](ValueRange args) -> Value {
    Value c = constant(b, loc, args[0].getType(), scalar);
    if (op == "add_scalar")
      return arith::AddFOp::create(b, loc, args[0], c);
    if (op == "max_scalar")
      return arith::MaximumFOp::create(b, loc, args[0], c);
    if (op == "min_scalar")
      return arith::MinimumFOp::create(b, loc, args[0], c);
    return arith::MulFOp::create(b, loc, args[0], c);
  });
}

FailureOr<Value> mlsopt::emitElementwise(OpBuilder &b, Operation *op,
                                         ValueRange args) {
  Location loc = op->getLoc();
  // Kernel, block and thread elementwise ops share their mnemonics (one list
  // in TensorOps.td), so the op name selects the computation at every level.
  StringRef ns = op->getName().getDialectNamespace();
  if (ns != "kernel" && ns != "block" && ns != "thread")
    return failure();
  StringRef name = op->getName().stripDialect();
  // kernel.convert, block.convert and thread.convert: the result's element
  // type names the conversion.
  if (name == "convert" && args.size() == 1 && op->getNumResults() == 1)
    return buildFloatConversion(
        b, loc, args[0], getElementTypeOrSelf(op->getResult(0).getType()));
  // int_to_float at every level: sitofp, or uitofp where `unsigned`.
  if (name == "int_to_float" && args.size() == 1 && op->getNumResults() == 1) {
    Type type = getElementTypeOrSelf(op->getResult(0).getType());
    if (auto vector = dyn_cast<VectorType>(args[0].getType()))
      type = vector.clone(type);
    if (op->hasAttr("is_unsigned"))
      return arith::UIToFPOp::create(b, loc, type, args[0]).getResult();
    return arith::SIToFPOp::create(b, loc, type, args[0]).getResult();
  }
  // kernel.where, block.where and thread.where: a select of two constants
  // in the result's element type, on a mask element or a vector of them.
  if (name == "where" && args.size() == 1 && op->getNumResults() == 1) {
    auto onTrue = op->getAttrOfType<FloatAttr>("on_true");
    auto onFalse = op->getAttrOfType<FloatAttr>("on_false");
    if (!onTrue || !onFalse)
      return failure();
    Type type = getElementTypeOrSelf(op->getResult(0).getType());
    if (auto vector = dyn_cast<VectorType>(args[0].getType()))
      type = vector.clone(type);
    auto constant = [&](FloatAttr value) -> Value {
      Type element = getElementTypeOrSelf(type);
      TypedAttr attr = b.getFloatAttr(element, value.getValueAsDouble());
      if (auto vector = dyn_cast<VectorType>(type))
        attr = DenseElementsAttr::get(vector, attr);
      return arith::ConstantOp::create(b, loc, type, attr);
    };
    return arith::SelectOp::create(b, loc, args[0], constant(onTrue),
                                   constant(onFalse))
        .getResult();
  }
  if (auto unary = dyn_cast<thread::UnaryOp>(op))
    return emitUnary(b, loc, unary.getKind(), args[0]);
  if (auto binary = dyn_cast<thread::BinaryOp>(op))
    return emitBinary(b, loc, binary.getKind(), args[0], args[1]);
  if (isScalarOpName(name)) {
    auto scalar = op->getAttrOfType<FloatAttr>("scalar");
    if (!scalar)
      return failure();
    return emitScalarOp(b, loc, name, args[0], scalar.getValueAsDouble());
  }
  if (std::optional<thread::UnaryKind> kind = thread::symbolizeUnaryKind(name);
      kind && args.size() == 1)
    return emitUnary(b, loc, *kind, args[0]);
  if (std::optional<thread::BinaryKind> kind = thread::symbolizeBinaryKind(name);
      kind && args.size() == 2)
    return emitBinary(b, loc, *kind, args[0], args[1]);
  return failure();
}

AffineMap mlsopt::getBroadcastMap(MLIRContext *context,
                                  ArrayRef<int64_t> operand,
                                  ArrayRef<int64_t> result) {
  unsigned rank = result.size();
  unsigned offset = rank - operand.size();
  SmallVector<AffineExpr> exprs;
  for (unsigned j = 0; j < operand.size(); ++j) {
    unsigned d = offset + j;
    exprs.push_back(operand[j] == 1 && result[d] != 1
                        ? getAffineConstantExpr(0, context)
                        : getAffineDimExpr(d, context));
  }
  return AffineMap::get(rank, 0, exprs, context);
}

Value mlsopt::buildElementwiseGeneric(
    OpBuilder &b, Location loc, RankedTensorType resultType,
    ValueRange operands,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value operand : operands)
    maps.push_back(getBroadcastMap(
        context, cast<RankedTensorType>(operand.getType()).getShape(),
        resultType.getShape()));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(),
                                                   context));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, operands, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value mlsopt::emitRescaleUpdate(OpBuilder &b, Location loc, Value running,
                                Value value, Value oldMax, Value newMax,
                                Value valueMax) {
  Type type = running.getType();
  Value minusInf =
      arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, -INFINITY));
  Value zero =
      arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, 0.0));
  auto term = [&](Value x, Value max) -> Value {
    Value scaled = arith::MulFOp::create(
        b, loc, x,
        math::ExpOp::create(b, loc,
                            arith::SubFOp::create(b, loc, max, newMax)));
    Value empty =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, max, minusInf);
    return arith::SelectOp::create(b, loc, empty, zero, scaled);
  };
  // In this order: the operands of one call are built in no fixed order.
  Value old = term(running, oldMax);
  Value added = term(value, valueMax);
  return arith::AddFOp::create(b, loc, old, added);
}

Value mlsopt::emitTriangleCondition(OpBuilder &b, Location loc, Value row,
                                    Value col, int64_t diagonal) {
  Value distance = arith::SubIOp::create(b, loc, col, row);
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::sge, distance,
      arith::ConstantIndexOp::create(b, loc, diagonal));
}

Value mlsopt::buildTriangleFill(OpBuilder &b, Location loc, Value input,
                                ArrayRef<int64_t> dims, int64_t diagonal,
                                double value, Value rowOffset,
                                Value colOffset) {
  auto type = cast<RankedTensorType>(input.getType());
  return buildElementwiseGeneric(
      b, loc, type, input, [&](OpBuilder &nb, Location l, ValueRange args) {
        auto at = [&](int64_t dim, Value offset) -> Value {
          Value index = linalg::IndexOp::create(nb, l, dim);
          return offset ? arith::AddIOp::create(nb, l, index, offset) : index;
        };
        Value filled = emitTriangleCondition(nb, l, at(dims[0], rowOffset),
                                             at(dims[1], colOffset), diagonal);
        Value fill = arith::ConstantOp::create(
            nb, l, type.getElementType(),
            nb.getFloatAttr(type.getElementType(), value));
        return arith::SelectOp::create(nb, l, filled, fill, args[0]);
      });
}

Type mlsopt::getAccumulatorElementType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Value mlsopt::buildScalarExtension(OpBuilder &b, Location loc, Value value,
                                   Type type) {
  if (value.getType() == type)
    return value;
  return arith::ExtFOp::create(b, loc, type, value);
}

Value mlsopt::buildFloatConversion(OpBuilder &b, Location loc, Value x,
                                   Type to) {
  if (x.getType() == to)
    return x;
  auto widthOf = [](Type type) {
    return getElementTypeOrSelf(type).getIntOrFloatBitWidth();
  };
  if (widthOf(x.getType()) == widthOf(to)) {
    Type f32 = b.getF32Type();
    if (auto vector = dyn_cast<VectorType>(to))
      f32 = vector.clone(f32);
    x = arith::ExtFOp::create(b, loc, f32, x);
  }
  if (widthOf(to) > widthOf(x.getType()))
    return arith::ExtFOp::create(b, loc, to, x);
  return arith::TruncFOp::create(b, loc, to, x);
}

Value mlsopt::buildFilledTensor(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> shape, Type elementType,
                                double value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, elementType);
  Value fill = arith::ConstantOp::create(b, loc, elementType,
                                         b.getFloatAttr(elementType, value));
  return linalg::FillOp::create(b, loc, ValueRange{fill}, ValueRange{empty})
      .getResult(0);
}

Value mlsopt::buildElementCast(OpBuilder &b, Location loc, Value tensor,
                               Type elementType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Type from = type.getElementType();
  if (from == elementType)
    return tensor;
  return buildElementwiseGeneric(
      b, loc, type.clone(elementType), tensor,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return buildFloatConversion(nb, l, args[0], elementType);
      });
}
