//===- MixedPrecision.cpp - Casts out of mixed-precision linalg ops -------===//
//
// Front ends compute f16 and bf16 programs partly in f32: torch-mlir extends
// a softmax's or a norm's input to f32 and truncates the result back; IREE
// and JAX accumulate an f16 matmul into an f32 result. Kernel ops have one
// element type, so these linalg ops are split here, exactly, into
// `kernel.convert`s and linalg ops of one element type each, which the other
// patterns of --convert-linalg-to-kernel then import:
//
// - an input read only through `arith.extf` (or only through
//   `arith.truncf`) becomes a `kernel.convert` of the input, read directly
//   (named ops with such inputs, a mixed-precision `linalg.matmul`, are
//   generalized first), and a generic that only casts its input is that
//   conversion;
// - in an all-parallel op, an `arith.truncf` (or `arith.extf`) of a value
//   computed in the payload becomes a generic that computes that value in
//   its own type, a `kernel.convert` of it, and an input that reads the
//   result;
// - a matmul or reduction of extended values, rounded back, is the kernel op
//   on the narrow values (which accumulates in f32 and rounds once);
// - conversions move across reshapes towards the kernel op they meet: after
//   the op that computes their operand, before the op that reads their
//   result (a flattened-rows matmul's), so the search sees them together.
//
// The patterns have a lower benefit than the import's, so an f16 payload
// that extends, computes one op and truncates (one kernel op, rounded once)
// is imported as that op, as before.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// A static tensor of a kernel element type.
bool isKernelTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         isSupportedElementType(tensor.getElementType());
}

/// True if `op` reads, writes or computes in more than one float type (an
/// f16 op whose payload computes in f32, say).
bool mixesElementTypes(linalg::LinalgOp op) {
  llvm::SmallSetVector<Type, 2> types;
  for (Value operand : op->getOperands())
    if (auto tensor = dyn_cast<RankedTensorType>(operand.getType()))
      types.insert(tensor.getElementType());
  if (op->getNumRegions() == 1)
    op->getRegion(0).walk([&](Operation *payloadOp) {
      for (Type type : payloadOp->getResultTypes())
        if (isa<FloatType>(type))
          types.insert(type);
    });
  return types.size() > 1;
}

/// The input block argument of `op` that the payload only casts (each use
/// an `arith.extf` or `arith.truncf` to one type), with that type, if there
/// is one.
std::optional<std::pair<unsigned, Type>> findCastInput(linalg::GenericOp op) {
  Block *body = op.getBody();
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isKernelTensor(input->get().getType()))
      continue;
    BlockArgument arg = body->getArgument(input->getOperandNumber());
    Type to;
    bool onlyCast = !arg.use_empty();
    for (Operation *user : arg.getUsers()) {
      bool isCast = isa<arith::ExtFOp>(user) ||
                    (isa<arith::TruncFOp>(user) &&
                     !cast<arith::TruncFOp>(user).getRoundingmode());
      if (!isCast || !isSupportedElementType(user->getResult(0).getType()) ||
          (to && user->getResult(0).getType() != to)) {
        onlyCast = false;
        break;
      }
      to = user->getResult(0).getType();
    }
    if (onlyCast)
      return std::make_pair(input->getOperandNumber(), to);
  }
  return std::nullopt;
}

/// A linalg op with mixed element types, generalized so that the pattern
/// below can take its inputs' extensions out.
struct GeneralizeMixedNamedOp
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  GeneralizeMixedNamedOp(MLIRContext *context)
      : OpInterfaceRewritePattern(context, /*benefit=*/0) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp>(op) || !op.hasPureTensorSemantics() ||
        !mixesElementTypes(op) ||
        !llvm::all_of(op->getOperandTypes(), isKernelTensor))
      return rewriter.notifyMatchFailure(op, "not a mixed-precision named op");
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return rewriter.notifyMatchFailure(op, "cannot be generalized");
    return success();
  }
};

/// Replaces an input that the payload only casts by a kernel.convert of it,
/// read directly. A generic left copying that input is the conversion.
struct ConvertCastInput : public OpRewritePattern<linalg::GenericOp> {
  ConvertCastInput(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/0) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !mixesElementTypes(op))
      return rewriter.notifyMatchFailure(op, "not a mixed-precision generic");
    std::optional<std::pair<unsigned, Type>> found = findCastInput(op);
    if (!found)
      return rewriter.notifyMatchFailure(op, "no input is only cast");
    auto [index, to] = *found;
    OpOperand &input = op->getOpOperand(index);
    auto type = cast<RankedTensorType>(input.get().getType());
    rewriter.setInsertionPoint(op);
    Value converted = kernel::ConvertOp::create(rewriter, op.getLoc(),
                                                type.clone(to), input.get());
    // A copy of the whole input (a front end's cast op): the conversion.
    Block *body = op.getBody();
    BlockArgument arg = body->getArgument(index);
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    if (op->getNumResults() == 1 && op.getNumReductionLoops() == 0 &&
        yield.getOperand(0).getDefiningOp() &&
        llvm::is_contained(arg.getUsers(),
                           yield.getOperand(0).getDefiningOp()) &&
        op.getMatchingIndexingMap(&input).isIdentity() &&
        op.getIndexingMapsArray().back().isIdentity() &&
        op->getResult(0).getType() == converted.getType()) {
      rewriter.replaceOp(op, converted);
      return success();
    }
    rewriter.modifyOpInPlace(op, [&] {
      input.set(converted);
      arg.setType(to);
    });
    for (Operation *castOp : llvm::make_early_inc_range(arg.getUsers()))
      rewriter.replaceOp(castOp, arg);
    return success();
  }
};

/// In an all-parallel generic with one identity-mapped result, computes the
/// value an `arith.truncf` rounds (or an `arith.extf` widens: a bf16 scale of
/// attention scores extended to f32 for the softmax, as Hugging Face writes
/// it) in a generic of its own, converts that, and reads the conversion in
/// place of the cast.
struct OutlineConversion : public OpRewritePattern<linalg::GenericOp> {
  OutlineConversion(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/0) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
        op.getNumReductionLoops() != 0 ||
        !op.getIndexingMapsArray().back().isIdentity() ||
        !mixesElementTypes(op))
      return rewriter.notifyMatchFailure(
          op, "not an all-parallel mixed-precision generic");
    // A `linalg.index` (a causal mask's) is cloned with the ops that read
    // it: the outlined generic has the op's loops, so it reads the same.
    Block *body = op.getBody();
    BlockArgument outArg = body->getArguments().back();
    Operation *conversion = nullptr;
    for (Operation &candidate : body->without_terminator()) {
      if (!isa<arith::TruncFOp, arith::ExtFOp>(candidate) ||
          !isSupportedElementType(candidate.getResult(0).getType()) ||
          !isSupportedElementType(candidate.getOperand(0).getType()) ||
          isa<BlockArgument>(candidate.getOperand(0)))
        continue;
      conversion = &candidate;
      break;
    }
    if (!conversion)
      return rewriter.notifyMatchFailure(op,
                                         "no conversion of a computed value");
    Value converted = conversion->getOperand(0);
    Type convertedTo = conversion->getResult(0).getType();

    // What the converted value reads: it must not be the output.
    Slice source = sliceOf(body, converted, nullptr);
    if (source.args.contains(outArg))
      return rewriter.notifyMatchFailure(op, "the converted value reads the "
                                             "output");

    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.setInsertionPoint(op);
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         converted.getType());
    linalg::GenericOp outlined =
        buildGeneric(rewriter, op, source, converted, init, {});
    Value rounded = kernel::ConvertOp::create(
        rewriter, loc, resultType.clone(convertedTo), outlined.getResult(0));

    // A conversion that is the result: the kernel.convert replaces the op.
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    if (yield.getOperand(0) == conversion->getResult(0) &&
        convertedTo == resultType.getElementType()) {
      rewriter.replaceOp(op, rounded);
      return success();
    }
    // Otherwise the op reads the kernel.convert as one more input, in place
    // of the cast, and keeps only what its result still reads.
    Slice rest = sliceOf(body, yield.getOperand(0), conversion);
    linalg::GenericOp replacement = buildGeneric(
        rewriter, op, rest, yield.getOperand(0), op.getDpsInits()[0],
        {{conversion->getResult(0), rounded}});
    rewriter.replaceOp(op, replacement.getResults());
    return success();
  }

private:
  /// The payload ops and block arguments `root` depends on, stopping at
  /// `stop` (whose result becomes an input).
  struct Slice {
    llvm::SetVector<Operation *> ops;
    llvm::SetVector<BlockArgument> args;
  };
  static Slice sliceOf(Block *body, Value root, Operation *stop) {
    Slice slice;
    SmallVector<Value> worklist{root};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() == body)
          slice.args.insert(arg);
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (def == stop || def->getBlock() != body || slice.ops.contains(def))
        continue;
      slice.ops.insert(def);
      llvm::append_range(worklist, def->getOperands());
    }
    return slice;
  }

  /// A generic over `op`'s loops that reads the inputs of `slice` (and the
  /// `extra` values, each in place of a payload value, through the output's
  /// identity map), computes `slice`'s ops and yields `root` into `init`.
  static linalg::GenericOp
  buildGeneric(PatternRewriter &rewriter, linalg::GenericOp op,
               const Slice &slice, Value root, Value init,
               ArrayRef<std::pair<Value, Value>> extra) {
    Block *body = op.getBody();
    BlockArgument outArg = body->getArguments().back();
    AffineMap outMap = op.getIndexingMapsArray().back();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    SmallVector<Value> replaced;
    for (OpOperand *input : op.getDpsInputOperands())
      if (slice.args.contains(body->getArgument(input->getOperandNumber()))) {
        inputs.push_back(input->get());
        maps.push_back(op.getMatchingIndexingMap(input));
        replaced.push_back(body->getArgument(input->getOperandNumber()));
      }
    for (auto [payloadValue, tensor] : extra) {
      inputs.push_back(tensor);
      maps.push_back(outMap);
      replaced.push_back(payloadValue);
    }
    maps.push_back(outMap);
    return linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{init.getType()}, inputs,
        ValueRange{init}, maps, op.getIteratorTypesArray(),
        [&](OpBuilder &b, Location nested, ValueRange args) {
          IRMapping mapping;
          for (auto [old, now] : llvm::zip(replaced, args.drop_back()))
            mapping.map(old, now);
          mapping.map(outArg, args.back());
          // Payload order: operands are cloned before their users.
          for (Operation &payloadOp : body->without_terminator())
            if (slice.ops.contains(&payloadOp))
              b.clone(payloadOp, mapping);
          linalg::YieldOp::create(b, nested, mapping.lookupOrDefault(root));
        });
  }
};

/// A matmul or reduction of f16 (bf16) values extended to f32, rounded back
/// to f16 (bf16) and read nowhere else, is the kernel op on the f16 values:
/// kernel ops accumulate f16 and bf16 in f32 and round once. (An extension
/// is exact, and so is the f32 product of two extended values.)
struct NarrowAccumulation : public OpRewritePattern<kernel::ConvertOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::ConvertOp convert,
                                PatternRewriter &rewriter) const override {
    Operation *op = convert.getInput().getDefiningOp();
    if (!isa_and_nonnull<kernel::MatmulOp, kernel::ReduceSumOp,
                         kernel::ReduceMaxOp>(op) ||
        !op->hasOneUse())
      return rewriter.notifyMatchFailure(convert, "not a rounded accumulation");
    // Extended to f32 and rounded back, not the other way round: an f32
    // product of values rounded to f16 keeps both roundings.
    Type narrow = convert.getType().getElementType();
    if (!(narrow.isF16() || narrow.isBF16()) ||
        !cast<RankedTensorType>(op->getResult(0).getType())
             .getElementType()
             .isF32())
      return rewriter.notifyMatchFailure(convert,
                                         "does not round an f32 result to "
                                         "f16 or bf16");
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      auto extended = operand.getDefiningOp<kernel::ConvertOp>();
      if (!extended || extended.getInput().getType().getElementType() != narrow)
        return rewriter.notifyMatchFailure(
            convert, "an operand is not extended from the result's type");
      operands.push_back(extended.getInput());
    }
    rewriter.replaceOp(
        convert,
        mlir::clone(rewriter, op, convert.getType(), operands)->getResults());
    return success();
  }
};

/// True if `value` is computed by a kernel op other than a conversion.
bool isKernelComputed(Value value) {
  Operation *def = value.getDefiningOp();
  return def && isa_and_nonnull<kernel::KernelDialect>(def->getDialect()) &&
         !isa<kernel::ConvertOp>(def);
}

/// A conversion of a reshape of a kernel op's result (an imported
/// reduction's result in the rank linalg gave it) converts the reshaped
/// tensor instead, so that the conversion meets the op that computes it.
struct ConvertBeforeReshape : public OpRewritePattern<kernel::ConvertOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::ConvertOp convert,
                                PatternRewriter &rewriter) const override {
    Operation *reshape = convert.getInput().getDefiningOp();
    if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
            reshape) ||
        !reshape->hasOneUse() || !isKernelComputed(reshape->getOperand(0)))
      return rewriter.notifyMatchFailure(convert, "does not convert a reshape "
                                                  "of a kernel op's result");
    // A collapse to rows of a value that FlattenRows computes on rows rises
    // past the conversion to it (FlattenOpUnderCollapse); moving it back
    // would never end.
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape);
        collapse && isRowsCollapse(collapse) &&
        flattensOnRows(collapse.getSrc().getDefiningOp()))
      return rewriter.notifyMatchFailure(convert, "FlattenRows moves it");
    Type narrow = convert.getType().getElementType();
    auto source = cast<RankedTensorType>(reshape->getOperand(0).getType());
    Value converted =
        kernel::ConvertOp::create(rewriter, convert.getLoc(),
                                  source.clone(narrow), reshape->getOperand(0));
    rewriter.replaceOp(
        convert, mlir::clone(rewriter, reshape, convert.getType(), converted)
                     ->getResults());
    return success();
  }
};

/// A reshape of a conversion of a value no kernel op computes (a function
/// argument whose rows a flattened-rows matmul reads) reshapes first and
/// converts after, so that the conversion meets the op that reads it.
/// (ConvertBeforeReshape takes the other side: the two never apply to the
/// same conversion.)
struct ConvertAfterReshape : public RewritePattern {
  ConvertAfterReshape(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *reshape,
                                PatternRewriter &rewriter) const override {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(reshape))
      return rewriter.notifyMatchFailure(reshape, "not a reshape");
    auto convert = reshape->getOperand(0).getDefiningOp<kernel::ConvertOp>();
    if (!convert || !convert->hasOneUse() ||
        isKernelComputed(convert.getInput()))
      return rewriter.notifyMatchFailure(
          reshape, "does not reshape a conversion of an input");
    auto resultType = cast<RankedTensorType>(reshape->getResult(0).getType());
    Type narrow = convert.getInput().getType().getElementType();
    rewriter.setInsertionPoint(reshape);
    Operation *moved = mlir::clone(rewriter, reshape, resultType.clone(narrow),
                                   convert.getInput());
    rewriter.replaceOpWithNewOp<kernel::ConvertOp>(reshape, resultType,
                                                   moved->getResult(0));
    return success();
  }
};

} // namespace

void mlsopt::populateMixedPrecisionPatterns(RewritePatternSet &patterns) {
  patterns.add<GeneralizeMixedNamedOp, ConvertCastInput, OutlineConversion,
               NarrowAccumulation, ConvertBeforeReshape, ConvertAfterReshape>(
      patterns.getContext());
}
