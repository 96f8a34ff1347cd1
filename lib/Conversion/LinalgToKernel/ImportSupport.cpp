//===- ImportSupport.cpp - Helpers shared by the linalg import ------------===//
//
// Constants, layout moves and checks that the patterns of
// --convert-linalg-to-kernel and its payload planner share (ImportSupport.h).
//
//===----------------------------------------------------------------------===//

#include "ImportSupport.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/Constants.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlsopt;

namespace mlsopt::linalg_import {

//===----------------------------------------------------------------------===//
// Values and constants
//===----------------------------------------------------------------------===//

double toDouble(APFloat value) {
  bool losesInfo = false;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

std::optional<APFloat> getConstantOfType(Value value, Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType || value.getType() != type)
    return std::nullopt;
  Operation *def = value.getDefiningOp();
  bool converted = isa_and_nonnull<arith::TruncFOp, arith::ExtFOp>(def) &&
                   !def->getAttr("roundingmode");
  FloatAttr attr;
  if (!matchPattern(converted ? def->getOperand(0) : value, m_Constant(&attr)))
    return std::nullopt;
  APFloat result = attr.getValue();
  bool losesInfo = false;
  if (converted)
    result.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
  return result;
}

std::optional<APFloat> getSplatValue(Value tensor) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  if (!type)
    return std::nullopt;
  if (auto fill = tensor.getDefiningOp<linalg::FillOp>()) {
    if (fill.getInputs().size() != 1)
      return std::nullopt;
    return getConstantOfType(fill.getInputs().front(), type.getElementType());
  }
  // A fill written as a generic (-linalg-generalize-named-ops).
  if (auto generic = tensor.getDefiningOp<linalg::GenericOp>()) {
    FloatAttr value;
    if (Value filled = getFilledValue(generic);
        filled && matchPattern(filled, m_Constant(&value)) &&
        value.getType() == type.getElementType())
      return value.getValue();
    return std::nullopt;
  }
  DenseElementsAttr dense;
  if (matchPattern(tensor, m_Constant(&dense)) && dense.isSplat() &&
      isa<FloatType>(dense.getElementType()))
    return dense.getSplatValue<APFloat>();
  return std::nullopt;
}

bool isIdentityInit(Operation *combiner, Value init) {
  std::optional<APFloat> value = getSplatValue(init);
  if (!value)
    return false;
  if (isa<arith::AddFOp>(combiner))
    return value->isZero();
  if (isa<arith::MaxNumFOp, arith::MinNumFOp>(combiner) && value->isNaN())
    return true;
  bool isMax = isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner);
  if (!isMax && !isa<arith::MinimumFOp, arith::MinNumFOp>(combiner))
    return false;
  return value->isNegative() == isMax &&
         (value->isInfinity() || value->bitwiseIsEqual(APFloat::getLargest(
                                     value->getSemantics(), isMax)));
}

Value addInit(OpBuilder &b, Location loc, Value init, Value product) {
  std::optional<APFloat> initValue = getSplatValue(init);
  if (!initValue)
    return kernel::AddOp::create(b, loc, init, product);
  if (initValue->isZero())
    return product;
  return kernel::AddScalarOp::create(
      b, loc, product, b.getF64FloatAttr(initValue->convertToDouble()));
}

//===----------------------------------------------------------------------===//
// Layout: permutations and size-1 dims
//===----------------------------------------------------------------------===//

/// The reassociation that groups each dim of `shape` that is not 1 with the
/// size-1 dims around it: collapsing `shape` by it drops exactly its size-1
/// dims. Size-1 dims before the first other dim join the first group; with no
/// other dim the reassociation is empty (rank 0).
static SmallVector<ReassociationIndices>
groupUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (auto [i, size] : llvm::enumerate(shape)) {
    int64_t dim = static_cast<int64_t>(i);
    if (size != 1) {
      groups.emplace_back(leading);
      groups.back().push_back(dim);
      leading.clear();
    } else if (groups.empty()) {
      leading.push_back(dim);
    } else {
      groups.back().push_back(dim);
    }
  }
  return groups;
}

ArrayRef<int64_t> dropLeadingUnitDims(ArrayRef<int64_t> shape) {
  return shape.drop_while([](int64_t size) { return size == 1; });
}

SmallVector<int64_t> dropUnitDims(ArrayRef<int64_t> shape) {
  return llvm::filter_to_vector(shape, [](int64_t size) { return size != 1; });
}

/// The reassociation that collapses `from` into `to` in one step, when
/// upstream's search finds one and it checks out.
static std::optional<SmallVector<ReassociationIndices>>
getDirectCollapse(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (to.empty())
    return std::nullopt;
  std::optional<SmallVector<ReassociationIndices>> groups =
      getReassociationIndicesForCollapse(from, to);
  if (!groups || groups->size() != to.size())
    return std::nullopt;
  int64_t next = 0;
  for (auto [group, size] : llvm::zip_equal(*groups, to)) {
    int64_t product = 1;
    for (int64_t dim : group) {
      if (dim != next++)
        return std::nullopt;
      product *= from[dim];
    }
    if (group.empty() || product != size)
      return std::nullopt;
  }
  if (next != static_cast<int64_t>(from.size()))
    return std::nullopt;
  return groups;
}

Value reshapeUnitDims(OpBuilder &b, Location loc, Value value,
                      ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  auto targetType = RankedTensorType::get(shape, type.getElementType());
  if (type.getRank() > static_cast<int64_t>(shape.size()))
    if (auto groups = getDirectCollapse(type.getShape(), shape))
      return tensor::CollapseShapeOp::create(b, loc, targetType, value,
                                             *groups);
  if (type.getRank() < static_cast<int64_t>(shape.size()))
    if (auto groups = getDirectCollapse(shape, type.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, targetType, value, *groups);
  SmallVector<int64_t> squeezed = dropUnitDims(type.getShape());
  assert(squeezed == dropUnitDims(shape) && "shapes differ beyond unit dims");
  if (type.getRank() != static_cast<int64_t>(squeezed.size()))
    value = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get(squeezed, type.getElementType()), value,
        groupUnitDims(type.getShape()));
  if (shape.size() != squeezed.size())
    value = tensor::ExpandShapeOp::create(b, loc, targetType, value,
                                          groupUnitDims(shape));
  return value;
}

/// True if `permutation` keeps the dims of `shape` that are not 1 in their
/// order: it only moves size-1 dims, which a reshape does without a kernel.
static bool movesOnlyUnitDims(ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> moved = llvm::filter_to_vector(
      permutation, [&](int64_t dim) { return shape[dim] != 1; });
  return llvm::is_sorted(moved);
}

/// The position of each loop dim in `order`.
static DenseMap<unsigned, int64_t> positionsIn(ArrayRef<unsigned> order) {
  DenseMap<unsigned, int64_t> positions;
  for (auto [i, dim] : llvm::enumerate(order))
    positions[dim] = static_cast<int64_t>(i);
  return positions;
}

Value readOperand(OpBuilder &b, Location loc, Value operand, AffineMap map,
                  ArrayRef<unsigned> order, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(operand.getType());
  DenseMap<unsigned, int64_t> positions = positionsIn(order);
  SmallVector<int64_t> readPositions;
  SmallVector<int64_t> readShape;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      readPositions.push_back(positions.lookup(dim.getPosition()));
      readShape.push_back(type.getDimSize(i));
    }
  }
  // Result dim i of the transpose is the read dim with the i-th smallest
  // position in `order`.
  SmallVector<int64_t> permutation =
      llvm::to_vector(llvm::seq<int64_t>(0, readPositions.size()));
  llvm::stable_sort(permutation, [&](int64_t lhs, int64_t rhs) {
    return readPositions[lhs] < readPositions[rhs];
  });
  if (movesOnlyUnitDims(readShape, permutation))
    return reshapeUnitDims(b, loc, operand, shape);
  Value value = reshapeUnitDims(b, loc, operand, readShape);
  value = kernel::TransposeOp::create(b, loc, value, permutation);
  return reshapeUnitDims(b, loc, value, shape);
}

Value writeResult(OpBuilder &b, Location loc, Value value,
                  ArrayRef<unsigned> order, AffineMap map,
                  RankedTensorType type) {
  DenseMap<unsigned, int64_t> positions = positionsIn(order);
  SmallVector<int64_t> permutation;
  llvm::SmallBitVector taken(order.size());
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      int64_t position = positions.lookup(dim.getPosition());
      permutation.push_back(position);
      taken.set(position);
    }
  }
  // The size-1 dims the result drops go last, where the reshape removes them.
  for (int64_t position : llvm::seq<int64_t>(0, order.size()))
    if (!taken.test(position))
      permutation.push_back(position);
  auto valueType = cast<RankedTensorType>(value.getType());
  if (!movesOnlyUnitDims(valueType.getShape(), permutation))
    value = kernel::TransposeOp::create(b, loc, value, permutation);
  return reshapeUnitDims(b, loc, value, type.getShape());
}

//===----------------------------------------------------------------------===//
// Checks shared by the patterns
//===----------------------------------------------------------------------===//

bool isElementwiseKernelOp(Operation *op) {
  return op && isa_and_nonnull<kernel::KernelDialect>(op->getDialect()) &&
         op->hasTrait<OpTrait::ElementwiseByIndex>() &&
         op->getNumResults() == 1 && op->getNumOperands() > 0 &&
         op->getNumRegions() == 0;
}

bool isProjectedPermutationWithZeros(AffineMap map) {
  if (map.getNumSymbols() != 0)
    return false;
  llvm::SmallBitVector seen(map.getNumDims());
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (seen.test(dim.getPosition()))
        return false;
      seen.set(dim.getPosition());
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0)
      return false;
  }
  return true;
}

LogicalResult checkKernelOperands(linalg::LinalgOp op,
                                  PatternRewriter &rewriter, Type &elementType,
                                  bool plansIndices) {
  if (!op.hasPureTensorSemantics())
    return rewriter.notifyMatchFailure(op, "operates on buffers");
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 1)
    return rewriter.notifyMatchFailure(op, "has more than one result");
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return rewriter.notifyMatchFailure(op, "has no payload block");
  if (op.hasIndexSemantics() && !plansIndices)
    return rewriter.notifyMatchFailure(
        op, "payload reads loop indices (linalg.index)");
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType)
    return rewriter.notifyMatchFailure(op, "result is not a ranked tensor");
  elementType = resultType.getElementType();
  if (!isSupportedElementType(elementType))
    return rewriter.notifyMatchFailure(
        op, "element type is not one of f16, bf16, f32");
  SmallVector<Type> tensorTypes;
  for (OpOperand &operand : op->getOpOperands()) {
    Type type = operand.get().getType();
    if (!isa<ShapedType>(type) && type == elementType &&
        op.isDpsInput(&operand))
      continue;
    auto tensor = dyn_cast<RankedTensorType>(type);
    // A boolean mask is read as `kernel.where`, and integers as
    // `kernel.int_to_float`, if the payload's plan can.
    bool isMask = tensor &&
                  isMaskOrIntegerElementType(tensor.getElementType()) &&
                  op.isDpsInput(&operand);
    if (!tensor || (tensor.getElementType() != elementType && !isMask))
      return rewriter.notifyMatchFailure(
          op, "operands do not all have the result's element type");
    if (!tensor.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "has a dynamic shape");
    tensorTypes.push_back(isMask ? tensor.clone(elementType) : tensor);
  }
  // Whatever else kernel ops require of a tensor (no zero-sized dim, ...),
  // by the rule their type inference applies. Every tensor the replacement
  // creates has the operands' element type and dims, or size-1 dims.
  if (failed(verifyTensorOperands(std::nullopt, tensorTypes)))
    return rewriter.notifyMatchFailure(
        op, "an operand is not a tensor kernel ops accept");
  return success();
}

LogicalResult checkResultMap(linalg::LinalgOp op, PatternRewriter &rewriter,
                             AffineMap map, ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> loopShape,
                             ArrayRef<unsigned> reductionDims) {
  if (!isProjectedPermutationWithZeros(map))
    return rewriter.notifyMatchFailure(
        op, "result map is not a projected permutation");
  unsigned numIndexed = 0;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim) {
      if (shape[i] != 1)
        return rewriter.notifyMatchFailure(
            op, "result reads a dim of size > 1 at a constant index");
      continue;
    }
    if (llvm::is_contained(reductionDims, dim.getPosition()))
      return rewriter.notifyMatchFailure(op, "result indexes a reduced dim");
    ++numIndexed;
  }
  unsigned numParallel = loopShape.size() - reductionDims.size();
  if (numIndexed != numParallel)
    return rewriter.notifyMatchFailure(
        op, "result does not index every parallel loop");
  return success();
}

} // namespace mlsopt::linalg_import

linalg::GenericOp
linalg_import::rebuildWithInputs(PatternRewriter &rewriter,
                                 linalg::GenericOp op, ValueRange inputs,
                                 ArrayRef<AffineMap> inputMaps) {
  SmallVector<AffineMap> maps(inputMaps);
  for (OpOperand &init : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&init));
  auto generic = linalg::GenericOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), inputs, op.getOutputs(),
      maps, op.getIteratorTypesArray());
  // Other attributes (a front end's names) stay with the op.
  for (NamedAttribute attr : op->getDiscardableAttrs())
    generic->setAttr(attr.getName(), attr.getValue());
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                              generic.getRegion().end());
  return generic;
}
