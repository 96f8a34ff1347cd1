//===- VerifyEquivalence.cpp - Check functions against their reference ----===//

#include "LeftoverOpCuts.h"

#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/ExecutionEngine/CPURunner.h"
#include "mlsopt/Support/ScalarArguments.h"
#include "mlsopt/Transforms/Passes.h"
#include "mlsopt/Verify/EvaluationWork.h"
#include "mlsopt/Verify/Evaluator.h"
#include "mlsopt/Verify/FieldJIT.h"
#include "mlsopt/Verify/FiniteField.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

#define DEBUG_TYPE "verify-equivalence"

namespace mlsopt {
#define GEN_PASS_DEF_VERIFYEQUIVALENCE
#include "mlsopt/Transforms/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

/// "1.2e-17": a probability (or ratio) in three significant digits.
static std::string formatProbability(double probability) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.3g", probability);
  return s;
}

/// f16 and bf16 become f32, in tensors and as scalars.
static Type widenToF32(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(widenToF32(tensor.getElementType()));
  if (type.isF16() || type.isBF16())
    return Float32Type::get(type.getContext());
  return type;
}

/// A module holding copies of `func` and `reference` that compute in f32:
/// mlsopt's ops are generic over the element type, so retyping every value
/// (and dropping the conversions) is enough.
static OwningOpRef<ModuleOp> widenedCopy(func::FuncOp func,
                                         func::FuncOp reference) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  for (func::FuncOp f : {func, reference}) {
    auto copy = cast<func::FuncOp>(b.clone(*f));
    copy->removeAttr(MLSOptDialect::kEquivalentToAttrName);
    copy.walk([](Operation *op) {
      for (Value result : op->getResults())
        result.setType(widenToF32(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(widenToF32(arg.getType()));
    });
    // A constant's value is retyped with it: an f16 weight's elements are
    // exact in f32.
    copy.walk([](arith::ConstantOp constant) {
      auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
      if (!dense || dense.getType() == constant.getType())
        return;
      auto type = cast<ShapedType>(constant.getType());
      constant.setValueAttr(
          dense.mapValues(type.getElementType(), [&](const APFloat &value) {
            APFloat wide = value;
            bool lost;
            wide.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                         &lost);
            return wide.bitcastToAPInt();
          }));
    });
    // In f32 every conversion is from f32 to f32: no conversion at all.
    copy.walk([](mlsopt::kernel::ConvertOp convert) {
      convert.getResult().replaceAllUsesWith(convert.getInput());
      convert.erase();
    });
    copy.setFunctionType(FunctionType::get(
        f.getContext(),
        llvm::map_to_vector(copy.getArgumentTypes(), widenToF32),
        llvm::map_to_vector(copy.getResultTypes(), widenToF32)));
  }
  return module;
}

/// Standard normal samples from a seeded splitmix stream (Box-Muller), the
/// same on every platform.
static HostTensor normalTensor(ArrayRef<int64_t> shape,
                               verify::FieldRandom &random) {
  HostTensor t = HostTensor::zeros(shape);
  auto uniform = [&] {
    return (static_cast<double>(random.next() >> 11) + 0.5) * 0x1.0p-53;
  };
  for (float &x : t.data)
    x = static_cast<float>(std::sqrt(-2.0 * std::log(uniform())) *
                           std::cos(2.0 * M_PI * uniform()));
  return t;
}

/// A boolean mask (or integers) of fair coin flips, as the 0 and 1 floats
/// CPURunner takes for it.
static HostTensor maskTensor(ArrayRef<int64_t> shape,
                             verify::FieldRandom &random) {
  HostTensor t = HostTensor::zeros(shape);
  for (float &x : t.data)
    x = static_cast<float>(random.next() >> 63);
  return t;
}

/// A 0-d integer tensor (a scalar argument: a count, a length) as a value
/// from 1 to 16, which a program may divide by, where a mask's coin flip
/// would divide by zero half the time.
static HostTensor countTensor(verify::FieldRandom &random) {
  HostTensor t = HostTensor::zeros({});
  t.data[0] = static_cast<float>(1 + (random.next() >> 60));
  return t;
}

/// Copies of `func` and `reference` in `scratch` whose tensor constants
/// (weights a front end inlined as `arith.constant`) are arguments, appended
/// to both in one order: the same constant is the same argument in both,
/// and one the other function lacks is an argument it does not read. The
/// field programs then draw random values for them, as for every input, so
/// an equal verdict holds for any value of the weights, which covers the
/// values the functions hold (the search too treats them as inputs).
/// Returns null copies when neither function holds such a constant.
static std::pair<func::FuncOp, func::FuncOp>
copyWithConstantsAsArguments(func::FuncOp func, func::FuncOp reference,
                             ModuleOp scratch) {
  auto isTensorConstant = [](arith::ConstantOp op) {
    return isa<RankedTensorType>(op.getType());
  };
  // A constant and a reshape of it hold the same elements in the same
  // order (the search writes a bias [n] it aligns with an [m, n] operand
  // as a new constant [1, n]): both are one argument, of the flat type,
  // which each function reshapes to its constants' types. Attributes are
  // uniqued, so equal flat values are the same attribute.
  auto keyOf = [](Attribute value) -> Attribute {
    auto dense = dyn_cast<DenseElementsAttr>(value);
    if (!dense)
      return value;
    ShapedType type = dense.getType();
    return dense.reshape(
        RankedTensorType::get({type.getNumElements()}, type.getElementType()));
  };
  SmallVector<Attribute> constants;
  llvm::DenseMap<Attribute, unsigned> indexOf;
  for (func::FuncOp f : {reference, func})
    f.walk([&](arith::ConstantOp op) {
      if (!isTensorConstant(op))
        return;
      Attribute key = keyOf(op.getValue());
      if (indexOf.try_emplace(key, constants.size()).second)
        constants.push_back(key);
    });
  if (constants.empty())
    return {};
  OpBuilder b(scratch.getBodyRegion());
  auto copy = [&](func::FuncOp f) {
    auto clone = cast<func::FuncOp>(b.clone(*f));
    unsigned first = clone.getNumArguments();
    SmallVector<unsigned> indices(constants.size(), first);
    SmallVector<Type> types;
    for (Attribute value : constants)
      types.push_back(cast<TypedAttr>(value).getType());
    SmallVector<DictionaryAttr> attrs(constants.size());
    SmallVector<Location> locs(constants.size(), clone.getLoc());
    (void)clone.insertArguments(indices, types, attrs, locs);
    SmallVector<arith::ConstantOp> tensorConstants;
    clone.walk([&](arith::ConstantOp op) {
      if (isTensorConstant(op))
        tensorConstants.push_back(op);
    });
    for (arith::ConstantOp op : tensorConstants) {
      Value argument =
          clone.getArgument(first + indexOf.lookup(keyOf(op.getValue())));
      auto type = cast<RankedTensorType>(op.getType());
      if (argument.getType() != type) {
        OpBuilder at(op);
        SmallVector<ReassociationIndices> all;
        if (type.getRank() > 0)
          all.push_back(llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
        argument = type.getRank() == 0
                       ? Value(tensor::CollapseShapeOp::create(
                             at, op.getLoc(), type, argument, all))
                       : Value(tensor::ExpandShapeOp::create(
                             at, op.getLoc(), type, argument, all));
      }
      op.replaceAllUsesWith(argument);
      op.erase();
    }
    return clone;
  };
  return {copy(func), copy(reference)};
}

/// Calls nested deeper than this are taken for recursion.
constexpr unsigned kMaxInlinedCalls = 1024;

/// The context's threads, or null under --mlir-disable-threading: what the
/// checks below share their work with. Their results do not depend on it.
static llvm::ThreadPoolInterface *getThreads(MLIRContext *context) {
  return context->isMultithreadingEnabled() ? &context->getThreadPool()
                                            : nullptr;
}

/// A copy of `func` in `scratch` in which every func.call is replaced by the
/// body of the function it calls, and so on for calls in those bodies: both
/// engines compile the ops of one function. Null when `func` calls nothing.
/// A call of a function without a body, or calls nested without end, are
/// errors at the call.
static FailureOr<func::FuncOp>
copyWithCallsInlined(func::FuncOp func, SymbolTableCollection &symbols,
                     ModuleOp scratch) {
  auto firstCall = [](func::FuncOp f) {
    func::CallOp call;
    f.walk([&](func::CallOp c) {
      call = c;
      return WalkResult::interrupt();
    });
    return call;
  };
  if (!firstCall(func))
    return func::FuncOp();
  OpBuilder b = OpBuilder::atBlockEnd(scratch.getBody());
  auto copy = cast<func::FuncOp>(b.clone(*func));
  // The scratch module holds no reference for the link to name.
  copy->removeAttr(MLSOptDialect::kEquivalentToAttrName);
  for (unsigned inlined = 0;; ++inlined) {
    func::CallOp call = firstCall(copy);
    if (!call)
      return copy;
    auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        func, call.getCalleeAttr());
    if (!callee || callee.isExternal() || !callee.getBody().hasOneBlock())
      return call.emitError("verify-equivalence: cannot evaluate the call "
                            "of @")
             << call.getCallee()
             << ": it is not a function of one block in this module";
    if (inlined == kMaxInlinedCalls)
      return call.emitError("verify-equivalence: calls nest more than ")
             << kMaxInlinedCalls << " deep (a recursive call?)";
    Block &body = callee.getBody().front();
    IRMapping mapping;
    mapping.map(body.getArguments(), call.getOperands());
    b.setInsertionPoint(call);
    for (Operation &op : body.without_terminator())
      b.clone(op, mapping);
    for (auto [result, value] :
         llvm::zip(call.getResults(), body.getTerminator()->getOperands()))
      result.replaceAllUsesWith(mapping.lookupOrDefault(value));
    call.erase();
  }
}

namespace {

struct VerifyEquivalencePass
    : mlsopt::impl::VerifyEquivalenceBase<VerifyEquivalencePass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    SymbolTable symbols(getOperation());
    bool ok = true;
    getOperation().walk([&](func::FuncOp func) {
      auto ref = func->getAttrOfType<FlatSymbolRefAttr>(
          MLSOptDialect::kEquivalentToAttrName);
      if (!ref)
        return;
      // The mlsopt dialect's verifier has checked that @ref is a function of
      // the same type.
      auto reference = symbols.lookup<func::FuncOp>(ref.getValue());
      if (!reference || failed(check(func, reference)))
        ok = false;
    });
    if (!ok)
      signalPassFailure();
  }

  /// Options out of their range are an error up front: a bound of 2 was
  /// reported as a degree too large for the field, and a NaN tolerance
  /// would have silenced every f32 warning.
  LogicalResult checkOptions() {
    ModuleOp module = getOperation();
    if (!(bound > 0 && bound < 1))
      return module.emitError("verify-equivalence: bound must be a "
                              "probability above 0 and below 1, not ")
             << bound;
    if (!(f32Tolerance >= 0) || !std::isfinite(f32Tolerance))
      return module.emitError("verify-equivalence: f32-tolerance must be a "
                              "finite number >= 0, not ")
             << f32Tolerance;
    if (maxElements < 0)
      return module.emitError("verify-equivalence: max-elements must be >= "
                              "0, not ")
             << maxElements.getValue();
    if (maxWork < 0)
      return module.emitError("verify-equivalence: max-work must be >= 0, "
                              "not ")
             << maxWork.getValue();
    return success();
  }

  LogicalResult check(func::FuncOp func, func::FuncOp reference) {
    // A function --superoptimize left as it was (keep-reference=true still
    // links it to its copy) is its reference op for op: nothing to test,
    // however large its tensors.
    if (OperationEquivalence::isRegionEquivalentTo(
            &func.getBody(), &reference.getBody(),
            OperationEquivalence::IgnoreLocations)) {
      func.emitRemark("@") << func.getSymName() << " is equivalent to @"
                           << reference.getSymName()
                           << ": the same program, op for op";
      return success();
    }
    // Calls are evaluated as the bodies they call.
    OwningOpRef<ModuleOp> inlined = ModuleOp::create(func.getLoc());
    SymbolTableCollection symbols;
    FailureOr<func::FuncOp> funcInlined =
        copyWithCallsInlined(func, symbols, *inlined);
    FailureOr<func::FuncOp> referenceInlined =
        copyWithCallsInlined(reference, symbols, *inlined);
    if (failed(funcInlined) || failed(referenceInlined))
      return failure();
    if (*funcInlined)
      func = *funcInlined;
    if (*referenceInlined)
      reference = *referenceInlined;
    // Both engines and the f32 run take a scalar argument as the 0-d
    // tensor the import reads it as, drawn at random like any input.
    OwningOpRef<ModuleOp> scalarsAsTensors = ModuleOp::create(func.getLoc());
    if (hasScalarArguments(func)) {
      OpBuilder b = OpBuilder::atBlockEnd(scalarsAsTensors->getBody());
      func = cast<func::FuncOp>(b.clone(*func));
      reference = cast<func::FuncOp>(b.clone(*reference));
      passScalarArgumentsAsTensors(func);
      passScalarArgumentsAsTensors(reference);
    }
    // The f32 check runs the functions whole.
    func::FuncOp whole = func, wholeReference = reference;
    // Linalg ops the import left, the same in both, are compared at their
    // operands (LeftoverOpCuts.h).
    OwningOpRef<ModuleOp> cuts = ModuleOp::create(func.getLoc());
    std::optional<LeftoverOpCuts> cut = cutLeftoverOps(func, reference, *cuts);
    if (cut) {
      func = cut->func;
      reference = cut->reference;
    }
    // Both programs run at full shapes, with field elements of 16 bytes
    // (p- and q-parts): a program too large for memory is refused before
    // the first allocation, not killed by the operating system.
    uint64_t elements =
        llvm::SaturatingAdd(verify::countEvaluatedElements(func),
                            verify::countEvaluatedElements(reference));
    if (elements > uint64_t(maxElements)) {
      // In MiB below a GiB: 208 elements are not "about 1 GiB".
      uint64_t bytes = llvm::SaturatingMultiply(elements, uint64_t(16));
      bool gib = bytes >= (uint64_t(1) << 30);
      uint64_t amount = bytes / (uint64_t(1) << (gib ? 30 : 20)) + 1;
      return func.emitError("@")
             << func.getSymName() << " vs @" << reference.getSymName()
             << ": checking at full shapes needs about " << elements
             << " tensor elements in memory, more than max-elements="
             << int64_t(maxElements)
             << "; raise max-elements if the machine has about " << amount
             << (gib ? " GiB" : " MiB") << " to spare";
    }

    // Memory is not all: a long loop over a small tile, or a huge matmul,
    // is refused rather than left to run for hours.
    uint64_t work = llvm::SaturatingAdd(verify::countEvaluationWork(func),
                                        verify::countEvaluationWork(reference));
    if (work > uint64_t(maxWork))
      return func.emitError("@")
             << func.getSymName() << " vs @" << reference.getSymName()
             << ": one test takes about " << work
             << " field operations, more than max-work=" << int64_t(maxWork)
             << "; raise max-work to run it anyway";
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(func.getLoc());
    auto [lhsFunc, rhsFunc] =
        copyWithConstantsAsArguments(func, reference, *scratch);
    FailureOr<verify::FieldEvaluator> lhs =
        verify::FieldEvaluator::create(lhsFunc ? lhsFunc : func);
    FailureOr<verify::FieldEvaluator> rhs =
        verify::FieldEvaluator::create(rhsFunc ? rhsFunc : reference);
    if (failed(lhs) || failed(rhs))
      return failure();
    // The context's threads share the evaluator's large ops.
    lhs->setThreadPool(getThreads(func.getContext()));
    rhs->setThreadPool(getThreads(func.getContext()));

    uint64_t degree = verify::getComparisonDegree(*lhs, *rhs);
    unsigned count = tests;
    if (count == 0) {
      std::optional<unsigned> needed =
          verify::testsForFalsePositiveBound(bound, degree);
      if (!needed)
        return func.emitError("cannot reach a false-positive bound of ")
               << bound << " against @" << reference.getSymName()
               << ": the programs' degree bound " << degree
               << " is too large for the field; pass tests=N";
      count = *needed;
    }
    LLVM_DEBUG(llvm::dbgs() << "@" << func.getSymName() << " vs @"
                            << reference.getSymName() << ": degree " << degree
                            << ", " << count << " tests\n");

    FailureOr<verify::FieldComparison> comparison =
        engine == VerifyEngine::JIT
            ? compareJIT(*lhs, *rhs, count)
            : verify::compareInField(*lhs, *rhs, count, seed);
    if (failed(comparison))
      return failure();

    StringRef name = func.getSymName(), refName = reference.getSymName();
    switch (comparison->verdict) {
    case verify::FieldVerdict::Different: {
      InFlightDiagnostic error = whole.emitError("@");
      error << name << " is not equivalent to @" << refName << ": ";
      if (comparison->result >= whole.getNumResults())
        error << "a tensor that "
              << (cut->numSlices ? "an op the field does not evaluate"
                                 : "a linalg op the import left")
              << " reads (cut result #" << comparison->result << ")";
      else
        error << "result #" << comparison->result;
      error << " differs at flat element " << comparison->index
            << " in random test " << comparison->test << " ("
            << comparison->lhsValue << " vs " << comparison->rhsValue
            << " mod p)";
      // Cut out, an op's results are fresh random tensors in both: a pair
      // that moves one (which the search does not) differs here even where
      // it is equal.
      if (cut)
        error.attachNote()
            << "compared with " << cut->numCut
            << (cut->numCut == 1 ? " op" : " ops")
            << " the field does not evaluate cut out at the same places in "
               "both, their results drawn at random";
      return error;
    }
    case verify::FieldVerdict::Inconclusive:
      return func.emitError("@")
             << name << " vs @" << refName
             << ": a random test divided by a zero residue, so it proves "
                "nothing; rerun with another seed";
    case verify::FieldVerdict::Equal:
      break;
    }
    double perTest = verify::falsePositiveProbabilityPerTest(degree);
    double probability = std::pow(perTest, comparison->tests);
    InFlightDiagnostic remark = whole.emitRemark("@");
    remark << name << " is equivalent to @" << refName << ": equal on "
           << comparison->tests
           << (comparison->tests == 1 ? " random test" : " random tests")
           << " over GF(p); "
           << "false-positive probability <= " << formatProbability(probability);
    if (lhs->hasMaxSelection() || rhs->hasMaxSelection())
      remark << " (max ops are outside this bound: see docs/verification.md)";
    if (cut) {
      unsigned linalgOps = cut->numCut - cut->numSlices;
      remark << "; ";
      if (linalgOps)
        remark << linalgOps << (linalgOps == 1 ? " linalg op" : " linalg ops")
               << " the import left";
      if (linalgOps && cut->numSlices)
        remark << " and ";
      if (cut->numSlices)
        remark << cut->numSlices
               << (cut->numSlices == 1 ? " slice at a run-time offset"
                                       : " slices at run-time offsets");
      remark << ", the same in both, compared at "
             << (cut->numCut == 1 ? "its" : "their") << " operands";
    }
    remark.report();
    if (f32Check)
      checkInF32(whole, wholeReference);
    return success();
  }

  /// The comparison of compareInField, on the JIT-compiled programs of both
  /// functions. The evaluators have checked the programs and tell which
  /// inputs need q-parts, so both engines draw the same inputs.
  FailureOr<verify::FieldComparison> compareJIT(verify::FieldEvaluator &lhs,
                                                verify::FieldEvaluator &rhs,
                                                unsigned count) {
    func::FuncOp func = lhs.getFunction(), reference = rhs.getFunction();
    FailureOr<std::unique_ptr<verify::FieldJIT>> jit =
        verify::FieldJIT::create({func, reference});
    if (failed(jit))
      return failure();
    SmallVector<bool> withExponents;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      withExponents.push_back(lhs.needsInputExponents(i) ||
                              rhs.needsInputExponents(i));
    // The JIT-compiled program reads zeros past a ragged tile's end; a
    // test retried with random padding there runs on the evaluator.
    auto run = [&](unsigned function) {
      return [&, function](ArrayRef<verify::FieldTensor> inputs,
                           const verify::FieldOptions &options) {
        if (options.paddingSeed)
          return (function == 0 ? lhs : rhs).evaluate(inputs, options);
        return (*jit)->evaluate(function, inputs, options);
      };
    };
    auto runLhs = run(0), runRhs = run(1);
    // The compiled programs are reentrant (each run has its own buffers and
    // runtime context), so the context's threads run both at once. Not so
    // for the evaluator engine, which shares out each op's work instead.
    return verify::compareInField(func, reference, withExponents, runLhs,
                                  runRhs, count, seed,
                                  getThreads(func.getContext()));
  }

  /// Runs both functions in f32 and warns when they differ by more than the
  /// tolerance; the field is blind to magnitudes.
  void checkInF32(func::FuncOp func, func::FuncOp reference) {
    StringRef name = func.getSymName(), refName = reference.getSymName();
    // The host runs functions of f16, bf16, f32 and integer tensors (an
    // f64 computation the import left is compared in the field only).
    auto runnable = [](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      return tensor && isa<Float16Type, BFloat16Type, Float32Type, IntegerType>(
                           tensor.getElementType());
    };
    if (!llvm::all_of(func.getArgumentTypes(), runnable) ||
        !llvm::all_of(func.getResultTypes(), runnable)) {
      func.emitRemark("no f32 tolerance check of @")
          << name << ": it takes or returns tensors of other than f16, bf16, "
          << "f32 or integers";
      return;
    }
    // The random integers the check draws (1 to 16) may put such a slice
    // outside its tensor, which the host would read or write past.
    if (llvm::any_of(func.getBody().front(), isRunTimeSlice)) {
      func.emitRemark("no f32 tolerance check of @")
          << name << ": it slices at offsets known only at run time, which "
          << "random integers may put outside the tensor";
      return;
    }
    OwningOpRef<ModuleOp> module = widenedCopy(func, reference);
    FailureOr<std::unique_ptr<CPURunner>> runner =
        CPURunner::create(*module, {name, refName});
    if (failed(runner)) {
      func.emitWarning("could not run @")
          << name << " and @" << refName << " in f32 for the tolerance check";
      return;
    }
    verify::FieldRandom random(seed);
    SmallVector<HostTensor> inputs;
    for (Type t : module->lookupSymbol<func::FuncOp>(name).getArgumentTypes()) {
      auto tensor = cast<RankedTensorType>(t);
      // Integers as coin flips too: what an attention mask holds.
      Type element = tensor.getElementType();
      if (tensor.getRank() == 0 && element.isSignlessInteger() &&
          !element.isInteger(1))
        inputs.push_back(countTensor(random));
      else
        inputs.push_back(isa<IntegerType>(element)
                             ? maskTensor(tensor.getShape(), random)
                             : normalTensor(tensor.getShape(), random));
    }
    // The two runs share nothing but the read-only inputs: with threads,
    // the reference runs as a task while this thread runs the other.
    FailureOr<SmallVector<HostTensor>> got = failure(), want = failure();
    std::string gotError, wantError;
    if (llvm::ThreadPoolInterface *threads = getThreads(func.getContext())) {
      llvm::ThreadPoolTaskGroup group(*threads);
      group.async([&] { want = (*runner)->run(refName, inputs, &wantError); });
      got = (*runner)->run(name, inputs, &gotError);
      group.wait();
    } else {
      got = (*runner)->run(name, inputs, &gotError);
      want = (*runner)->run(refName, inputs, &wantError);
    }
    if (failed(got) || failed(want)) {
      func.emitWarning("running @")
          << (failed(got) ? name : refName)
          << " in f32 failed: " << (failed(got) ? gotError : wantError);
      return;
    }
    for (auto [i, pair] : llvm::enumerate(llvm::zip(*got, *want))) {
      const HostTensor &a = std::get<0>(pair), &b = std::get<1>(pair);
      // Elements that both runs make the same inf or NaN (a causal mask's
      // -inf, an overflow both share) are left out; one that only one run
      // makes so, or makes another one, is what the field cannot see (a
      // constant that wraps around the field's modulus, an overflow).
      double maxDiff = 0, maxRef = 0;
      size_t compared = 0;
      std::optional<size_t> nonFinite;
      for (auto [k, values] : llvm::enumerate(llvm::zip(a.data, b.data))) {
        auto [x, y] = values;
        if (std::isfinite(x) && std::isfinite(y)) {
          ++compared;
          maxDiff = std::max(maxDiff, std::fabs(double(x) - double(y)));
          maxRef = std::max(maxRef, std::fabs(double(y)));
        } else if (!nonFinite && !(std::isnan(x) && std::isnan(y)) && x != y) {
          nonFinite = k;
        }
      }
      if (nonFinite) {
        func.emitWarning("@")
            << name << " and @" << refName << " are equal over the field but "
            << "differ in f32 on random normal inputs: result #" << i << " is "
            << double(a.data[*nonFinite]) << " at flat element " << *nonFinite
            << ", and " << double(b.data[*nonFinite]) << " in @" << refName
            << " (an overflow, or a constant the field reads "
            << "otherwise)";
        continue;
      }
      if (compared == 0) {
        func.emitRemark("f32 check of result #")
            << i << " skipped: the runs on random normal inputs overflow";
        continue;
      }
      double relative = maxRef > 0 ? maxDiff / maxRef : maxDiff;
      LLVM_DEBUG(llvm::dbgs() << "f32 relative difference of result #" << i
                              << ": " << relative << "\n");
      if (relative > f32Tolerance)
        func.emitWarning("@")
            << name << " and @" << refName << " are equal over the field but "
            << "differ in f32 on random normal inputs: result #" << i
            << " has relative difference " << formatProbability(relative)
            << " > " << f32Tolerance
            << " (constants whose effect depends on magnitude, such as an "
               "epsilon, or overflow)";
    }
  }
};

} // namespace
