//===- EvaluatorCompile.cpp - Compiling programs for the field evaluator -===//
//
// FieldEvaluator::Impl's compilation of a function into instructions over
// tensor slots, with the forward analysis (residues mod q, degree bounds)
// and the backward one (which values' q-parts some exp needs).
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "mlsopt/Support/UnsupportedOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::verify;
using namespace mlsopt::verify::detail;

namespace {

/// A fresh variable: the value of exp, rsqrt or a random function.
Degree freshDegree() { return {1, 0}; }

/// A square root: the inverse of the fresh variable that stands for its
/// reciprocal. The model takes root values as independent uniform field
/// elements (docs/verification.md, "The false-positive bound"), so their
/// inverses are as good a choice of variables, and the better one: the
/// programs normalize by 1/rms, and a variable in each denominator summed
/// over a matmul's k, which the bound cannot see is shared, multiplied
/// the degree by k at every layer (two RMSNorm + MLP layers had a bound
/// past 2^62, which no test count reaches).
Degree rootDegree() { return {0, 1}; }

Degree addDegree(Degree a, Degree b) {
  if (a.den == 0 && b.den == 0)
    return {std::max(a.num, b.num), 0};
  return {std::max(satAdd(a.num, b.den), satAdd(b.num, a.den)),
          satAdd(a.den, b.den)};
}
Degree mulDegree(Degree a, Degree b) {
  return {satAdd(a.num, b.num), satAdd(a.den, b.den)};
}
Degree divDegree(Degree a, Degree b) {
  return {satAdd(a.num, b.den), satAdd(a.den, b.num)};
}
/// A sum of `count` terms of degree `term` (terms with denominators may not
/// share them).
Degree sumDegree(Degree term, int64_t count) {
  if (term.den == 0 || count <= 1)
    return term;
  return {satAdd(term.num, satMul(count - 1, term.den)),
          satMul(count, term.den)};
}

/// Calls `fn` with `op` cast to whichever of the kernel-level and block-level
/// classes of one computation it is; false if it is neither.
template <typename KernelOp, typename BlockOp, typename Fn>
bool matchEither(Operation &op, Fn &&fn) {
  if (auto typed = dyn_cast<KernelOp>(op)) {
    fn(typed);
    return true;
  }
  if (auto typed = dyn_cast<BlockOp>(op)) {
    fn(typed);
    return true;
  }
  return false;
}

} // namespace

unsigned FieldEvaluator::Impl::newSlot(ArrayRef<int64_t> shape) {
  shapes.emplace_back(shape.begin(), shape.end());
  hasResidueQ.push_back(true);
  degrees.push_back({});
  return shapes.size() - 1;
}

unsigned FieldEvaluator::Impl::newSlot(Value value, ArrayRef<int64_t> shape) {
  unsigned slot = newSlot(shape);
  slotOf[value] = slot;
  return slot;
}

FailureOr<ArrayRef<int64_t>> FieldEvaluator::Impl::tensorShape(Operation *op,
                                                               Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return op->emitError("the finite-field evaluator needs statically "
                         "shaped tensors, got ")
           << value.getType();
  // Slots are dense; refuse what could not be allocated.
  std::optional<int64_t> n = int64_t(1);
  for (int64_t s : type.getShape())
    n = n ? llvm::checkedMul(*n, s) : std::nullopt;
  if (!n || *n > (int64_t(1) << 31))
    return op->emitError("tensor of type ")
           << type << " is too large for the finite-field evaluator";
  return type.getShape();
}

LogicalResult FieldEvaluator::Impl::compileFunction() {
  Block &entry = func.getBody().front();
  // A linalg op the import did not take is the cause to report, rather
  // than the constant or the fill of its init before it.
  Operation *leftover = nullptr;
  for (Operation &op : entry)
    if (isa<linalg::LinalgOp>(op) &&
        !isa<linalg::BroadcastOp, linalg::FillOp>(op)) {
      leftover = &op;
      break;
    }
  if (leftover)
    return leftover->emitError("the finite-field evaluator does not support '")
           << leftover->getName()
           << "' (--convert-linalg-to-kernel did not import it)";
  for (BlockArgument arg : entry.getArguments()) {
    FailureOr<ArrayRef<int64_t>> shape = tensorShape(func, arg);
    if (failed(shape))
      return failure();
    unsigned slot = newSlot(arg, *shape);
    degrees[slot] = {1, 0};
    argumentSlots.push_back(slot);
  }
  if (failed(compileBlock(entry, program, /*elementShape=*/std::nullopt)))
    return failure();
  for (unsigned slot : resultSlots)
    resultDegrees.push_back(degrees[slot].total());
  return success();
}

LogicalResult FieldEvaluator::Impl::compileBlock(
    Block &block, std::vector<Instr> &out,
    std::optional<ArrayRef<int64_t>> elementShape) {
  for (Operation &op : block) {
    Instr instr;
    instr.op = &op;
    FailureOr<bool> emitted = compileOp(op, instr, elementShape);
    if (failed(emitted))
      return failure();
    if (*emitted)
      out.push_back(std::move(instr));
  }
  return success();
}

LogicalResult FieldEvaluator::Impl::addResults(
    Operation &op, Instr &instr,
    std::optional<ArrayRef<int64_t>> elementShape) {
  for (Value result : op.getResults()) {
    if (elementShape) {
      instr.results.push_back(newSlot(result, *elementShape));
      continue;
    }
    FailureOr<ArrayRef<int64_t>> shape = tensorShape(&op, result);
    if (failed(shape))
      return failure();
    instr.results.push_back(newSlot(result, *shape));
  }
  return success();
}

FailureOr<bool>
FieldEvaluator::Impl::compileOp(Operation &op, Instr &instr,
                                std::optional<ArrayRef<int64_t>> elementShape) {
  // A broadcast's init (a tensor.empty) gives its shape only.
  SmallVector<Value> operands(op.getOperands());
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op))
    operands = {broadcast.getInput()};
  if (isa<tensor::EmptyOp>(op) && llvm::all_of(op.getUsers(), [](auto *u) {
        return isa<linalg::BroadcastOp>(u);
      }))
    return false;
  for (Value operand : operands) {
    auto it = slotOf.find(operand);
    if (it == slotOf.end())
      return op.emitError("the finite-field evaluator cannot find the "
                          "definition of an operand");
    instr.operands.push_back(it->second);
  }

  if (isa<func::ReturnOp>(op)) {
    resultSlots.assign(instr.operands.begin(), instr.operands.end());
    return false;
  }
  if (isa<block::ReturnOp, block::YieldOp, thread::YieldOp>(op))
    return false;
  if (auto custom = dyn_cast<kernel::CustomOp>(op))
    return compileCustom(custom, instr);
  if (auto loop = dyn_cast<block::ForLoopOp>(op))
    return compileForLoop(loop, instr);
  if (auto graph = dyn_cast<thread::GraphOp>(op))
    return compileThreadGraph(graph, instr);
  if (auto load = dyn_cast<block::LoadOp>(op)) {
    instr.cls = OpClass::Load;
    instr.gridMap = load.getImap().getGridToTensorDims();
    instr.loopDim = load.getFmap();
    instr.iterations = load.getLoopIterations();
    if (load.getOffsets())
      instr.windowOffsets = load.getWindowOffsets();
    if (load.hasRaggedTiles())
      instr.limits = load.getWindowEnds();
    if (failed(addResults(op, instr, elementShape)))
      return failure();
    forward(instr, degrees[instr.operands[0]]);
    return true;
  }
  if (auto store = dyn_cast<block::StoreOp>(op)) {
    instr.cls = OpClass::Store;
    instr.gridMap = store.getOmap().getGridToTensorDims();
    if (store.hasRaggedTiles())
      instr.limits = llvm::to_vector(
          cast<RankedTensorType>(store.getDest().getType()).getShape());
    unsigned tile = instr.operands[0], dest = instr.operands[1];
    hasResidueQ[dest] = hasResidueQ[tile];
    degrees[dest] = degrees[tile];
    return true;
  }

  if (failed(classifyCompute(op, instr)))
    return failure();
  if (failed(addResults(op, instr, elementShape)) ||
      failed(analyzeCompute(instr)))
    return failure();
  return true;
}

LogicalResult FieldEvaluator::Impl::setBinary(Instr &instr,
                                              thread::BinaryKind kind) {
  if (kind == thread::BinaryKind::max || kind == thread::BinaryKind::min) {
    instr.cls = OpClass::PairFunction;
    instr.function = binaryFunctionId(kind == thread::BinaryKind::min);
    return success();
  }
  instr.cls = OpClass::Binary;
  instr.binary = kind;
  return success();
}

LogicalResult FieldEvaluator::Impl::classifyCompute(Operation &op,
                                                    Instr &instr) {
  auto scalarOf = [&](double value) -> LogicalResult {
    std::optional<FieldElement> c =
        fieldConstant(value, constantExtents, constantRoundingType);
    if (!c)
      return op.emitError("the constant ")
             << value << " has no finite-field image";
    instr.scalar = *c;
    return success();
  };
  if (auto unary = dyn_cast<thread::UnaryOp>(op)) {
    instr.cls = OpClass::Unary;
    instr.unary = unary.getKind();
    return success();
  }
  if (auto binary = dyn_cast<thread::BinaryOp>(op))
    return setBinary(instr, binary.getKind());
  if (isa_and_nonnull<kernel::KernelDialect, block::BlockDialect,
                      thread::ThreadDialect>(op.getDialect()) &&
      isScalarOpName(op.getName().stripDialect())) {
    StringRef name = op.getName().stripDialect();
    auto scalar = op.getAttrOfType<FloatAttr>("scalar");
    if (!scalar)
      return op.emitError("scalar op without a 'scalar' attribute");
    // max and min need no field image of their constant: it only keys
    // their random function.
    if (std::optional<uint64_t> function =
            scalarFunctionId(name, scalar.getValueAsDouble())) {
      instr.cls = OpClass::ScalarFunction;
      instr.function = *function;
      return success();
    }
    instr.cls = name == "mul_scalar" ? OpClass::MulScalar : OpClass::AddScalar;
    return scalarOf(scalar.getValueAsDouble());
  }
  if (isa<kernel::MatmulOp, block::MatmulOp>(op)) {
    instr.cls = OpClass::Matmul;
    return success();
  }
  double fillValue = 0;
  if (matchEither<kernel::TriangleFillOp, block::TriangleFillOp>(
          op, [&](auto fill) {
            instr.triangleDims = {fill.getDims()[0], fill.getDims()[1]};
            instr.diagonal = fill.getDiagonal();
            fillValue = fill.getValue().convertToDouble();
          })) {
    instr.cls = OpClass::TriangleFill;
    if (auto fill = dyn_cast<block::TriangleFillOp>(op)) {
      instr.gridMap = fill.getImap().getGridToTensorDims();
      instr.loopDim = fill.getFmap();
    }
    instr.scalar =
        fieldFillConstant(fillValue, constantExtents, constantRoundingType);
    return success();
  }
  if (isa<kernel::WhereOp, block::WhereOp, thread::WhereOp>(op)) {
    // The constants as a fill's (fieldFillConstant): -inf, the usual
    // on_false of a mask, has an image.
    instr.cls = OpClass::Where;
    auto constant = [&](StringRef name) {
      return fieldFillConstant(
          op.getAttrOfType<FloatAttr>(name).getValueAsDouble(), constantExtents,
          constantRoundingType);
    };
    instr.scalar = constant("on_true");
    instr.otherScalar = constant("on_false");
    return success();
  }
  auto setDim = [&](OpClass cls) {
    return [&instr, cls](auto typed) {
      instr.cls = cls;
      instr.dim = typed.getDim();
    };
  };
  if (matchEither<kernel::ReduceSumOp, block::ReduceSumOp>(
          op, setDim(OpClass::ReduceSum)) ||
      matchEither<kernel::ReduceMaxOp, block::ReduceMaxOp>(
          op, setDim(OpClass::ReduceMax)) ||
      matchEither<kernel::ConcatOp, block::ConcatOp>(op,
                                                     setDim(OpClass::Concat)))
    return success();
  double epsilon = 0;
  if (matchEither<kernel::RmsNormOp, block::RmsNormOp>(op, [&](auto norm) {
        epsilon = norm.getEpsilon().convertToDouble();
        instr.dim = norm.getNormalizedDim();
      })) {
    instr.cls = OpClass::RmsNorm;
    return scalarOf(epsilon);
  }
  // A collapse or expand keeps the elements in row-major order (a kernel
  // reduction's result reshaped to the type a front end gave it).
  // A conversion between float types keeps every element's value, up to
  // the rounding the field does not model (as for every float op).
  // An integer made a float is the integer: its residue, as an input's.
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, kernel::ConvertOp,
          block::ConvertOp, thread::ConvertOp, kernel::IntToFloatOp,
          block::IntToFloatOp, thread::IntToFloatOp>(op)) {
    instr.cls = OpClass::Reshape;
    return success();
  }
  if (isa<tensor::ExtractSliceOp, linalg::BroadcastOp>(op))
    return classifyGather(op, instr);
  if (matchEither<kernel::TransposeOp, block::TransposeOp>(
          op, [&](auto transpose) {
            instr.permutation.assign(transpose.getPermutation().begin(),
                                     transpose.getPermutation().end());
          })) {
    instr.cls = OpClass::Transpose;
    return success();
  }
  // The remaining elementwise kernel and block ops share their mnemonics
  // with the thread kinds (one list in TensorOps.td).
  if (isa_and_nonnull<kernel::KernelDialect, block::BlockDialect>(
          op.getDialect())) {
    StringRef name = op.getName().stripDialect();
    if (std::optional<thread::UnaryKind> kind =
            thread::symbolizeUnaryKind(name);
        kind && op.getNumOperands() == 1) {
      instr.cls = OpClass::Unary;
      instr.unary = *kind;
      return success();
    }
    if (std::optional<thread::BinaryKind> kind =
            thread::symbolizeBinaryKind(name);
        kind && op.getNumOperands() == 2) {
      return setBinary(instr, *kind);
    }
  }
  Operation *cause = getUnsupportedCause(&op);
  return cause->emitError("the finite-field evaluator does not support '")
         << cause->getName() << "'" << describeUnsupported(cause);
}

LogicalResult FieldEvaluator::Impl::classifyGather(Operation &op,
                                                   Instr &instr) {
  ArrayRef<int64_t> source = shapes[instr.operands[0]];
  SmallVector<int64_t> own(source.size(), 1);
  for (int64_t d = static_cast<int64_t>(source.size()) - 2; d >= 0; --d)
    own[d] = own[d + 1] * source[d + 1];
  instr.cls = OpClass::Gather;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
        !slice.getStrides().empty())
      return op.emitError("the finite-field evaluator needs static "
                          "offsets, sizes and strides");
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    for (auto [d, offset, stride] :
         llvm::enumerate(slice.getStaticOffsets(), slice.getStaticStrides())) {
      instr.gatherBase += offset * own[d];
      if (!dropped.test(d))
        instr.gatherStrides.push_back(stride * own[d]);
    }
    return success();
  }
  auto broadcast = cast<linalg::BroadcastOp>(op);
  if (!broadcast.hasPureTensorSemantics())
    return op.emitError("the finite-field evaluator needs tensors");
  ArrayRef<int64_t> added = broadcast.getDimensions();
  int64_t rank = broadcast.getInit().getType().getRank();
  for (int64_t d = 0, next = 0; d < rank; ++d)
    instr.gatherStrides.push_back(llvm::is_contained(added, d) ? 0
                                                               : own[next++]);
  return success();
}

void FieldEvaluator::Impl::forward(Instr &instr, Degree degree,
                                   ExponentImage image) {
  bool q = image == ExponentImage::Own ||
           (image == ExponentImage::FromOperands &&
            llvm::all_of(instr.operands,
                         [&](unsigned s) { return hasResidueQ[s]; }));
  for (unsigned r : instr.results) {
    hasResidueQ[r] = q;
    degrees[r] = degree;
  }
}

LogicalResult FieldEvaluator::Impl::analyzeCompute(Instr &instr) {
  auto in = [&](unsigned i) { return degrees[instr.operands[i]]; };
  switch (instr.cls) {
  case OpClass::Unary: {
    using thread::UnaryKind;
    Degree d = in(0);
    if (instr.unary == UnaryKind::exp) {
      if (!hasResidueQ[instr.operands[0]])
        return instr.op->emitError(
            "the argument of exp has no value mod q: it depends on another "
            "exp (the program is not LAX), so it cannot be verified over "
            "finite fields");
      exponentDegree = std::max(exponentDegree, d.total());
    }
    Degree result = instr.unary == UnaryKind::neg      ? d
                    : instr.unary == UnaryKind::square ? mulDegree(d, d)
                    : instr.unary == UnaryKind::sqrt   ? rootDegree()
                                                       : freshDegree();
    forward(instr, result,
            isLaxUnary(instr.unary)            ? ExponentImage::FromOperands
            : hasExponentFunction(instr.unary) ? ExponentImage::Own
                                               : ExponentImage::None);
    return success();
  }
  case OpClass::Binary: {
    switch (instr.binary) {
    case thread::BinaryKind::add:
    case thread::BinaryKind::sub:
      forward(instr, addDegree(in(0), in(1)));
      break;
    case thread::BinaryKind::mul:
      forward(instr, mulDegree(in(0), in(1)));
      break;
    case thread::BinaryKind::div:
      forward(instr, divDegree(in(0), in(1)));
      break;
    case thread::BinaryKind::max:
    case thread::BinaryKind::min:
      llvm_unreachable("max and min are pair functions");
    }
    return success();
  }
  case OpClass::MulScalar:
    forward(instr, in(0));
    return success();
  case OpClass::AddScalar:
    forward(instr, {std::max(in(0).num, in(0).den), in(0).den});
    return success();
  case OpClass::ScalarFunction:
  case OpClass::PairFunction:
    // A random function, as log or tanh: a fresh variable in both fields.
    forward(instr, freshDegree(), ExponentImage::Own);
    return success();
  case OpClass::Matmul:
    forward(instr, sumDegree(mulDegree(in(0), in(1)),
                             shapes[instr.operands[0]].back()));
    return success();
  case OpClass::ReduceSum:
    forward(instr, sumDegree(in(0), shapes[instr.operands[0]][instr.dim]));
    return success();
  case OpClass::ReduceMax:
    // max picks one of its operands.
    hasMaxSelection = true;
    forward(instr, in(0));
    return success();
  case OpClass::RmsNorm:
    // x times a fresh variable, 1/rms (rootDegree), in both fields: mod q
    // the variable is the inverse of sqrt's random function of the mean
    // square mod p.
    forward(instr, mulDegree(in(0), freshDegree()));
    return success();
  case OpClass::TriangleFill:
    // Each element is x's or a constant: no degree above x's.
    forward(instr, in(0));
    return success();
  case OpClass::Where:
    // Affine in the mask's element.
    forward(instr, {std::max(in(0).num, in(0).den), in(0).den});
    return success();
  case OpClass::Concat: {
    Degree d;
    for (unsigned i = 0; i < instr.operands.size(); ++i)
      d = {std::max(d.num, in(i).num), std::max(d.den, in(i).den)};
    forward(instr, d);
    return success();
  }
  case OpClass::Transpose:
  case OpClass::Gather:
  case OpClass::Reshape:
    forward(instr, in(0));
    return success();
  default:
    llvm_unreachable("not a compute op");
  }
}

FailureOr<bool> FieldEvaluator::Impl::compileCustom(kernel::CustomOp custom,
                                                    Instr &instr) {
  instr.cls = OpClass::Custom;
  for (unsigned g = 0; g < 3; ++g)
    instr.grid[g] = custom.getGrid().getSize(g);
  if (failed(addResults(*custom, instr, std::nullopt)))
    return failure();
  // The region's arguments are the kernel's inputs and outputs: loads read
  // the operands' slots, stores write the results'.
  for (unsigned i = 0; i < custom.getInputs().size(); ++i)
    alias(custom.getInputArgument(i), instr.operands[i]);
  for (unsigned i = 0; i < custom.getOutputs().size(); ++i)
    alias(custom.getOutputArgument(i), instr.results[i]);
  if (failed(compileBlock(custom.getBody().front(), instr.body, std::nullopt)))
    return failure();
  return true;
}

FailureOr<bool> FieldEvaluator::Impl::compileForLoop(block::ForLoopOp loop,
                                                     Instr &instr) {
  instr.cls = OpClass::ForLoop;
  instr.iterations = loop.getIterations();
  for (unsigned i = 0; i < loop.getNumResults(); ++i)
    instr.accumulators.push_back(loop.getAccumulator(i));
  if (failed(addResults(*loop, instr, std::nullopt)))
    return failure();
  Block &body = loop.getBody().front();
  if (failed(compileBlock(body, instr.body, std::nullopt)))
    return failure();
  auto yield = cast<block::YieldOp>(body.getTerminator());
  for (Value v : yield.getValues())
    instr.yields.push_back(slotOf.lookup(v));
  if (instr.yields.size() != instr.results.size())
    return loop.emitError("the loop yields ")
           << instr.yields.size() << " values for " << instr.results.size()
           << " accumulators";

  int64_t n = instr.iterations;
  for (unsigned j = 0; j < instr.results.size(); ++j) {
    unsigned result = instr.results[j], yielded = instr.yields[j];
    if (shapes[result] != shapes[yielded])
      return loop.emitError("accumulator ")
             << j << " yields a different shape than its result";
    Degree d = degrees[yielded];
    block::AccumulatorAttr acc = instr.accumulators[j];
    switch (acc.getKind()) {
    case block::AccumKind::sum:
    case block::AccumKind::mean:
      hasResidueQ[result] = hasResidueQ[yielded];
      degrees[result] = sumDegree(d, n);
      break;
    case block::AccumKind::max:
      hasMaxSelection = true;
      hasResidueQ[result] = hasResidueQ[yielded];
      degrees[result] = d;
      break;
    case block::AccumKind::rms:
      // sqrt of the mean square (rootDegree), whose residue mod q is
      // sqrt's random function of the mean mod p.
      hasResidueQ[result] = true;
      degrees[result] = rootDegree();
      break;
    case block::AccumKind::rescale: {
      std::optional<int64_t> k = acc.getScaleBy();
      if (!k || *k < 0 || *k >= static_cast<int64_t>(instr.results.size()) ||
          instr.accumulators[*k].getKind() != block::AccumKind::max)
        return loop.emitError("accumulator ")
               << j << " rescales by an accumulator that is not a max";
      unsigned maxSlot = instr.yields[*k];
      if (!hasResidueQ[maxSlot])
        return loop.emitError("accumulator ")
               << j << " rescales by exp of a maximum that has no value "
               << "mod q (the program is not LAX), so it cannot be "
                  "verified over finite fields";
      if (failed(checkBroadcastable(loop, shapes[maxSlot], shapes[result])))
        return failure();
      // exp(m_i - M): a difference of two maxima.
      exponentDegree =
          std::max(exponentDegree, satMul(2, degrees[maxSlot].total()));
      hasResidueQ[result] = false;
      degrees[result] = sumDegree(mulDegree(d, freshDegree()), n);
      break;
    }
    }
  }
  return true;
}

LogicalResult FieldEvaluator::Impl::checkBroadcastable(Operation *op,
                                                       ArrayRef<int64_t> from,
                                                       ArrayRef<int64_t> to) {
  bool ok = from.size() <= to.size();
  for (size_t j = 0; ok && j < from.size(); ++j) {
    int64_t s = from[j], t = to[to.size() - from.size() + j];
    ok = s == t || s == 1;
  }
  if (!ok)
    return op->emitError("shape ")
           << formatShape(from) << " does not broadcast to " << formatShape(to);
  return success();
}

FailureOr<bool> FieldEvaluator::Impl::compileThreadGraph(thread::GraphOp graph,
                                                         Instr &instr) {
  instr.cls = OpClass::ThreadGraph;
  if (graph.getNumResults() == 0)
    return graph.emitError("a thread graph without results");
  FailureOr<ArrayRef<int64_t>> resultShape =
      tensorShape(graph, graph.getResult(0));
  if (failed(resultShape))
    return failure();
  SmallVector<int64_t, 4> shape(resultShape->begin(), resultShape->end());
  Block &body = graph.getBody().front();
  for (auto [operand, arg] :
       llvm::zip_equal(graph.getInputs(), body.getArguments())) {
    unsigned slot = slotOf.lookup(operand);
    if (ArrayRef<int64_t>(shapes[slot]) == ArrayRef<int64_t>(shape)) {
      alias(arg, slot);
      continue;
    }
    if (failed(checkBroadcastable(graph, shapes[slot], shape)))
      return failure();
    unsigned argSlot = newSlot(arg, shape);
    hasResidueQ[argSlot] = hasResidueQ[slot];
    degrees[argSlot] = degrees[slot];
    instr.broadcasts.push_back({slot, argSlot});
  }
  if (failed(compileBlock(body, instr.body, ArrayRef<int64_t>(shape))))
    return failure();
  // The results are the yielded values: they share their slots.
  auto yield = cast<thread::YieldOp>(body.getTerminator());
  for (auto [result, value] :
       llvm::zip_equal(graph.getResults(), yield.getValues())) {
    FailureOr<ArrayRef<int64_t>> s = tensorShape(graph, result);
    if (failed(s))
      return failure();
    if (*s != ArrayRef<int64_t>(shape))
      return graph.emitError("thread graph results of different shapes");
    unsigned slot = slotOf.lookup(value);
    alias(result, slot);
    instr.results.push_back(slot);
  }
  return true;
}

void FieldEvaluator::Impl::markNeeds(std::vector<Instr> &instrs) {
  auto needed = [&](const Instr &instr) {
    return llvm::any_of(instr.results,
                        [&](unsigned r) { return needsQ[r] != 0; });
  };
  auto needOperands = [&](const Instr &instr) {
    for (unsigned s : instr.operands)
      needsQ[s] = true;
  };
  for (Instr &instr : llvm::reverse(instrs)) {
    switch (instr.cls) {
    case OpClass::Unary:
      if (instr.unary == thread::UnaryKind::exp ||
          (isLaxUnary(instr.unary) && needed(instr)))
        needOperands(instr);
      break;
    case OpClass::Binary:
    case OpClass::MulScalar:
    case OpClass::AddScalar:
    case OpClass::Matmul:
    case OpClass::ReduceSum:
    case OpClass::ReduceMax:
    case OpClass::Concat:
    case OpClass::TriangleFill:
    case OpClass::Where:
    case OpClass::Transpose:
    case OpClass::Gather:
    case OpClass::Reshape:
    case OpClass::Load:
      if (needed(instr))
        needOperands(instr);
      break;
    case OpClass::RmsNorm:
      // x's q-part times the scale's, which reads the row mod p only.
      if (needed(instr))
        needOperands(instr);
      break;
    case OpClass::Return:
    case OpClass::ScalarFunction:
    case OpClass::PairFunction:
      // A random function reads its operands mod p only.
      break;
    case OpClass::Store:
      if (needsQ[instr.operands[1]])
        needsQ[instr.operands[0]] = true;
      break;
    case OpClass::Custom:
      markNeeds(instr.body);
      break;
    case OpClass::ForLoop:
      // A rescale needs its maximum's running value and yields mod q.
      for (block::AccumulatorAttr acc : instr.accumulators)
        if (acc.getKind() == block::AccumKind::rescale) {
          needsQ[instr.results[*acc.getScaleBy()]] = true;
          needsQ[instr.yields[*acc.getScaleBy()]] = true;
        }
      // rms reads its values mod p only.
      for (unsigned j = 0; j < instr.results.size(); ++j) {
        block::AccumKind kind = instr.accumulators[j].getKind();
        if ((kind == block::AccumKind::sum || kind == block::AccumKind::mean ||
             kind == block::AccumKind::max) &&
            needsQ[instr.results[j]])
          needsQ[instr.yields[j]] = true;
      }
      markNeeds(instr.body);
      break;
    case OpClass::ThreadGraph:
      markNeeds(instr.body);
      for (auto [operand, arg] : instr.broadcasts)
        if (needsQ[arg])
          needsQ[operand] = true;
      break;
    }
  }
}
