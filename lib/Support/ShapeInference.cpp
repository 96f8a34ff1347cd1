//===- ShapeInference.cpp - Shape rules shared by all levels --------------===//

#include "mlsopt/Support/ShapeInference.h"
#include "mlsopt/Support/TileShapes.h"

#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace mlsopt {

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  raw_string_ostream os(s);
  interleave(shape, os, "x");
  return s;
}

LogicalResult verifyConversion(mlir::Operation *op, mlir::Type input,
                               mlir::Type result) {
  auto in = dyn_cast<mlir::RankedTensorType>(input);
  auto out = dyn_cast<mlir::RankedTensorType>(result);
  if (in && out && in.getShape() != out.getShape())
    return op->emitOpError("converts a tensor of shape ")
           << formatShape(in.getShape()) << " to one of shape "
           << formatShape(out.getShape()) << "; a conversion keeps the shape";
  mlir::Type element = mlir::getElementTypeOrSelf(input);
  if (element == mlir::getElementTypeOrSelf(result))
    return op->emitOpError("converts ")
           << element << " to itself; a conversion changes the element type";
  return success();
}

LogicalResult verifyWhere(mlir::Operation *op, mlir::Type mask,
                          mlir::Type result, APFloat onTrue, APFloat onFalse) {
  auto in = dyn_cast<mlir::RankedTensorType>(mask);
  auto out = dyn_cast<mlir::RankedTensorType>(result);
  if (in && out && in.getShape() != out.getShape())
    return op->emitOpError("maps a mask of shape ")
           << formatShape(in.getShape()) << " to a result of shape "
           << formatShape(out.getShape()) << "; the shapes must be equal";
  auto element = dyn_cast<mlir::FloatType>(mlir::getElementTypeOrSelf(result));
  if (!element)
    return success();
  for (auto [name, value] : {std::pair<StringRef, APFloat>("on_true", onTrue),
                             {"on_false", onFalse}}) {
    if (!value.isFinite())
      continue;
    bool lost = false;
    APFloat narrowed = value;
    narrowed.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                     &lost);
    if (!narrowed.isFinite())
      return op->emitOpError() << name << " " << value.convertToDouble()
                               << " is out of the range of " << element;
  }
  return success();
}

static ShapeOrError fail(const Twine &message) {
  ShapeOrError r;
  r.error = message.str();
  return r;
}

ShapeOrError sameShape(ArrayRef<int64_t> shape) {
  ShapeOrError r;
  r.shape.assign(shape.begin(), shape.end());
  return r;
}

ShapeOrError normalizedDimShape(ArrayRef<int64_t> shape,
                                std::optional<uint64_t> dim) {
  if (!dim) {
    if (shape.empty())
      return fail("the operand must have rank 1 or more: the op works over "
                  "the last dim");
    return sameShape(shape);
  }
  // An I64Attr holds the dim; a negative one arrives here as a huge value.
  auto d = static_cast<int64_t>(*dim);
  if (d < 0 || d >= static_cast<int64_t>(shape.size()))
    return fail("normalized dim " + Twine(d) + " is out of range for rank " +
                Twine(shape.size()));
  return sameShape(shape);
}

ShapeOrError broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  ShapeOrError r;
  size_t rank = std::max(lhs.size(), rhs.size());
  r.shape.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Walk from the innermost dim: missing leading dims act as size 1.
    int64_t a = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t b = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (a != b && a != 1 && b != 1)
      return fail("shapes " + formatShape(lhs) + " and " + formatShape(rhs) +
                  " do not broadcast: dim " + Twine(rank - 1 - i) +
                  " has sizes " + Twine(a) + " and " + Twine(b) +
                  "; sizes must be equal or one of them 1");
    r.shape[rank - 1 - i] = a == 1 ? b : a;
  }
  return r;
}

ShapeOrError matmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  if (lhs.size() < 2 || rhs.size() < 2)
    return fail("matmul operands must have rank 2 or more, got shapes " +
                formatShape(lhs) + " and " + formatShape(rhs));
  if (lhs.size() != rhs.size())
    return fail("matmul operands must have the same rank, got shapes " +
                formatShape(lhs) + " and " + formatShape(rhs));
  size_t rank = lhs.size();
  for (size_t i = 0; i + 2 < rank; ++i)
    if (lhs[i] != rhs[i])
      return fail("matmul batch dim " + Twine(i) + " differs: " +
                  Twine(lhs[i]) + " vs " + Twine(rhs[i]) +
                  "; leading dims must be equal");
  if (lhs[rank - 1] != rhs[rank - 2])
    return fail("matmul contraction dims differ: " + formatShape(lhs) + " x " +
                formatShape(rhs) + " needs the last dim of the left operand (" +
                Twine(lhs[rank - 1]) +
                ") to equal the second-to-last dim of the right operand (" +
                Twine(rhs[rank - 2]) + ")");
  ShapeOrError r;
  r.shape.assign(lhs.begin(), lhs.end());
  r.shape[rank - 1] = rhs[rank - 1];
  return r;
}

ShapeOrError reduceShape(ArrayRef<int64_t> shape, int64_t dim) {
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return fail("reduction dim " + Twine(dim) + " is out of range for rank " +
                Twine(shape.size()));
  ShapeOrError r;
  r.shape.assign(shape.begin(), shape.end());
  r.shape[dim] = 1;
  return r;
}

ShapeOrError concatShape(ArrayRef<ArrayRef<int64_t>> shapes, int64_t dim) {
  if (shapes.empty())
    return fail("concat needs at least one operand");
  ArrayRef<int64_t> first = shapes.front();
  if (dim < 0 || dim >= static_cast<int64_t>(first.size()))
    return fail("concat dim " + Twine(dim) + " is out of range for rank " +
                Twine(first.size()));
  ShapeOrError r;
  r.shape.assign(first.begin(), first.end());
  for (ArrayRef<int64_t> s : shapes.drop_front()) {
    if (s.size() != first.size())
      return fail("concat operands must have the same rank, got shapes " +
                  formatShape(first) + " and " + formatShape(s));
    for (size_t i = 0; i < s.size(); ++i)
      if (static_cast<int64_t>(i) != dim && s[i] != first[i])
        return fail("concat operands must agree on every dim but " +
                    Twine(dim) + ", got shapes " + formatShape(first) +
                    " and " + formatShape(s));
    r.shape[dim] += s[dim];
  }
  return r;
}

std::string checkTriangleDims(ArrayRef<int64_t> dims, int64_t rank) {
  if (dims.size() != 2)
    return ("takes two dims [rows, cols], got " + Twine(dims.size())).str();
  for (int64_t d : dims)
    if (d < 0 || d >= rank)
      return ("dim " + Twine(d) + " is not a dim of an operand of rank " +
              Twine(rank))
          .str();
  if (dims[0] == dims[1])
    return ("rows and cols are both dim " + Twine(dims[0])).str();
  return "";
}

ShapeOrError transposeShape(ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> permutation) {
  if (permutation.size() != shape.size())
    return fail("permutation has " + Twine(permutation.size()) +
                " entries but the operand has rank " + Twine(shape.size()));
  SmallVector<bool> seen(shape.size(), false);
  ShapeOrError r;
  for (int64_t p : permutation) {
    if (p < 0 || p >= static_cast<int64_t>(shape.size()) || seen[p])
      return fail("[" +
                  [&] {
                    std::string s;
                    raw_string_ostream os(s);
                    interleaveComma(permutation, os);
                    return s;
                  }() +
                  "] is not a permutation of the dims 0.." +
                  Twine(shape.size() - 1));
    seen[p] = true;
    r.shape.push_back(shape[p]);
  }
  return r;
}

bool isSupportedElementType(mlir::Type type) {
  return type.isF16() || type.isBF16() || type.isF32();
}

bool isMaskOrIntegerElementType(mlir::Type type) {
  auto integer = dyn_cast<mlir::IntegerType>(type);
  return integer && integer.isSignless() &&
         llvm::is_contained({1u, 8u, 16u, 32u, 64u}, integer.getWidth());
}

LogicalResult verifyTensorOperands(std::optional<mlir::Location> loc,
                                   mlir::TypeRange types) {
  mlir::Type elementType;
  for (mlir::Type type : types) {
    auto tensor = dyn_cast<mlir::RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape()) {
      if (loc)
        mlir::emitError(*loc) << "expected a statically shaped tensor, got "
                              << type;
      return failure();
    }
    if (llvm::is_contained(tensor.getShape(), 0)) {
      if (loc)
        mlir::emitError(*loc) << "tensor " << type
                              << " has a zero-sized dim; mlsopt computes on "
                                 "non-empty tensors";
      return failure();
    }
    if (!isSupportedElementType(tensor.getElementType())) {
      if (loc)
        mlir::emitError(*loc) << "element type " << tensor.getElementType()
                              << " is not supported; use f16, bf16 or f32";
      return failure();
    }
    // Byte counts of such tensors would overflow the cost model's and the
    // launch plan's 64-bit arithmetic long before any device holds one.
    if (tileBytes(tensor.getShape(), tensor.getElementTypeBitWidth()) >
        kMaxTensorBytes) {
      if (loc)
        mlir::emitError(*loc)
            << "tensor " << type << " holds more than 2^48 bytes (256 TiB), "
            << "more than any device memory; mlsopt refuses it";
      return failure();
    }
    if (elementType && elementType != tensor.getElementType()) {
      if (loc)
        mlir::emitError(*loc)
            << "operands must have one element type, got " << elementType
            << " and " << tensor.getElementType();
      return failure();
    }
    elementType = tensor.getElementType();
  }
  return success();
}

LogicalResult inferTensorType(std::optional<mlir::Location> loc,
                              const ShapeOrError &shape,
                              mlir::Type elementType,
                              SmallVectorImpl<mlir::Type> &inferred) {
  if (!shape.ok()) {
    if (loc)
      mlir::emitError(*loc) << shape.error;
    return failure();
  }
  inferred.push_back(mlir::RankedTensorType::get(shape.shape, elementType));
  return success();
}

LogicalResult inferFromOperands(std::optional<mlir::Location> loc,
                                mlir::TypeRange operands, ShapeRule rule,
                                SmallVectorImpl<mlir::Type> &inferred) {
  if (failed(verifyTensorOperands(loc, operands)))
    return failure();
  SmallVector<ArrayRef<int64_t>> shapes;
  for (mlir::Type type : operands)
    shapes.push_back(cast<mlir::RankedTensorType>(type).getShape());
  mlir::Type elementType =
      operands.empty()
          ? mlir::Type()
          : cast<mlir::RankedTensorType>(operands.front()).getElementType();
  return inferTensorType(loc, rule(shapes), elementType, inferred);
}

} // namespace mlsopt
