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
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "TriangleMasks.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/Constants.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace mlsopt {
#define GEN_PASS_DEF_CONVERTLINALGTOKERNEL
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

//===----------------------------------------------------------------------===//
// Values and constants
//===----------------------------------------------------------------------===//

/// `value` as a double; exact for the element types mlsopt computes in.
static double toDouble(APFloat value) {
  bool losesInfo = false;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

/// The float constant `value` is, when it is one of type `type`: also an
/// arith.truncf or arith.extf of one (a bf16 -inf written as the f32 one
/// truncated), converted as those ops round, to nearest even.
static std::optional<APFloat> getConstantOfType(Value value, Type type) {
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

/// The value of every element of the tensor `tensor`, when it is a
/// `linalg.fill` of a constant or a splat constant: the shape front ends give
/// accumulator inits and constant operands.
static std::optional<APFloat> getSplatValue(Value tensor) {
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

/// True if `init` holds the identity of the reduction `combiner` in every
/// element, so the reduction computes the same without it: +-0 for a sum, -inf
/// or the lowest finite value for a max, and also NaN for arith.maxnumf,
/// which ignores it (upstream's softmax decomposition starts its max there).
static bool isIdentityInit(Operation *combiner, Value init) {
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

/// `shape` without its leading size-1 dims, which numpy broadcasting
/// supplies: `[32]` broadcasts against `[8, 32]` as `[1, 32]` does.
static ArrayRef<int64_t> dropLeadingUnitDims(ArrayRef<int64_t> shape) {
  return shape.drop_while([](int64_t size) { return size == 1; });
}

static SmallVector<int64_t> dropUnitDims(ArrayRef<int64_t> shape) {
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

/// Reshapes `value` to `shape`, which has the same dims but for size-1 ones:
/// one collapse or expand where one does, else a collapse of all its size-1
/// dims and an expand to the size-1 dims of `shape`.
static Value reshapeUnitDims(OpBuilder &b, Location loc, Value value,
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

/// Reads `operand`, which the op indexes through the projected permutation
/// `map`, as a tensor of `shape` whose dims are the loop dims `order`: dims
/// read at the constant index 0 (size 1) are dropped, the others permuted into
/// `order`, and loop dims of `order` the operand does not index become size-1
/// dims, along which numpy broadcasting stretches it. Every loop dim `map`
/// reads must be in `order`.
static Value readOperand(OpBuilder &b, Location loc, Value operand,
                         AffineMap map, ArrayRef<unsigned> order,
                         ArrayRef<int64_t> shape) {
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

/// Writes `value`, whose dims are the loop dims `order`, as the result of
/// type `type` that the op indexes through `map`. Loop dims the result does
/// not index, and result dims at the constant index 0, must have size 1.
static Value writeResult(OpBuilder &b, Location loc, Value value,
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

/// True if every result of `map` is a distinct loop dim or the constant 0:
/// `AffineMap::isProjectedPermutation(true)` but for maps with more results
/// than dims, such as `(d0) -> (0, d0)` reading a `[1, n]` operand.
static bool isProjectedPermutationWithZeros(AffineMap map) {
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

/// Checks that `op` computes on values the kernel dialect has: one tensor
/// result, static tensors (or scalar inputs) of one f16, bf16 or f32 element
/// type, and no `linalg.index` in its payload unless `plansIndices` (a
/// payload planned by PayloadPlanner, which reads indices only in the
/// condition of a triangle mask). Sets `elementType`.
static LogicalResult checkKernelOperands(linalg::LinalgOp op,
                                         PatternRewriter &rewriter,
                                         Type &elementType,
                                         bool plansIndices = false) {
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

/// Checks that the op's result, of `shape` and indexed through `map`, holds
/// one element per iteration of every loop but `reductionDim`: `map` indexes
/// each other loop dim once, and the reduced dim at most as a size-1 dim
/// (constant 0), as front ends that keep the reduced dim write it.
static LogicalResult checkResultMap(linalg::LinalgOp op,
                                    PatternRewriter &rewriter, AffineMap map,
                                    ArrayRef<int64_t> shape,
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

//===----------------------------------------------------------------------===//
// Elementwise payloads as kernel ops
//===----------------------------------------------------------------------===//

namespace {

/// Creates the kernel op of one step from the values of its arguments.
using StepBuilder = Value (*)(OpBuilder &, Location, ValueRange, double);

template <typename OpTy>
Value buildUnary(OpBuilder &b, Location loc, ValueRange args, double) {
  return OpTy::create(b, loc, args[0]);
}

template <typename OpTy>
Value buildBinary(OpBuilder &b, Location loc, ValueRange args, double) {
  return OpTy::create(b, loc, args[0], args[1]);
}

template <typename OpTy>
Value buildScalar(OpBuilder &b, Location loc, ValueRange args, double scalar) {
  return OpTy::create(b, loc, args[0], b.getF64FloatAttr(scalar));
}

/// c / x (torch's reciprocal, `c / x`, `x.pow(-1)`): kernel.div of a splat
/// constant of x's rank, size 1 along every dim (broadcast), by x. No
/// reciprocal op: Mirage has none, and as an operand the constant is one
/// more input the kernels load (a dense constant, which the GPU pipeline
/// copies to the device).
Value buildConstantDividedBy(OpBuilder &b, Location loc, ValueRange args,
                             double scalar) {
  auto type = cast<RankedTensorType>(args[0].getType());
  auto constantType = RankedTensorType::get(
      SmallVector<int64_t>(type.getRank(), 1), type.getElementType());
  Value constant = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(constantType,
                             b.getFloatAttr(type.getElementType(), scalar)));
  return kernel::DivOp::create(b, loc, constant, args[0]);
}

/// `product` plus the init a contraction accumulated it into: nothing for a
/// zero fill, `kernel.add_scalar` for another constant fill (torch's addmm
/// with beta * a constant; a `linalg.fill` left beside the kernel ops has no
/// GPU lowering), `kernel.add` of the init tensor otherwise.
static Value addInit(OpBuilder &b, Location loc, Value init, Value product) {
  std::optional<APFloat> initValue = getSplatValue(init);
  if (!initValue)
    return kernel::AddOp::create(b, loc, init, product);
  if (initValue->isZero())
    return product;
  return kernel::AddScalarOp::create(
      b, loc, product, b.getF64FloatAttr(initValue->convertToDouble()));
}

/// One tensor of the replacement: an operand of the linalg op read in loop
/// order (`build` null), or a kernel op applied to earlier steps. A step the
/// kernel dialect cannot express says why in `invalid`; that fails the plan
/// only if the result depends on it, so the parts of an idiom that became
/// one kernel op (the exp of a sigmoid) need not be expressible themselves.
struct Step {
  StepBuilder build = nullptr;
  unsigned operand = 0;
  SmallVector<unsigned, 2> args;
  double scalar = 0.0;
  SmallVector<int64_t> shape;
  std::string invalid;
  /// The mask of a triangle_fill of args[0] by `scalar`, in the dims of
  /// the step (`build` is null).
  std::optional<TriangleCondition> triangle;
  /// `where(mask, on_true, on_false)` of the boolean operand `operand`
  /// (`build` is null): the mask is mapped before it is reshaped or
  /// transposed, so that only float tensors move between kernel ops.
  std::optional<std::pair<double, double>> where;
  /// `int_to_float` of the integer operand `operand`, unsigned if true
  /// (`build` is null), made before it is reshaped, as `where`.
  std::optional<bool> intToFloat;
};

/// How a payload value relates to the tensor of its step. Kernel ops on f16
/// and bf16 compute in f32 and round once, so a payload that extends to f32,
/// computes one op and truncates back (as --convert-kernel-to-linalg writes
/// a kernel op) is that kernel op; between the op and the truncation the
/// payload value is the unrounded f32 result.
struct PlannedValue {
  unsigned step;
  bool unrounded = false;
};

/// Translates the payload of a linalg op, computed for one iteration of its
/// loops, into kernel ops computed on tensors over all iterations at once. A
/// payload value becomes a tensor whose dims are the op's loop dims in order,
/// with size 1 where the value does not vary along a loop, and leading size-1
/// dims left to numpy broadcasting. The plan is made in full before anything
/// is created, so a payload it cannot express leaves the IR untouched.
/// The largest |n| of x^n imported as products: 2 log2(n) kernel ops at
/// most. A larger integer power has no kernel op (exp(n log x) would lose
/// the sign of a negative base).
constexpr int64_t kMaxIntegerPower = 64;

class PayloadPlanner {
public:
  PayloadPlanner(linalg::LinalgOp op, PatternRewriter &rewriter,
                 Type elementType, ArrayRef<int64_t> loopShape)
      : op(op), rewriter(rewriter), elementType(elementType),
        // f16 and bf16 payloads may compute in f32 (see PlannedValue).
        wideType(elementType.isF32() ? Type()
                                     : Float32Type::get(op.getContext())),
        loopShape(loopShape),
        loopOrder(llvm::to_vector(llvm::seq<unsigned>(0, loopShape.size()))) {}

  /// Plans the computation of the payload value `root`. `accumulator`, when
  /// given, is a block argument the computation must not read.
  FailureOr<unsigned> plan(Value root, BlockArgument accumulator = {});

  /// True if `step` varies along every loop.
  bool coversAllLoops(unsigned step) const {
    return isLoopShape(steps[step].shape);
  }

  /// True if some operand the plan reads covers every loop, so no tensor of
  /// the plan is larger than an operand.
  bool readsFullOperand() const {
    return llvm::any_of(llvm::seq<unsigned>(0, steps.size()), [&](unsigned i) {
      return live.test(i) && isOperandStep(steps[i]) &&
             isLoopShape(steps[i].shape);
    });
  }

  /// Creates the kernel ops of `root` and of the steps it depends on. The
  /// result has the op's loop shape: the leading size-1 dims that
  /// broadcasting left out are put back.
  Value emit(Location loc, unsigned root);

private:
  static bool isOperandStep(const Step &step) {
    return !step.build && !step.triangle && !step.where && !step.intToFloat;
  }
  bool isLoopShape(ArrayRef<int64_t> shape) const {
    return dropLeadingUnitDims(shape) == dropLeadingUnitDims(loopShape);
  }
  std::optional<APFloat> getScalar(Value value);
  PlannedValue getTensor(Value value);
  PlannedValue planOp(Operation *payloadOp);
  std::optional<PlannedValue> planSelect(arith::SelectOp select);
  std::optional<PlannedValue> planMaskSelect(arith::SelectOp select);
  BlockArgument getTensorArgument(Value value);
  std::optional<std::pair<BlockArgument, bool>> getMask(Value condition);
  Step &addInputConversion(BlockArgument input);
  unsigned addWhere(BlockArgument mask, double onTrue, double onFalse);
  unsigned addIntToFloat(BlockArgument integers, bool isUnsigned);
  std::optional<PlannedValue> planTriangleFill(arith::SelectOp select);
  std::optional<PlannedValue> planSoftplus(arith::SelectOp select);
  std::optional<PlannedValue> planElu(arith::SelectOp select);
  Value matchScaledBy(Value value, std::optional<APFloat> &factor);
  struct OrderedSides {
    Value ifGreater, otherwise;
    APFloat bound;
  };
  std::optional<OrderedSides> getOrderedSides(arith::SelectOp select, Value x);
  unsigned addInvalid(const Twine &reason);
  unsigned addStep(StepBuilder build, ArrayRef<unsigned> args,
                   double scalar = 0.0);
  unsigned addBinary(StepBuilder build, unsigned lhs, unsigned rhs);
  bool isConstant(Value value, double expected);
  Value matchNegation(Value value);
  Value matchSigmoid(Value value);
  Value matchSiluQuotient(Value value);
  Value matchRsqrt(Value value);
  Value matchGelu(Value value);

  linalg::LinalgOp op;
  PatternRewriter &rewriter;
  Type elementType;
  Type wideType;
  ArrayRef<int64_t> loopShape;
  SmallVector<unsigned> loopOrder;
  BlockArgument accumulator;
  SmallVector<Step> steps;
  DenseMap<Value, PlannedValue> planned;
  llvm::SmallBitVector live;
};

} // namespace

unsigned PayloadPlanner::addInvalid(const Twine &reason) {
  Step step;
  step.invalid = reason.str();
  steps.push_back(std::move(step));
  return steps.size() - 1;
}

unsigned PayloadPlanner::addStep(StepBuilder build, ArrayRef<unsigned> args,
                                 double scalar) {
  Step step;
  step.build = build;
  step.args.assign(args.begin(), args.end());
  step.scalar = scalar;
  step.shape = steps[args.front()].shape;
  steps.push_back(std::move(step));
  return steps.size() - 1;
}

unsigned PayloadPlanner::addBinary(StepBuilder build, unsigned lhs,
                                   unsigned rhs) {
  ShapeOrError shape = broadcastShapes(steps[lhs].shape, steps[rhs].shape);
  if (!shape.ok())
    return addInvalid(shape.error);
  unsigned index = addStep(build, {lhs, rhs});
  steps[index].shape = shape.shape;
  return index;
}

std::optional<APFloat> PayloadPlanner::getScalar(Value value) {
  FloatAttr attr;
  if (matchPattern(value, m_Constant(&attr)))
    return attr.getValue();
  // A constant cast to the payload's type (torch-mlir's f64 scalars, an
  // eps, truncated in the body): the cast constant, rounded to nearest.
  if (isa_and_nonnull<arith::TruncFOp, arith::ExtFOp>(value.getDefiningOp()) &&
      matchPattern(value.getDefiningOp()->getOperand(0), m_Constant(&attr))) {
    APFloat converted = attr.getValue();
    bool losesInfo = false;
    converted.convert(cast<FloatType>(value.getType()).getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &losesInfo);
    return converted;
  }
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBlock() || arg == accumulator)
    return std::nullopt;
  Value operand = op.getMatchingOpOperand(arg)->get();
  if (isa<RankedTensorType>(operand.getType()))
    return getSplatValue(operand);
  return getConstantOfType(operand, elementType);
}

PlannedValue PayloadPlanner::getTensor(Value value) {
  if (auto it = planned.find(value); it != planned.end())
    return it->second;
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBlock())
    return {addInvalid("payload reads a value from outside its block that is "
                       "not a constant")};
  if (arg == accumulator)
    return {addInvalid("payload reads the accumulator outside the combiner")};
  OpOperand *operand = op.getMatchingOpOperand(arg);
  auto type = dyn_cast<RankedTensorType>(operand->get().getType());
  if (!type)
    return {addInvalid("payload reads a scalar operand that is not a "
                       "constant")};
  AffineMap map = op.getMatchingIndexingMap(operand);
  if (!isProjectedPermutationWithZeros(map))
    return {addInvalid("an operand map is not a projected permutation")};
  SmallVector<int64_t> shape(loopShape.size(), 1);
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    int64_t size = type.getDimSize(i);
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      // The linalg verifier checks that the size is the loop's.
      shape[dim.getPosition()] = size;
    } else if (size != 1) {
      // A constant index into a larger dim reads a slice, not a broadcast.
      return {addInvalid("an operand is read at a constant index of a dim "
                         "> 1")};
    }
  }
  Step step;
  step.operand = operand->getOperandNumber();
  // Numpy broadcasting supplies leading size-1 dims: a bias `[n]` is used as
  // it is, not reshaped to `[1, n]`, and a `[1, n]` operand is not reshaped
  // to `[n]` either.
  ArrayRef<int64_t> stepShape(shape);
  while (stepShape.size() > static_cast<size_t>(type.getRank()) &&
         !stepShape.empty() && stepShape.front() == 1)
    stepShape = stepShape.drop_front();
  step.shape.assign(stepShape.begin(), stepShape.end());
  steps.push_back(std::move(step));
  PlannedValue result{static_cast<unsigned>(steps.size() - 1)};
  planned[value] = result;
  return result;
}

/// The operands of `value`'s defining op when it is an `OpTy` of the payload,
/// in both orders; none otherwise.
template <typename OpTy>
static SmallVector<std::pair<Value, Value>, 2> commutedOperands(Value value,
                                                                Block *body) {
  auto binary = value.getDefiningOp<OpTy>();
  if (!binary || binary->getBlock() != body)
    return {};
  return {{binary.getLhs(), binary.getRhs()},
          {binary.getRhs(), binary.getLhs()}};
}

bool PayloadPlanner::isConstant(Value value, double expected) {
  std::optional<APFloat> constant = getScalar(value);
  if (!constant)
    return false;
  APFloat rounded(expected);
  bool losesInfo = false;
  rounded.convert(constant->getSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  return constant->bitwiseIsEqual(rounded);
}

/// Returns `x` when `value` is `-x` as front ends write it (`arith.negf`,
/// `0 - x`, `x * -1`), else a null value. Under exp, as in sigmoid and
/// silu, the three agree (they differ at x = 0 in the sign of zero only).
Value PayloadPlanner::matchNegation(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != op.getBlock())
    return {};
  if (auto neg = dyn_cast<arith::NegFOp>(def))
    return neg.getOperand();
  if (auto sub = dyn_cast<arith::SubFOp>(def))
    return isConstant(sub.getLhs(), 0) ? sub.getRhs() : Value();
  if (auto mul = dyn_cast<arith::MulFOp>(def)) {
    if (isConstant(mul.getRhs(), -1))
      return mul.getLhs();
    if (isConstant(mul.getLhs(), -1))
      return mul.getRhs();
  }
  return {};
}

/// Returns `x` when `value` is the payload form of `sigmoid(x)`,
/// `1 / (1 + exp(-x))`, else a null value.
Value PayloadPlanner::matchSigmoid(Value value) {
  auto div = value.getDefiningOp<arith::DivFOp>();
  if (!div || div->getBlock() != op.getBlock() || !isConstant(div.getLhs(), 1))
    return {};
  for (auto [e, one] :
       commutedOperands<arith::AddFOp>(div.getRhs(), op.getBlock())) {
    auto exp = e.getDefiningOp<math::ExpOp>();
    Value x = exp ? matchNegation(exp.getOperand()) : Value();
    if (isConstant(one, 1) && x)
      return x;
  }
  return {};
}

/// Returns `x` when `value` is `x / (1 + exp(-x))`, silu written as one
/// quotient, else a null value.
Value PayloadPlanner::matchSiluQuotient(Value value) {
  auto div = value.getDefiningOp<arith::DivFOp>();
  if (!div || div->getBlock() != op.getBlock())
    return {};
  for (auto [e, one] :
       commutedOperands<arith::AddFOp>(div.getRhs(), op.getBlock())) {
    auto exp = e.getDefiningOp<math::ExpOp>();
    Value x = exp ? matchNegation(exp.getOperand()) : Value();
    if (isConstant(one, 1) && x && x == div.getLhs())
      return div.getLhs();
  }
  return {};
}

/// Returns `x` when `value` is the payload form of `rsqrt(x)`, `1 / sqrt(x)`
/// with the constant exactly 1, computed in f32, else a null value. In f32 the
/// kernel op computes the same two roundings; in f16 or bf16 each payload op
/// would round where the kernel op (computing in f32) rounds once, so only an
/// f32 payload (on f32 values, or extended f16/bf16 ones) matches.
Value PayloadPlanner::matchRsqrt(Value value) {
  auto div = value.getDefiningOp<arith::DivFOp>();
  if (!div || div->getBlock() != op.getBlock() || !div.getType().isF32() ||
      !isConstant(div.getLhs(), 1))
    return {};
  auto sqrt = div.getRhs().getDefiningOp<math::SqrtOp>();
  if (!sqrt || sqrt->getBlock() != op.getBlock())
    return {};
  return sqrt.getOperand();
}

/// Returns `x` when `value` is the payload form of `gelu(x)`,
/// `x * (1 + erf(x * c)) * 0.5` with `c` the constant 1/sqrt(2) (as the kernel
/// op computes it; or `x / sqrt(2)`, torch-mlir's), the halving applied to
/// any factor, else a null value.
/// Halving is exact, so where it happens changes no result.
Value PayloadPlanner::matchGelu(Value value) {
  Block *body = op.getBlock();
  // x when t is 1 + erf(x * c).
  auto cdfOf = [&](Value t) -> Value {
    for (auto [e, one] : commutedOperands<arith::AddFOp>(t, body)) {
      auto erf = e.getDefiningOp<math::ErfOp>();
      if (!isConstant(one, 1) || !erf)
        continue;
      for (auto [x, c] :
           commutedOperands<arith::MulFOp>(erf.getOperand(), body))
        if (isConstant(c, M_SQRT1_2))
          return x;
      // torch-mlir writes x / sqrt(2).
      if (auto div = erf.getOperand().getDefiningOp<arith::DivFOp>();
          div && div->getBlock() == body && isConstant(div.getRhs(), M_SQRT2))
        return div.getLhs();
    }
    return {};
  };
  for (auto [p, q] : commutedOperands<arith::MulFOp>(value, body)) {
    // (x * cdf) * 0.5
    if (isConstant(q, 0.5))
      for (auto [x, t] : commutedOperands<arith::MulFOp>(p, body))
        if (cdfOf(t) == x)
          return x;
    // (x * 0.5) * cdf
    for (auto [x, half] : commutedOperands<arith::MulFOp>(p, body))
      if (isConstant(half, 0.5) && cdfOf(q) == x)
        return x;
    // x * (cdf * 0.5)
    for (auto [t, half] : commutedOperands<arith::MulFOp>(q, body))
      if (isConstant(half, 0.5) && cdfOf(t) == p)
        return p;
  }
  return {};
}

/// Whether `cmp`, an order (strict or not), holds where `x`, one of its
/// operands, is the greater: true for `x > y` and `y < x`, false for
/// `x < y` and `y > x`; none for an equality or when x is neither operand.
static std::optional<bool> holdsWhereGreater(arith::CmpFOp cmp, Value x) {
  using P = arith::CmpFPredicate;
  P predicate = cmp.getPredicate();
  bool greater =
      llvm::is_contained({P::OGT, P::OGE, P::UGT, P::UGE}, predicate);
  if (!greater &&
      !llvm::is_contained({P::OLT, P::OLE, P::ULT, P::ULE}, predicate))
    return std::nullopt;
  if (cmp.getLhs() == x)
    return greater;
  if (cmp.getRhs() == x)
    return !greater;
  return std::nullopt;
}

/// torch-mlir's relu, clamp, threshold and leaky relu are a select on a
/// comparison of its own operands: `select(x > c, x, c)` and its mirror
/// images are max(x, c), the others min(x, c), and `select(x > 0, x, x * a)`
/// is a leaky relu. The comparison itself has no kernel op; it stays an
/// unused invalid step. NaN aside: an unordered comparison picks one side
/// for it, where the kernel ops keep the NaN.
/// `select(j - i >= d, c, x)` (or its complement with the operands swapped)
/// is the triangle_fill of x by the constant c: a causal mask. A condition
/// that is a union of triangles (a sliding window with its causal edge)
/// fills each in turn.
std::optional<PlannedValue>
PayloadPlanner::planTriangleFill(arith::SelectOp select) {
  if (select.getType() != elementType)
    return std::nullopt;
  Value x = select.getFalseValue();
  std::optional<APFloat> fill = getScalar(select.getTrueValue());
  bool negated = false;
  if (!fill) {
    x = select.getTrueValue();
    fill = getScalar(select.getFalseValue());
    negated = true;
  }
  if (!fill || getScalar(x))
    return std::nullopt;
  std::optional<SmallVector<TriangleCondition, 2>> triangles =
      matchTriangleUnion(select.getCondition(), op.getBlock(), loopShape,
                         negated);
  if (!triangles)
    return std::nullopt;
  PlannedValue arg = getTensor(x);
  if (arg.unrounded)
    return std::nullopt;
  // The masked value must vary along both compared loops: the mask does.
  // Its step drops leading size-1 loops, so loop dims shift by their count.
  SmallVector<int64_t> shape = steps[arg.step].shape;
  int64_t shift = static_cast<int64_t>(loopShape.size()) -
                  static_cast<int64_t>(shape.size());
  for (const TriangleCondition &t : *triangles)
    for (unsigned loop : {t.rows, t.cols})
      if (static_cast<int64_t>(loop) < shift ||
          shape[loop - shift] != loopShape[loop])
        return std::nullopt;
  unsigned masked = arg.step;
  for (const TriangleCondition &t : *triangles) {
    Step step;
    step.args = {masked};
    step.scalar = toDouble(*fill);
    step.shape = shape;
    step.triangle =
        TriangleCondition{static_cast<unsigned>(t.rows - shift),
                          static_cast<unsigned>(t.cols - shift), t.diagonal};
    steps.push_back(std::move(step));
    masked = steps.size() - 1;
  }
  return PlannedValue{masked};
}

std::optional<PlannedValue> PayloadPlanner::planSelect(arith::SelectOp select) {
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp->getBlock() != op.getBlock() ||
      select.getType() != elementType)
    return std::nullopt;
  Value onTrue = select.getTrueValue(), onFalse = select.getFalseValue();
  // The comparison of x, the value the select may pass on, with c.
  Value x = getScalar(cmp.getLhs()) ? cmp.getRhs() : cmp.getLhs();
  Value c = x == cmp.getLhs() ? cmp.getRhs() : cmp.getLhs();
  std::optional<bool> holdsWhereXIsGreater = holdsWhereGreater(cmp, x);
  if (!holdsWhereXIsGreater)
    return std::nullopt;
  bool greater = *holdsWhereXIsGreater;
  std::optional<APFloat> bound = getScalar(c);
  // `select(x > y, x, y)` of two values (torch.where on their comparison)
  // is max(x, y), and its mirror images max or min.
  if (!bound && !getScalar(x)) {
    if (!((onTrue == x && onFalse == c) || (onTrue == c && onFalse == x)))
      return std::nullopt;
    PlannedValue lhs = getTensor(x), rhs = getTensor(c);
    if (lhs.unrounded || rhs.unrounded)
      return std::nullopt;
    bool isMax = (onTrue == x) == greater;
    return PlannedValue{
        isMax ? addBinary(buildBinary<kernel::MaxOp>, lhs.step, rhs.step)
              : addBinary(buildBinary<kernel::MinOp>, lhs.step, rhs.step)};
  }
  if (!bound || getScalar(x))
    return std::nullopt;
  PlannedValue arg = getTensor(x);
  if (arg.unrounded)
    return std::nullopt;

  // The constant may be another op of the same value (the front end
  // materialized it twice).
  auto isBound = [&](Value v) {
    std::optional<APFloat> other = getScalar(v);
    return v == c || (other && other->bitwiseIsEqual(*bound));
  };
  if ((onTrue == x && isBound(onFalse)) || (isBound(onTrue) && onFalse == x)) {
    // Picking x when it is the greater is the maximum.
    bool isMax = (onTrue == x) == greater;
    if (isMax && bound->isZero())
      return PlannedValue{addStep(buildUnary<kernel::ReluOp>, arg.step)};
    return PlannedValue{addStep(isMax ? buildScalar<kernel::MaxScalarOp>
                                      : buildScalar<kernel::MinScalarOp>,
                                arg.step, toDouble(*bound))};
  }
  // Leaky relu: x where x > 0, else x * a with 0 <= a <= 1, which is
  // relu(x) - a * relu(-x) exactly (one term is zero; negation is exact).
  Value scaled = onTrue == x ? onFalse : onTrue;
  auto mul = scaled.getDefiningOp<arith::MulFOp>();
  if (!bound->isZero() || (onTrue == x) != greater || !mul ||
      mul->getBlock() != op.getBlock())
    return std::nullopt;
  for (auto [factor, slope] : {std::pair(mul.getLhs(), mul.getRhs()),
                               std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<APFloat> a = getScalar(slope);
    if (factor != x || !a || a->isNegative() || toDouble(*a) > 1.0)
      continue;
    unsigned positive = addStep(buildUnary<kernel::ReluOp>, arg.step);
    unsigned negated = addStep(buildUnary<kernel::NegOp>, arg.step);
    unsigned negative = addStep(buildUnary<kernel::ReluOp>, negated);
    unsigned leak =
        addStep(buildScalar<kernel::MulScalarOp>, negative, -toDouble(*a));
    return PlannedValue{addBinary(buildBinary<kernel::AddOp>, positive, leak)};
  }
  return std::nullopt;
}

/// The boolean operand that `condition` reads, and whether it reads its
/// negation (`arith.xori` with true, as torch-mlir writes `~mask`).
std::optional<std::pair<BlockArgument, bool>>
PayloadPlanner::getMask(Value condition) {
  bool negated = false;
  while (auto xori = condition.getDefiningOp<arith::XOrIOp>()) {
    if (xori->getBlock() != op.getBlock())
      return std::nullopt;
    if (matchPattern(xori.getRhs(), m_One()))
      condition = xori.getLhs();
    else if (matchPattern(xori.getLhs(), m_One()))
      condition = xori.getRhs();
    else
      return std::nullopt;
    negated = !negated;
  }
  BlockArgument arg = getTensorArgument(condition);
  if (!arg || !arg.getType().isInteger(1))
    return std::nullopt;
  return std::pair(arg, negated);
}

/// `value` if it is the payload's element of a tensor operand (not the
/// accumulator); null otherwise.
BlockArgument PayloadPlanner::getTensorArgument(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBlock() || arg == accumulator ||
      !isa<RankedTensorType>(op.getMatchingOpOperand(arg)->get().getType()))
    return {};
  return arg;
}

/// A step that makes floats of the mask or integer operand `input`, with
/// the shape the operand would have as a tensor step; the caller says how
/// (`where` or `intToFloat`).
Step &PayloadPlanner::addInputConversion(BlockArgument input) {
  Step step;
  step.shape = steps[getTensor(input).step].shape;
  step.operand = op.getMatchingOpOperand(input)->getOperandNumber();
  steps.push_back(std::move(step));
  return steps.back();
}

unsigned PayloadPlanner::addWhere(BlockArgument mask, double onTrue,
                                  double onFalse) {
  addInputConversion(mask).where = std::pair(onTrue, onFalse);
  return steps.size() - 1;
}

unsigned PayloadPlanner::addIntToFloat(BlockArgument integers,
                                       bool isUnsigned) {
  addInputConversion(integers).intToFloat = isUnsigned;
  return steps.size() - 1;
}

/// A select on a boolean operand (torch.where(mask, x, y), masked_fill).
/// A tensor x kept where the mask is `keptWhen` is `x + where(mask, 0,
/// -inf)` (or its mirror): x where kept, -inf where dropped, which is the
/// additive mask attention adds to its scores, and all a fill of -inf
/// needs. Another fill c is the max of that and `where(mask, -inf, c)`, and
/// a select of two tensors the max of both kept forms. Exact wherever x (or
/// y) is finite or -inf, where a product by a 0/1 mask would make NaN of a
/// masked-off -inf (scores a causal mask has filled); a dropped +inf or NaN
/// gives NaN, not the fill.
std::optional<PlannedValue>
PayloadPlanner::planMaskSelect(arith::SelectOp select) {
  std::optional<std::pair<BlockArgument, bool>> mask =
      getMask(select.getCondition());
  if (!mask || select.getType() != elementType)
    return std::nullopt;
  auto [arg, negated] = *mask;
  Value onTrue = select.getTrueValue(), onFalse = select.getFalseValue();
  if (negated)
    std::swap(onTrue, onFalse);
  std::optional<APFloat> trueValue = getScalar(onTrue);
  std::optional<APFloat> falseValue = getScalar(onFalse);
  if (trueValue && falseValue)
    return PlannedValue{
        addWhere(arg, toDouble(*trueValue), toDouble(*falseValue))};
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  // x where the mask is `keptWhen`, -inf elsewhere.
  auto kept = [&](Value value, bool keptWhen) -> std::optional<unsigned> {
    PlannedValue x = getTensor(value);
    if (x.unrounded)
      return std::nullopt;
    unsigned bias =
        keptWhen ? addWhere(arg, 0.0, kNegInf) : addWhere(arg, kNegInf, 0.0);
    return addBinary(buildBinary<kernel::AddOp>, x.step, bias);
  };
  if (!trueValue && !falseValue) {
    std::optional<unsigned> x = kept(onTrue, true), y = kept(onFalse, false);
    if (!x || !y)
      return std::nullopt;
    return PlannedValue{addBinary(buildBinary<kernel::MaxOp>, *x, *y)};
  }
  bool keptWhen = !trueValue;
  std::optional<unsigned> x = kept(keptWhen ? onTrue : onFalse, keptWhen);
  if (!x)
    return std::nullopt;
  double c = toDouble(keptWhen ? *falseValue : *trueValue);
  if (c == kNegInf)
    return PlannedValue{*x};
  unsigned fill =
      keptWhen ? addWhere(arg, kNegInf, c) : addWhere(arg, c, kNegInf);
  return PlannedValue{addBinary(buildBinary<kernel::MaxOp>, *x, fill)};
}

/// `x` when `value` is `x * c` or `c * x` for a constant c (then `factor`
/// is c), or `value` itself (no factor).
Value PayloadPlanner::matchScaledBy(Value value,
                                    std::optional<APFloat> &factor) {
  factor.reset();
  auto mul = value.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != op.getBlock())
    return value;
  for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())})
    if (std::optional<APFloat> constant = getScalar(c);
        constant && !getScalar(x)) {
      factor = constant;
      return x;
    }
  return value;
}

/// The sides of `select(x P c, ...)` or `select(c P x, ...)`, with c a
/// constant and P an order (strict or not): the one taken where x is the
/// greater, the other, and c; none for another comparison.
std::optional<PayloadPlanner::OrderedSides>
PayloadPlanner::getOrderedSides(arith::SelectOp select, Value x) {
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp)
    return std::nullopt;
  std::optional<bool> greater = holdsWhereGreater(cmp, x);
  if (!greater)
    return std::nullopt;
  std::optional<APFloat> bound =
      getScalar(cmp.getLhs() == x ? cmp.getRhs() : cmp.getLhs());
  if (!bound)
    return std::nullopt;
  Value onTrue = select.getTrueValue(), onFalse = select.getFalseValue();
  return OrderedSides{*greater ? onTrue : onFalse, *greater ? onFalse : onTrue,
                      *bound};
}

/// torch's softplus, `select(b x > 20, x, log1p(exp(b x)) / b)` (torch-mlir
/// decomposes F.softplus, and Mish, so), is softplus(b x) / b: the threshold
/// must be torch's 20, kernel.softplus's. In f16 the payload's exp
/// overflows past 11, where the op, in f32, still gives x: the op is the
/// more accurate, as the sigmoid and silu idioms are.
std::optional<PlannedValue>
PayloadPlanner::planSoftplus(arith::SelectOp select) {
  if (select.getType() != elementType && select.getType() != wideType)
    return std::nullopt;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp->getBlock() != op.getBlock())
    return std::nullopt;
  for (Value scaled : {cmp.getLhs(), cmp.getRhs()}) {
    std::optional<APFloat> beta;
    Value x = matchScaledBy(scaled, beta);
    // 20 is exact in every element type.
    std::optional<OrderedSides> sides = getOrderedSides(select, scaled);
    if (!sides || sides->ifGreater != x || getScalar(x) ||
        toDouble(sides->bound) != 20.0)
      continue;
    double b = beta ? toDouble(*beta) : 1.0;
    // In f32 on f16 or bf16 values, the scaling by b would round where the
    // payload does not.
    bool unrounded = select.getType() != elementType;
    if (!(b > 0) || (unrounded && b != 1.0))
      continue;
    // The other side: log1p(exp(b x)), divided by b (or times 1 / b).
    Value smooth = sides->otherwise;
    std::optional<APFloat> unscale;
    Value log1p = matchScaledBy(smooth, unscale);
    if (unscale && toDouble(*unscale) * b != 1.0)
      continue;
    if (auto div = smooth.getDefiningOp<arith::DivFOp>();
        !unscale && div && div->getBlock() == op.getBlock()) {
      if (!isConstant(div.getRhs(), b))
        continue;
      log1p = div.getLhs();
    } else if (!unscale && b != 1.0) {
      continue;
    }
    auto log = log1p.getDefiningOp<math::Log1pOp>();
    auto exp = log ? log.getOperand().getDefiningOp<math::ExpOp>() : nullptr;
    if (!exp || exp.getOperand() != scaled ||
        log->getBlock() != op.getBlock() || exp->getBlock() != op.getBlock())
      continue;
    PlannedValue arg = getTensor(x);
    if (arg.unrounded)
      return std::nullopt;
    unsigned step = arg.step;
    if (b != 1.0)
      step = addStep(buildScalar<kernel::MulScalarOp>, step, b);
    step = addStep(buildUnary<kernel::SoftplusOp>, step);
    if (b != 1.0)
      step = addStep(buildScalar<kernel::MulScalarOp>, step, 1.0 / b);
    return PlannedValue{step, unrounded};
  }
  return std::nullopt;
}

/// torch's elu, `select(x > 0, x, a (exp(x) - 1))` with a > 0 (either
/// order, non-strict too: at 0 both sides are 0), is relu(x) +
/// min(a (exp(x) - 1), 0) exactly: one term is zero, and the other is
/// computed as the payload computes it. (x = inf: inf + 0.) SELU and the
/// input scale of torch-mlir's elu, `select(x > 0, c x, a (exp(s x) - 1))`
/// with c, s > 0, are c relu(x) and exp(s x) in those terms.
std::optional<PlannedValue> PayloadPlanner::planElu(arith::SelectOp select) {
  if (select.getType() != elementType)
    return std::nullopt;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp->getBlock() != op.getBlock())
    return std::nullopt;
  auto isPositive = [](const std::optional<APFloat> &c) {
    return !c || toDouble(*c) > 0;
  };
  for (Value x : {cmp.getLhs(), cmp.getRhs()}) {
    std::optional<OrderedSides> sides = getOrderedSides(select, x);
    if (!sides || !sides->bound.isZero() || getScalar(x))
      continue;
    std::optional<APFloat> scale, alpha, inputScale;
    if (matchScaledBy(sides->ifGreater, scale) != x || !isPositive(scale))
      continue;
    Value expMinusOne = matchScaledBy(sides->otherwise, alpha);
    auto sub = expMinusOne.getDefiningOp<arith::SubFOp>();
    if (!isPositive(alpha) || !sub || sub->getBlock() != op.getBlock() ||
        !isConstant(sub.getRhs(), 1.0))
      continue;
    auto exp = sub.getLhs().getDefiningOp<math::ExpOp>();
    if (!exp || exp->getBlock() != op.getBlock() ||
        matchScaledBy(exp.getOperand(), inputScale) != x ||
        !isPositive(inputScale))
      continue;
    PlannedValue arg = getTensor(x);
    if (arg.unrounded)
      return std::nullopt;
    unsigned positive = addStep(buildUnary<kernel::ReluOp>, arg.step);
    if (scale)
      positive =
          addStep(buildScalar<kernel::MulScalarOp>, positive, toDouble(*scale));
    unsigned exponent = arg.step;
    if (inputScale)
      exponent = addStep(buildScalar<kernel::MulScalarOp>, exponent,
                         toDouble(*inputScale));
    unsigned negative =
        addStep(buildScalar<kernel::AddScalarOp>,
                addStep(buildUnary<kernel::ExpOp>, exponent), -1.0);
    if (alpha)
      negative =
          addStep(buildScalar<kernel::MulScalarOp>, negative, toDouble(*alpha));
    negative = addStep(buildScalar<kernel::MinScalarOp>, negative, 0.0);
    return PlannedValue{
        addBinary(buildBinary<kernel::AddOp>, positive, negative)};
  }
  return std::nullopt;
}

PlannedValue PayloadPlanner::planOp(Operation *payloadOp) {
  auto invalid = [&](const Twine &reason) -> PlannedValue {
    return {addInvalid("payload op '" + payloadOp->getName().getStringRef() +
                       "' " + reason)};
  };
  if (payloadOp->getNumResults() != 1 || payloadOp->getNumRegions() != 0)
    return invalid("has no kernel op");
  // An embedding lookup or any other gather: which element is read is
  // computed in the payload, which no kernel op's fixed access pattern
  // expresses. (Its index types were reported as the cause before.)
  if (isa<tensor::ExtractOp>(payloadOp))
    return invalid("reads a tensor at indices it computes (a gather), "
                   "which no kernel op does");
  Type type = payloadOp->getResult(0).getType();
  if (type != elementType && type != wideType)
    return invalid("computes in a type kernel ops do not have");

  // Extending to f32 and truncating back change no value of the element
  // type; a truncation rounds an unrounded kernel op result as the op would.
  if (auto ext = dyn_cast<arith::ExtFOp>(payloadOp)) {
    if (ext.getIn().getType() != elementType)
      return invalid("extends from a type other than the element type");
    PlannedValue in = getTensor(ext.getIn());
    if (in.unrounded)
      return invalid("extends an unrounded value");
    return in;
  }
  if (auto trunc = dyn_cast<arith::TruncFOp>(payloadOp)) {
    if (trunc.getIn().getType() != wideType ||
        trunc.getRoundingmode().value_or(
            arith::RoundingMode::to_nearest_even) !=
            arith::RoundingMode::to_nearest_even)
      return invalid("is not a rounding to nearest from f32");
    return {getTensor(trunc.getIn()).step};
  }

  // Small integer powers (torch-mlir's x.pow(2) in an RMSNorm, x^3 in the
  // tanh form of gelu): x^2 is square(x), exact; x^3 square(x) * x, within
  // an ulp. Before the type check: the exponent is an integer.
  if (isa<math::FPowIOp, math::PowFOp>(payloadOp)) {
    Value base = payloadOp->getOperand(0), exponent = payloadOp->getOperand(1);
    std::optional<APFloat> floatPower = getScalar(exponent);
    std::optional<int64_t> power;
    APInt intPower;
    if (matchPattern(exponent, m_ConstantInt(&intPower)))
      power = intPower.getSExtValue();
    else if (floatPower && floatPower->isInteger() &&
             std::abs(toDouble(*floatPower)) <= kMaxIntegerPower)
      power = static_cast<int64_t>(toDouble(*floatPower));
    // An infinite or NaN exponent has no kernel op.
    if (floatPower && !floatPower->isFinite())
      floatPower.reset();
    // In f32 on f16 or bf16 values the op is the kernel op before it
    // rounds (see PlannedValue); x^3 would round its square in between.
    bool unrounded = type != elementType;
    if (power == 2 || (power == 3 && !unrounded)) {
      // |x|^2 (a vector norm's) is x^2.
      if (auto abs = base.getDefiningOp<math::AbsFOp>();
          abs && abs->getBlock() == op.getBlock() && power == 2)
        base = abs.getOperand();
      PlannedValue x = getTensor(base);
      if (x.unrounded)
        return invalid("computes on an f32 result that a kernel op would "
                       "have rounded");
      unsigned square = addStep(buildUnary<kernel::SquareOp>, x.step);
      if (power == 2)
        return {square, unrounded};
      return {addBinary(buildBinary<kernel::MulOp>, square, x.step), unrounded};
    }
    // x^-1 is 1 / x, exact.
    if (power == -1) {
      PlannedValue x = getTensor(base);
      if (x.unrounded)
        return invalid("computes on an f32 result that a kernel op would "
                       "have rounded");
      return {addStep(buildConstantDividedBy, x.step, 1.0), unrounded};
    }
    // x^0.5 is sqrt(x) and x^-0.5 rsqrt(x), torch's `x.pow(-0.5)` in a
    // norm (each pair differs at -0 and -inf only).
    double half = floatPower ? toDouble(*floatPower) : 0;
    if (half == 0.5 || half == -0.5) {
      PlannedValue x = getTensor(base);
      if (!x.unrounded)
        return {half > 0 ? addStep(buildUnary<kernel::SqrtOp>, x.step)
                         : addStep(buildUnary<kernel::RsqrtOp>, x.step),
                type != elementType};
    }
    // Other constant powers, where the payload computes in the element
    // type: a chain of kernel ops rounds where the op would round once, so
    // one computed in f32 on f16 or bf16 values is not imported.
    if ((power || floatPower) && !unrounded) {
      PlannedValue x = getTensor(base);
      if (x.unrounded)
        return invalid("computes on an f32 result that a kernel op would "
                       "have rounded");
      // An integer power by squaring (x^4 = square(square(x))), within an
      // ulp per product; a negative one is its reciprocal. Either keeps
      // the sign of a negative base, which exp(c log x) would not.
      if (power && *power != 0 && std::abs(*power) <= kMaxIntegerPower) {
        uint64_t n = std::abs(*power);
        std::optional<unsigned> result;
        unsigned square = x.step;
        for (; n; n >>= 1) {
          if (n & 1)
            result =
                result ? addBinary(buildBinary<kernel::MulOp>, *result, square)
                       : square;
          if (n > 1)
            square = addStep(buildUnary<kernel::SquareOp>, square);
        }
        if (*power < 0)
          result = addStep(buildConstantDividedBy, *result, 1.0);
        return {*result};
      }
      // x^c = exp(c log x) for any other constant c: like powf, NaN for a
      // negative x, 0 or inf for a zero one (as c > 0 or c < 0), within
      // about |c log x| ulps.
      if (floatPower && !floatPower->isInteger()) {
        unsigned log = addStep(buildUnary<kernel::LogOp>, x.step);
        unsigned scaled = addStep(buildScalar<kernel::MulScalarOp>, log,
                                  toDouble(*floatPower));
        return {addStep(buildUnary<kernel::ExpOp>, scaled)};
      }
    }
    return invalid("is a power with no kernel op");
  }
  // A boolean mask as a number (torch's `mask.float()`, `mask.to(dtype)`):
  // 1 or 0, and -1 or 0 for a signed conversion of the one-bit value.
  if (isa<arith::UIToFPOp, arith::SIToFPOp>(payloadOp) && type == elementType) {
    // Through an integer extension of the mask (`mask.long().float()`): a
    // zero extension is 1 or 0, a sign extension -1 or 0, as an integer of
    // its width.
    Value converted = payloadOp->getOperand(0);
    bool signExtended = false;
    unsigned width = 1;
    if (auto ext = converted.getDefiningOp<arith::ExtUIOp>();
        ext && ext->getBlock() == op.getBlock() &&
        ext.getIn().getType().isInteger(1)) {
      converted = ext.getIn();
      width = ext.getType().getIntOrFloatBitWidth();
    } else if (auto ext = converted.getDefiningOp<arith::ExtSIOp>();
               ext && ext->getBlock() == op.getBlock() &&
               ext.getIn().getType().isInteger(1)) {
      converted = ext.getIn();
      signExtended = true;
      width = ext.getType().getIntOrFloatBitWidth();
    }
    if (auto mask = getMask(converted)) {
      // The set bits read as a signed or an unsigned integer of `width`.
      bool allOnes = signExtended || width == 1;
      double one = !allOnes ? 1.0
                   : isa<arith::SIToFPOp>(payloadOp)
                       ? -1.0
                       : std::ldexp(1.0, width) - 1;
      return {mask->second ? addWhere(mask->first, 0.0, one)
                           : addWhere(mask->first, one, 0.0)};
    }
    // An integer operand as a number (Hugging Face's int64 attention_mask
    // `.to(dtype)`).
    BlockArgument arg = getTensorArgument(payloadOp->getOperand(0));
    if (arg && isa<IntegerType>(arg.getType()) && !arg.getType().isInteger(1))
      return {addIntToFloat(arg, isa<arith::UIToFPOp>(payloadOp))};
  }
  if (auto select = dyn_cast<arith::SelectOp>(payloadOp)) {
    if (std::optional<PlannedValue> masked = planMaskSelect(select))
      return *masked;
    if (std::optional<PlannedValue> bound = planSelect(select))
      return *bound;
    if (std::optional<PlannedValue> softplus = planSoftplus(select))
      return *softplus;
    if (std::optional<PlannedValue> elu = planElu(select))
      return *elu;
    if (std::optional<PlannedValue> fill = planTriangleFill(select))
      return *fill;
    return invalid("is no maximum or minimum with a constant, leaky relu, "
                   "elu or softplus");
  }
  if (llvm::any_of(payloadOp->getOperandTypes(),
                   [&](Type operandType) { return operandType != type; }))
    return invalid("mixes types");
  // An op in f32 on f16 or bf16 values is the kernel op before it rounds.
  bool unrounded = type != elementType;

  // Idioms that are one kernel op, matched before their parts: in f32 the
  // parts would each need a rounding the idiom does not have.
  // 1 / (1 + exp(-x)) is sigmoid(x), 1 / sqrt(x) (in f32) is rsqrt(x),
  // x * sigmoid(x) (in either order) and x / (1 + exp(-x)) are silu(x), and
  // x * (1 + erf(x / sqrt(2))) / 2 is gelu(x).
  auto idiom = [&](StepBuilder build, Value x) -> std::optional<unsigned> {
    PlannedValue arg = getTensor(x);
    if (arg.unrounded)
      return std::nullopt;
    return addStep(build, arg.step);
  };
  if (auto div = dyn_cast<arith::DivFOp>(payloadOp)) {
    if (Value x = matchSigmoid(div.getResult()))
      if (std::optional<unsigned> step =
              idiom(buildUnary<kernel::SigmoidOp>, x))
        return {*step, unrounded};
    if (Value x = matchRsqrt(div.getResult()))
      if (std::optional<unsigned> step = idiom(buildUnary<kernel::RsqrtOp>, x))
        return {*step, unrounded};
    // x / (1 + exp(-x)) is silu(x) in any type, as 1 / (1 + exp(-x)) is
    // sigmoid(x): kernel.silu rounds once where the payload's steps may
    // each round, so the op is the more accurate (within an ulp per step),
    // and one op instead of four keeps a gated MLP within max-kernel-ops.
    if (Value x = matchSiluQuotient(div.getResult()))
      if (std::optional<unsigned> step = idiom(buildUnary<kernel::SiluOp>, x))
        return {*step, unrounded};
  }
  if (auto mul = dyn_cast<arith::MulFOp>(payloadOp)) {
    if (Value x = matchGelu(mul.getResult()))
      if (std::optional<unsigned> step = idiom(buildUnary<kernel::GeluOp>, x))
        return {*step, unrounded};
    for (auto [x, s] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())})
      if (matchSigmoid(s) == x)
        if (std::optional<unsigned> step = idiom(buildUnary<kernel::SiluOp>, x))
          return {*step, unrounded};
  }
  // Operands are tensors (steps) or constants (scalars). A kernel op rounds
  // its result, so it cannot compute on an unrounded f32 value.
  SmallVector<std::optional<APFloat>, 2> scalars;
  SmallVector<unsigned, 2> tensors;
  for (Value operand : payloadOp->getOperands()) {
    scalars.push_back(getScalar(operand));
    if (scalars.back())
      continue;
    PlannedValue value = getTensor(operand);
    if (value.unrounded)
      return invalid("computes on an f32 result that a kernel op would have "
                     "rounded");
    tensors.push_back(value.step);
  }
  if (tensors.empty())
    return invalid("computes on constants only");

  auto unary = [&](StepBuilder build) { return addStep(build, tensors[0]); };
  // For a binary op with one constant operand: the constant, and whether it
  // is the left operand.
  std::optional<APFloat> constant = scalars.size() == 2
                                        ? (scalars[0] ? scalars[0] : scalars[1])
                                        : std::nullopt;
  bool constantIsLhs = scalars.size() == 2 && scalars[0].has_value();

  auto kernelStep =
      llvm::TypeSwitch<Operation *, std::optional<unsigned>>(payloadOp)
          .Case([&](arith::NegFOp) { return unary(buildUnary<kernel::NegOp>); })
          .Case([&](math::ExpOp) { return unary(buildUnary<kernel::ExpOp>); })
          .Case([&](math::Exp2Op) {
            // 2^x is e^(x ln 2) (a base-2 softmax, as Triton's and
            // FlashAttention's kernels write it): no exp2 kernel op, as
            // Mirage has none; the scaled exponent rounds once more, which
            // costs |x ln 2| ulps of the result at most.
            unsigned scaled = addStep(buildScalar<kernel::MulScalarOp>,
                                      tensors[0], llvm::numbers::ln2);
            return addStep(buildUnary<kernel::ExpOp>, scaled);
          })
          .Case([&](math::LogOp) { return unary(buildUnary<kernel::LogOp>); })
          // log2(x) and log10(x) are log(x) / ln 2 and log(x) / ln 10: no
          // kernel op of their own (Mirage has none); the product rounds
          // once more, within an ulp and a half of the result.
          .Case<math::Log2Op, math::Log10Op>([&](Operation *logOp) {
            double base = isa<math::Log2Op>(logOp) ? llvm::numbers::ln2
                                                   : llvm::numbers::ln10;
            unsigned log = addStep(buildUnary<kernel::LogOp>, tensors[0]);
            return addStep(buildScalar<kernel::MulScalarOp>, log, 1.0 / base);
          })
          .Case([&](math::SqrtOp) { return unary(buildUnary<kernel::SqrtOp>); })
          .Case(
              [&](math::RsqrtOp) { return unary(buildUnary<kernel::RsqrtOp>); })
          .Case([&](math::TanhOp) { return unary(buildUnary<kernel::TanhOp>); })
          .Case([&](math::ErfOp) { return unary(buildUnary<kernel::ErfOp>); })
          .Case([&](math::SinOp) { return unary(buildUnary<kernel::SinOp>); })
          .Case([&](math::CosOp) { return unary(buildUnary<kernel::CosOp>); })
          .Case(
              [&](math::Log1pOp) { return unary(buildUnary<kernel::Log1pOp>); })
          .Case(
              [&](math::FloorOp) { return unary(buildUnary<kernel::FloorOp>); })
          .Case([&](math::CeilOp) { return unary(buildUnary<kernel::CeilOp>); })
          .Case([&](math::RoundEvenOp) {
            return unary(buildUnary<kernel::RoundOp>);
          })
          .Case([&](math::AbsFOp) {
            // |x| == max(x, -x) exactly, -0.0 and NaN included: the negation
            // is exact. (No abs kernel op: Mirage has none either.)
            unsigned negated = addStep(buildUnary<kernel::NegOp>, tensors[0]);
            return addBinary(buildBinary<kernel::MaxOp>, tensors[0], negated);
          })
          .Case([&](arith::AddFOp) {
            if (constant)
              return addStep(buildScalar<kernel::AddScalarOp>, tensors[0],
                             toDouble(*constant));
            return addBinary(buildBinary<kernel::AddOp>, tensors[0],
                             tensors[1]);
          })
          .Case([&](arith::SubFOp) {
            if (!constant)
              return addBinary(buildBinary<kernel::SubOp>, tensors[0],
                               tensors[1]);
            // x - c == x + (-c) and c - x == (-x) + c exactly in IEEE
            // arithmetic; the negation is exact, so rounding it is too.
            double c = toDouble(*constant);
            if (!constantIsLhs)
              return addStep(buildScalar<kernel::AddScalarOp>, tensors[0], -c);
            unsigned negated = addStep(buildUnary<kernel::NegOp>, tensors[0]);
            return addStep(buildScalar<kernel::AddScalarOp>, negated, c);
          })
          .Case([&](arith::MulFOp mul) {
            if (constant)
              return addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                             toDouble(*constant));
            if (mul.getLhs() == mul.getRhs())
              return addStep(buildUnary<kernel::SquareOp>, tensors[0]);
            return addBinary(buildBinary<kernel::MulOp>, tensors[0],
                             tensors[1]);
          })
          .Case([&](arith::DivFOp) -> std::optional<unsigned> {
            if (!constant)
              return addBinary(buildBinary<kernel::DivOp>, tensors[0],
                               tensors[1]);
            // c / x (but for the sigmoid and rsqrt idioms above): exact,
            // the constant is the payload's.
            if (constantIsLhs)
              return addStep(buildConstantDividedBy, tensors[0],
                             toDouble(*constant));
            // x / c == x * (1 / c) exactly when 1 / c is exact.
            APFloat inverse(constant->getSemantics());
            if (constant->getExactInverse(&inverse))
              return addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                             toDouble(inverse));
            // A mean's x / n (torch-mlir's mean: a sum, then a division by
            // the count): x * (1.0 / n), within an ulp of the quotient, and
            // the same program over the verifier's field, which reads the
            // rounded 1/n as 1/n (mlsopt/Support/Constants.h).
            double c = toDouble(*constant);
            if (c >= 2 && c <= static_cast<double>(kMaxReciprocalDenominator) &&
                c == std::floor(c) && getRoundedReciprocal(1.0 / c))
              return addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                             1.0 / c);
            // Any other scale (attention scores / sqrt(128), whose
            // reciprocal is not exact): x * (1.0 / c) with the reciprocal
            // in f64, within an ulp of the quotient in the element type.
            // The verifier compares kernel programs, which share the
            // constant; only the comparison with the linalg program's
            // quotient is within an ulp.
            if (std::isfinite(1.0 / c) && 1.0 / c != 0.0)
              return addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                             1.0 / c);
            return std::nullopt;
          })
          // fma(a, b, c) is a * b + c, rounded twice where fma rounds once
          // (within an ulp).
          .Case([&](math::FmaOp fma) -> std::optional<unsigned> {
            if (scalars[0] && scalars[1])
              return std::nullopt;
            unsigned product =
                scalars[0] || scalars[1]
                    ? addStep(buildScalar<kernel::MulScalarOp>, tensors[0],
                              toDouble(scalars[0] ? *scalars[0] : *scalars[1]))
                : fma.getA() == fma.getB()
                    ? addStep(buildUnary<kernel::SquareOp>, tensors[0])
                    : addBinary(buildBinary<kernel::MulOp>, tensors[0],
                                tensors[1]);
            if (scalars[2])
              return addStep(buildScalar<kernel::AddScalarOp>, product,
                             toDouble(*scalars[2]));
            return addBinary(buildBinary<kernel::AddOp>, product,
                             tensors.back());
          })
          // maxnumf and minnumf (torch.fmax, torch.fmin) differ from
          // maximumf and minimumf only where one operand is NaN: they return
          // the other, where the kernel ops give NaN.
          .Case<arith::MaximumFOp, arith::MaxNumFOp>(
              [&](Operation *) -> std::optional<unsigned> {
                // max(x, +0.0) is relu(x); with another constant (a clamp's
                // lower bound) it is max_scalar; of two tensors
                // (torch.maximum), max.
                if (!constant)
                  return addBinary(buildBinary<kernel::MaxOp>, tensors[0],
                                   tensors[1]);
                if (constant->isPosZero())
                  return unary(buildUnary<kernel::ReluOp>);
                return addStep(buildScalar<kernel::MaxScalarOp>, tensors[0],
                               toDouble(*constant));
              })
          .Case<arith::MinimumFOp, arith::MinNumFOp>(
              [&](Operation *) -> std::optional<unsigned> {
                // A clamp's upper bound, or torch.minimum of two tensors.
                if (!constant)
                  return addBinary(buildBinary<kernel::MinOp>, tensors[0],
                                   tensors[1]);
                return addStep(buildScalar<kernel::MinScalarOp>, tensors[0],
                               toDouble(*constant));
              })
          .Default([&](Operation *) { return std::nullopt; });
  if (!kernelStep) {
    if (isa<arith::DivFOp>(payloadOp))
      return invalid("divides by a constant without a finite reciprocal");
    return invalid("has no kernel op");
  }
  return {*kernelStep, unrounded};
}

FailureOr<unsigned> PayloadPlanner::plan(Value root,
                                         BlockArgument accumulatorArg) {
  accumulator = accumulatorArg;
  Block *body = op.getBlock();
  // Only the ops `root` depends on are translated; the payload is one block
  // in SSA order, so a walk over the block sees operands first.
  SmallPtrSet<Operation *, 16> needed;
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body || !needed.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &payloadOp : body->without_terminator())
    if (needed.contains(&payloadOp) &&
        !payloadOp.hasTrait<OpTrait::ConstantLike>())
      planned[payloadOp.getResult(0)] = planOp(&payloadOp);

  if (getScalar(root))
    return rewriter.notifyMatchFailure(op, "payload yields a constant");
  PlannedValue result = getTensor(root);
  if (result.unrounded)
    return rewriter.notifyMatchFailure(op, "payload yields an f32 value");

  // Steps refer to earlier steps only: one backward sweep finds the ones the
  // result depends on.
  live.resize(steps.size());
  live.set(result.step);
  for (unsigned i = result.step + 1; i-- > 0;) {
    if (!live.test(i))
      continue;
    if (!steps[i].invalid.empty())
      return rewriter.notifyMatchFailure(op, steps[i].invalid);
    for (unsigned arg : steps[i].args)
      live.set(arg);
  }
  return result.step;
}

Value PayloadPlanner::emit(Location loc, unsigned root) {
  SmallVector<Value> values(root + 1);
  for (unsigned i = 0; i <= root; ++i) {
    if (!live.test(i))
      continue;
    const Step &step = steps[i];
    if (isOperandStep(step)) {
      OpOperand &operand = op->getOpOperand(step.operand);
      values[i] = readOperand(rewriter, loc, operand.get(),
                              op.getMatchingIndexingMap(&operand), loopOrder,
                              step.shape);
      continue;
    }
    SmallVector<Value, 2> args = llvm::map_to_vector(
        step.args, [&](unsigned arg) { return values[arg]; });
    if (step.where || step.intToFloat) {
      OpOperand &operand = op->getOpOperand(step.operand);
      auto floatType =
          cast<RankedTensorType>(operand.get().getType()).clone(elementType);
      Value mapped =
          step.where
              ? kernel::WhereOp::create(
                    rewriter, loc, floatType, operand.get(),
                    rewriter.getF64FloatAttr(step.where->first),
                    rewriter.getF64FloatAttr(step.where->second))
                    .getResult()
              : kernel::IntToFloatOp::create(rewriter, loc, floatType,
                                             operand.get(), *step.intToFloat)
                    .getResult();
      values[i] = readOperand(rewriter, loc, mapped,
                              op.getMatchingIndexingMap(&operand), loopOrder,
                              step.shape);
      continue;
    }
    if (step.triangle) {
      values[i] = kernel::TriangleFillOp::create(
          rewriter, loc, args[0],
          rewriter.getDenseI64ArrayAttr(
              {step.triangle->rows, step.triangle->cols}),
          rewriter.getI64IntegerAttr(step.triangle->diagonal),
          rewriter.getF64FloatAttr(step.scalar));
      continue;
    }
    values[i] = step.build(rewriter, loc, args, step.scalar);
  }
  return reshapeUnitDims(rewriter, loc, values[root], loopShape);
}

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

/// A `linalg.broadcast` that only adds dims, read by a kernel binary op
/// (`kernel.add`, `sub`, `mul`, `div`): the op reads the broadcast's input
/// with size-1 dims where the broadcast adds dims instead, and numpy
/// broadcasting stretches it as the broadcast did, provided the result shape
/// stays the same (the other operand has the full size along the added dims).
/// Elementwise linalg ops that read the broadcast become such kernel ops
/// first; the broadcast dies once no other op reads it, and stays for those
/// that do (a matmul, an op that does not convert).
template <typename OpTy>
struct BroadcastOperandToUnitDims : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    auto shapeOf = [](Value value) {
      return cast<RankedTensorType>(value.getType()).getShape();
    };
    for (OpOperand &operand : op->getOpOperands()) {
      auto broadcast =
          operand.get().template getDefiningOp<linalg::BroadcastOp>();
      if (!broadcast || !broadcast.hasPureTensorSemantics())
        continue;
      auto inputType =
          dyn_cast<RankedTensorType>(broadcast.getInput().getType());
      auto outputType = cast<RankedTensorType>(operand.get().getType());
      if (!inputType || !inputType.hasStaticShape() ||
          inputType.getElementType() != outputType.getElementType())
        continue;
      // The broadcast's result with size 1 along the dims it adds: its other
      // dims are the input's, in order.
      SmallVector<int64_t> shape(outputType.getShape());
      for (int64_t dim : broadcast.getDimensions())
        shape[dim] = 1;
      if (dropUnitDims(shape) != dropUnitDims(inputType.getShape()))
        continue;
      // Numpy broadcasting supplies leading size-1 dims, as for operands
      // read through a map: a bias `[n]` broadcast to `[m, n]` is used as is.
      while (shape.size() > static_cast<size_t>(inputType.getRank()) &&
             shape.front() == 1)
        shape.erase(shape.begin());
      Value other = op->getOperand(1 - operand.getOperandNumber());
      ShapeOrError broadcastShape =
          operand.getOperandNumber() == 0
              ? broadcastShapes(shape, shapeOf(other))
              : broadcastShapes(shapeOf(other), shape);
      if (!broadcastShape.ok() ||
          ArrayRef<int64_t>(broadcastShape.shape) != resultType.getShape())
        continue;
      Value input = reshapeUnitDims(rewriter, broadcast.getLoc(),
                                    broadcast.getInput(), shape);
      rewriter.modifyOpInPlace(op, [&] { operand.set(input); });
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "reads no linalg.broadcast that numpy broadcasting can replace");
  }
};

/// The dims of `shape` that are not 1, each with its position once numpy
/// broadcasting right-aligns `shape` into a result of rank `rank`.
static SmallVector<std::pair<int64_t, int64_t>>
alignedNonUnitDims(ArrayRef<int64_t> shape, int64_t rank) {
  SmallVector<std::pair<int64_t, int64_t>> dims;
  int64_t offset = rank - static_cast<int64_t>(shape.size());
  for (auto [i, size] : llvm::enumerate(shape))
    if (size != 1)
      dims.emplace_back(offset + static_cast<int64_t>(i), size);
  return dims;
}

/// A kernel binary op (`kernel.add`, `sub`, `mul`, `div`) that reads a
/// `tensor.collapse_shape` or `tensor.expand_shape` that only drops or adds
/// size-1 dims reads the reshape's source instead, when numpy broadcasting
/// puts every other dim of the source where it put the reshaped value's and
/// the result keeps its shape. A kernel reduction keeps its reduced dim, so a
/// softmax over dim 0 reads its statistics as `[1, n]`, reshaped to the
/// linalg type `[n]`; the reshape between two kernel ops would cut the
/// program into pieces the search cannot fuse and that the GPU pipeline
/// cannot launch.
template <typename OpTy>
struct ReshapedOperandToSource : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = resultType.getRank();
    auto shapeOf = [](Value value) {
      return cast<RankedTensorType>(value.getType()).getShape();
    };
    for (OpOperand &operand : op->getOpOperands()) {
      Operation *reshape = operand.get().getDefiningOp();
      if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
              reshape))
        continue;
      // An expand of rows to a batch of one ([s, h] to [1, s, h]) is left
      // to FlattenRows, which computes the op on the rows: read through here,
      // it left an op of mixed ranks whose other operand stayed 3-D, and the
      // search cut the program there.
      if (auto expand = dyn_cast<tensor::ExpandShapeOp>(reshape);
          expand && isRowsReshape(expand.getResultType().getShape(),
                                  expand.getReassociationIndices()))
        continue;
      Value source = reshape->getOperand(0);
      auto sourceType = dyn_cast<RankedTensorType>(source.getType());
      if (!sourceType || !sourceType.hasStaticShape() ||
          sourceType.getRank() > rank ||
          alignedNonUnitDims(sourceType.getShape(), rank) !=
              alignedNonUnitDims(shapeOf(operand.get()), rank))
        continue;
      Value other = op->getOperand(1 - operand.getOperandNumber());
      ShapeOrError broadcastShape =
          operand.getOperandNumber() == 0
              ? broadcastShapes(sourceType.getShape(), shapeOf(other))
              : broadcastShapes(shapeOf(other), sourceType.getShape());
      if (!broadcastShape.ok() ||
          ArrayRef<int64_t>(broadcastShape.shape) != resultType.getShape())
        continue;
      rewriter.modifyOpInPlace(op, [&] { operand.set(source); });
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "reads no unit-dim reshape that numpy broadcasting can replace");
  }
};

/// The collapse that `value` is, if it only drops size-1 dims of a static
/// kernel op result and is no collapse of rows (those are FlattenRows',
/// see ElementwiseBeforeReshape): a reduction's kept dim, which linalg
/// drops, between two kernel ops.
static tensor::CollapseShapeOp getUnitCollapseOfKernelResult(Value value) {
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || isRowsCollapse(collapse))
    return {};
  Operation *def = collapse.getSrc().getDefiningOp();
  if (!def || !isa<kernel::KernelDialect>(def->getDialect()) ||
      !collapse.getSrcType().hasStaticShape() ||
      dropUnitDims(collapse.getSrcType().getShape()) !=
          dropUnitDims(collapse.getResultType().getShape()))
    return {};
  return collapse;
}

/// A binary kernel op of a unit-dim collapse of a kernel op's result, at
/// the op's full shape, and of an operand that broadcasts to it (a mean over a
/// middle dim, [b, h] reshaped from the reduction's [b, h, 1], times a gain
/// [h]) computes on the reshape's source, the other operand reshaped
/// alike, and is reshaped after; ReshapedOperandToSource cannot read past
/// such a reshape, which numpy broadcasting does not undo ([h] against
/// [b, h, 1] is [b, h, h]). Left between the two kernel ops, the reshape
/// kept the product out of the reduction's kernel (a launch of its own).
template <typename OpTy>
struct BinaryBeforeUnitReshape : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> resultShape = resultType.getShape();
    int64_t rank = resultType.getRank();
    for (OpOperand &operand : op->getOpOperands()) {
      // A collapse only: the op then reads the other operand expanded, and
      // taking expands too would undo that again.
      tensor::CollapseShapeOp reshape =
          getUnitCollapseOfKernelResult(operand.get());
      if (!reshape || operand.get().getType() != resultType)
        continue;
      Value source = reshape.getSrc();
      auto sourceType = reshape.getSrcType();
      Value other = op->getOperand(1 - operand.getOperandNumber());
      ArrayRef<int64_t> otherShape =
          cast<RankedTensorType>(other.getType()).getShape();
      if (static_cast<int64_t>(otherShape.size()) > rank)
        continue;
      // The other operand's size along each result dim, right-aligned.
      SmallVector<int64_t> aligned(rank - otherShape.size(), 1);
      llvm::append_range(aligned, otherShape);
      if (llvm::any_of(llvm::zip(aligned, resultShape), [](auto sizes) {
            auto [size, full] = sizes;
            return size != full && size != 1;
          }))
        continue;
      // The same sizes along the source's dims: its dims larger than 1
      // are the result's, in order.
      SmallVector<int64_t> kept;
      for (auto [d, size] : llvm::enumerate(resultShape))
        if (size != 1)
          kept.push_back(aligned[d]);
      SmallVector<int64_t> onSource;
      auto next = kept.begin();
      for (int64_t size : sourceType.getShape())
        onSource.push_back(size == 1 ? 1 : *next++);
      Location loc = op.getLoc();
      Value reshaped = reshapeUnitDims(rewriter, loc, other, onSource);
      Value computed =
          operand.getOperandNumber() == 0
              ? OpTy::create(rewriter, loc, source, reshaped).getResult()
              : OpTy::create(rewriter, loc, reshaped, source).getResult();
      rewriter.replaceOp(op,
                         reshapeUnitDims(rewriter, loc, computed, resultShape));
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "reads no unit-dim collapse of a kernel op's full result");
  }
};

/// A reduction of a unit-dim collapse of a kernel op's result reduces the
/// collapse's source along the same dim and is reshaped after: a loss's
/// mean over rows of per-row values that a reduction kept as [n, 1] and
/// linalg reads as [n] (cross-entropy). Left between the two kernel ops,
/// the collapse kept the mean out of the kernels that compute the rows.
template <typename OpTy>
struct ReduceBeforeUnitCollapse : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    tensor::CollapseShapeOp collapse =
        getUnitCollapseOfKernelResult(op.getInput());
    if (!collapse)
      return rewriter.notifyMatchFailure(
          op, "reads no unit-dim collapse of a kernel op's result");
    Value source = collapse.getSrc();
    ArrayRef<int64_t> sourceShape = collapse.getSrcType().getShape();
    // The source dim of the reduced one: the one in its group larger than 1.
    ReassociationIndices group =
        collapse.getReassociationIndices()[op.getDim()];
    auto large =
        llvm::find_if(group, [&](int64_t d) { return sourceShape[d] != 1; });
    if (large == group.end())
      return rewriter.notifyMatchFailure(op, "reduces a size-1 dim");
    Value reduced = OpTy::create(rewriter, op.getLoc(), source, *large);
    rewriter.replaceOp(op, reshapeUnitDims(rewriter, op.getLoc(), reduced,
                                           op.getType().getShape()));
    return success();
  }
};

/// An elementwise kernel op (`kernel.exp`, `mul_scalar`, ...) of unit-dim
/// reshapes computes on the reshapes' sources and is reshaped after:
/// `mul_scalar(collapse(sum), 1/n)` is `collapse(mul_scalar(sum, 1/n))`.
/// The reshape moves towards the binary ops that read past it
/// (ReshapedOperandToSource), so none stays between two kernel ops. A binary
/// op moves when both operands are reshapes of one shape: a decode step's
/// [b, 1, n] gate and up projections, each [b, n] expanded with the size-1
/// dim in another group, which no broadcasting reads past.
struct ElementwiseBeforeReshape : public RewritePattern {
  ElementwiseBeforeReshape(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<kernel::KernelDialect>(op->getDialect()) ||
        !op->hasTrait<OpTrait::ElementwiseByIndex>() ||
        op->getNumOperands() == 0 || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 ||
        llvm::any_of(op->getOperandTypes(), [&](Type type) {
          return type != op->getResult(0).getType();
        }))
      return rewriter.notifyMatchFailure(op, "not an elementwise kernel op "
                                             "of operands of its shape");
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<Value> sources;
    for (Value operand : op->getOperands()) {
      Operation *reshape = operand.getDefiningOp();
      if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
              reshape))
        return rewriter.notifyMatchFailure(op, "reads other than a reshape");
      // A collapse of [1, seq, ...] to rows rises to the arguments instead
      // (FlattenRows); moving it down again would undo that forever.
      if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape);
          collapse && isRowsCollapse(collapse))
        return rewriter.notifyMatchFailure(op, "reads a collapse to rows");
      sources.push_back(reshape->getOperand(0));
    }
    auto sourceType = cast<RankedTensorType>(sources.front().getType());
    if (llvm::any_of(sources,
                     [&](Value v) { return v.getType() != sourceType; }) ||
        dropUnitDims(sourceType.getShape()) !=
            dropUnitDims(resultType.getShape()))
      return rewriter.notifyMatchFailure(op, "reads reshapes of other dims");
    Operation *computed = rewriter.clone(*op);
    rewriter.modifyOpInPlace(computed, [&] {
      computed->setOperands(sources);
      computed->getResult(0).setType(sourceType);
    });
    rewriter.replaceOp(op, reshapeUnitDims(rewriter, op->getLoc(),
                                           computed->getResult(0),
                                           resultType.getShape()));
    return success();
  }
};

/// A causal mask of a reshape whose groups keep the mask's rows and cols
/// whole (torch's [b, h, s, s] scores, expanded from the [b h, s, s] of a
/// batch matmul) is the mask of the reshape's source, reshaped: the mask
/// then sits beside the ops that compute and read the scores, where the
/// search fuses it, and an expand and collapse meeting around it fold.
struct TriangleFillBeforeReshape
    : public OpRewritePattern<kernel::TriangleFillOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::TriangleFillOp op,
                                PatternRewriter &rewriter) const override {
    Operation *reshape = op.getInput().getDefiningOp();
    SmallVector<ReassociationIndices> groups;
    Value source;
    if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(reshape)) {
      groups = expand.getReassociationIndices();
      source = expand.getSrc();
    } else if (auto collapse =
                   dyn_cast_or_null<tensor::CollapseShapeOp>(reshape)) {
      groups = collapse.getReassociationIndices();
      source = collapse.getSrc();
    } else {
      return rewriter.notifyMatchFailure(op, "does not read a reshape");
    }
    bool expands = isa<tensor::ExpandShapeOp>(reshape);
    // The mask's dims in the source: for an expand, the group that holds
    // the dim alone; for a collapse, the one source dim of its group.
    SmallVector<int64_t, 2> dims;
    for (int64_t d : op.getDims()) {
      for (auto [g, group] : llvm::enumerate(groups)) {
        if (expands ? !llvm::is_contained(group, d)
                    : g != static_cast<size_t>(d))
          continue;
        if (group.size() != 1)
          return rewriter.notifyMatchFailure(op, "the reshape merges a dim "
                                                 "of the mask with others");
        dims.push_back(expands ? static_cast<int64_t>(g) : group.front());
      }
    }
    Value masked = kernel::TriangleFillOp::create(
        rewriter, op.getLoc(), source, rewriter.getDenseI64ArrayAttr(dims),
        op.getDiagonalAttr(), op.getValueAttr());
    Operation *moved = rewriter.clone(*reshape);
    moved->setOperand(0, masked);
    rewriter.replaceOp(op, moved->getResults());
    return success();
  }
};

/// A collapse of a transpose whose every group of merged dims comes from
/// consecutive operand dims, in order, is the transpose of the collapsed
/// operand: torch's K^T of [b, h, s, d] scores, transposed [0, 1, 3, 2] and
/// collapsed to [b h, d, s] for a batch matmul, is the [0, 2, 1] transpose
/// of the collapsed K. The transpose then sits on the shape of the matmul
/// that reads it, and the search loads K transposed in the same kernel;
/// left on the 4-D shape, it was a launch of its own.
struct TransposeUnderCollapse
    : public OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getSrc().getDefiningOp<kernel::TransposeOp>();
    if (!transpose)
      return rewriter.notifyMatchFailure(op, "does not read a transpose");
    // Only towards a kernel op that reads the collapse: a collapse that a
    // function returns stays last, as the unit-dim patterns leave it, and
    // moving it up would put a reshape between two kernel ops.
    if (llvm::none_of(op->getUsers(), [](Operation *user) {
          return isa<kernel::KernelDialect>(user->getDialect());
        }))
      return rewriter.notifyMatchFailure(op, "no kernel op reads it");
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    SmallVector<ReassociationIndices> groups = op.getReassociationIndices();
    // The operand dims of each group, which must run on consecutively.
    SmallVector<std::pair<int64_t, size_t>> firsts;
    for (auto [g, group] : llvm::enumerate(groups)) {
      for (auto [i, d] : llvm::enumerate(group))
        if (permutation[d] !=
            permutation[group.front()] + static_cast<int64_t>(i))
          return rewriter.notifyMatchFailure(
              op, "a group merges dims that are not consecutive in the "
                  "operand");
      firsts.emplace_back(permutation[group.front()], g);
    }
    // Operand groups in operand order; result group g is operand group
    // newPermutation[g].
    llvm::sort(firsts);
    SmallVector<ReassociationIndices> operandGroups;
    SmallVector<int64_t> newPermutation(groups.size());
    for (auto [position, first] : llvm::enumerate(firsts)) {
      const ReassociationIndices &group = groups[first.second];
      ReassociationIndices operandGroup;
      for (auto i : llvm::seq<int64_t>(0, group.size()))
        operandGroup.push_back(first.first + i);
      operandGroups.push_back(std::move(operandGroup));
      newPermutation[first.second] = static_cast<int64_t>(position);
    }
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, op.getLoc(), transpose.getInput(), operandGroups);
    rewriter.replaceOpWithNewOp<kernel::TransposeOp>(op, collapsed,
                                                     newPermutation);
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

void mlsopt::populateReshapeCompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<ComposeReassociativeReshapeOps<tensor::CollapseShapeOp,
                                              ReshapeOpKind::kCollapse>,
               ComposeReassociativeReshapeOps<tensor::ExpandShapeOp,
                                              ReshapeOpKind::kExpand>,
               ComposeExpandOfCollapseOp<tensor::ExpandShapeOp,
                                         tensor::CollapseShapeOp>>(
      patterns.getContext());
}

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
  patterns.add<FlattenedRowsToMatmul, ReductionToKernel, ElementwiseToKernel,
               BroadcastOperandToUnitDims<kernel::AddOp>,
               BroadcastOperandToUnitDims<kernel::SubOp>,
               BroadcastOperandToUnitDims<kernel::MulOp>,
               BroadcastOperandToUnitDims<kernel::DivOp>,
               BroadcastOperandToUnitDims<kernel::MaxOp>,
               BroadcastOperandToUnitDims<kernel::MinOp>,
               ReshapedOperandToSource<kernel::AddOp>,
               ReshapedOperandToSource<kernel::SubOp>,
               ReshapedOperandToSource<kernel::MulOp>,
               ReshapedOperandToSource<kernel::DivOp>,
               ReshapedOperandToSource<kernel::MaxOp>,
               ReshapedOperandToSource<kernel::MinOp>,
               BinaryBeforeUnitReshape<kernel::AddOp>,
               BinaryBeforeUnitReshape<kernel::SubOp>,
               BinaryBeforeUnitReshape<kernel::MulOp>,
               BinaryBeforeUnitReshape<kernel::DivOp>,
               BinaryBeforeUnitReshape<kernel::MaxOp>,
               BinaryBeforeUnitReshape<kernel::MinOp>,
               ReduceBeforeUnitCollapse<kernel::ReduceSumOp>,
               ReduceBeforeUnitCollapse<kernel::ReduceMaxOp>,
               ElementwiseBeforeReshape, TriangleFillBeforeReshape,
               TransposeUnderCollapse, DecomposeSoftmax>(patterns.getContext());
  // Chains of reshapes between a reduction and its readers (a batch of one:
  // [1, s, 1] collapsed to [1, s], to [s], expanded to [s, 1]) become one
  // reshape, which the readers then see through (ReshapedOperandToSource);
  // left as chains, they cut a batch-1 attention into four kernels.
  populateReshapeCompositionPatterns(patterns);
  populateMixedPrecisionPatterns(patterns);
  populateBroadcastOperandPatterns(patterns);
  populateFlattenRowsPatterns(patterns);
  populateConcatToKernelPatterns(patterns);
  populateSplitResultsPatterns(patterns);
  populateIndexTablePatterns(patterns);
  populateActivationIdiomPatterns(patterns);
  populateConstantFillPatterns(patterns);
  populateFactoredContractionPatterns(patterns);
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
