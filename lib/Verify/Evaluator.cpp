//===- Evaluator.cpp - Tensor programs evaluated over finite fields -------===//
//
// FieldTensor and FieldEvaluator's public API. The compiled program is in
// EvaluatorImpl.h, its compilation in EvaluatorCompile.cpp and its
// evaluation in EvaluatorRun.cpp.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "mlsopt/Support/Constants.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::verify;
using namespace mlsopt::verify::detail;

//===----------------------------------------------------------------------===//
// FieldTensor
//===----------------------------------------------------------------------===//

FieldTensor::FieldTensor(ArrayRef<int64_t> shape, bool withExponents)
    : shape(shape) {
  int64_t n = numElements(shape);
  p.assign(n, 0);
  if (withExponents)
    q.assign(n, 0);
}

void FieldTensor::reshape(ArrayRef<int64_t> newShape, bool withExponents) {
  shape.assign(newShape.begin(), newShape.end());
  int64_t n = numElements(newShape);
  p.resize(n);
  if (withExponents)
    q.resize(n);
  else
    q.clear();
}

void mlsopt::verify::fillRandom(FieldTensor &tensor, ArrayRef<int64_t> shape,
                                FieldRandom &random, bool withExponents) {
  tensor.reshape(shape, withExponents);
  // The p plane first: its values do not depend on whether q-parts follow.
  for (uint64_t &v : tensor.p)
    v = random.nextResidue();
  for (uint64_t &v : tensor.q)
    v = random.nextExponent();
}

FieldTensor mlsopt::verify::drawRandomFieldTensor(ArrayRef<int64_t> shape,
                                                  FieldRandom &random,
                                                  bool withExponents) {
  FieldTensor t;
  fillRandom(t, shape, random, withExponents);
  return t;
}

void mlsopt::verify::fillRandomInputs(SmallVectorImpl<FieldTensor> &inputs,
                                      func::FuncOp func, FieldRandom &random,
                                      ArrayRef<bool> withExponents) {
  inputs.resize(func.getNumArguments());
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    // One generator per input, so that input i's values do not depend on
    // which other inputs have q-parts drawn.
    FieldRandom own(random.next());
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape()) {
      inputs[i] = FieldTensor();
      continue;
    }
    fillRandom(inputs[i], tensor.getShape(), own,
               withExponents.empty() || withExponents[i]);
  }
}

SmallVector<FieldTensor>
mlsopt::verify::drawRandomInputs(func::FuncOp func, FieldRandom &random,
                                 ArrayRef<bool> withExponents) {
  SmallVector<FieldTensor> inputs;
  fillRandomInputs(inputs, func, random, withExponents);
  return inputs;
}

//===----------------------------------------------------------------------===//
// FieldEvaluator
//===----------------------------------------------------------------------===//

FieldEvaluator::FieldEvaluator(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
FieldEvaluator::FieldEvaluator(FieldEvaluator &&) = default;
FieldEvaluator &FieldEvaluator::operator=(FieldEvaluator &&) = default;
FieldEvaluator::~FieldEvaluator() = default;

FailureOr<FieldEvaluator> FieldEvaluator::create(func::FuncOp func) {
  // The evaluator trusts shapes and attributes the verifiers check.
  if (failed(mlir::verify(func)))
    return failure();
  if (func.getBody().getBlocks().size() != 1)
    return func.emitError(
        "the finite-field evaluator needs a function with one block");
  auto impl = std::make_unique<Impl>();
  impl->func = func;
  impl->constantExtents = getReciprocalExtents(func);
  impl->constantRoundingType =
      getReciprocalRoundingType(func.getFunctionType());
  if (failed(impl->compileFunction()))
    return failure();
  size_t numSlots = impl->shapes.size();
  impl->needsQ.assign(numSlots, false);
  impl->markNeeds(impl->program);
  impl->withQ.resize(numSlots);
  for (size_t s = 0; s < numSlots; ++s)
    impl->withQ[s] = impl->needsQ[s] && impl->hasResidueQ[s];
  impl->storage.resize(numSlots);
  impl->view.resize(numSlots);
  for (size_t s = 0; s < numSlots; ++s)
    impl->view[s] = &impl->storage[s];
  return FieldEvaluator(std::move(impl));
}

func::FuncOp FieldEvaluator::getFunction() const { return impl->func; }

void FieldEvaluator::setThreadPool(llvm::ThreadPoolInterface *pool) {
  impl->pool = pool;
}

ArrayRef<uint64_t> FieldEvaluator::getResultDegrees() const {
  return impl->resultDegrees;
}

bool FieldEvaluator::hasMaxSelection() const { return impl->hasMaxSelection; }

ArrayRef<int64_t> FieldEvaluator::getConstantExtents() const {
  return impl->constantExtents;
}

Type FieldEvaluator::getConstantRoundingType() const {
  return impl->constantRoundingType;
}

bool FieldEvaluator::needsInputExponents(unsigned i) const {
  return impl->withQ[impl->argumentSlots[i]];
}

bool FieldEvaluator::computesExponents(Value value) const {
  auto it = impl->slotOf.find(value);
  return it != impl->slotOf.end() && impl->withQ[it->second];
}

uint64_t FieldEvaluator::getExponentDegree() const {
  return impl->exponentDegree;
}

FailureOr<FieldEvaluation>
FieldEvaluator::evaluate(ArrayRef<FieldTensor> inputs,
                         const FieldOptions &options) {
  Impl &s = *impl;
  if (inputs.size() != s.argumentSlots.size())
    return s.func.emitError("the finite-field evaluator got ")
           << inputs.size() << " inputs for " << s.argumentSlots.size()
           << " arguments";
  for (auto [i, slot] : llvm::enumerate(s.argumentSlots)) {
    const FieldTensor &input = inputs[i];
    if (ArrayRef<int64_t>(input.shape) != ArrayRef<int64_t>(s.shapes[slot]) ||
        input.getNumElements() != numElements(input.shape) ||
        (s.withQ[slot] && input.q.size() != input.p.size()))
      return s.func.emitError("finite-field input ")
             << i << " does not match the argument's shape "
             << formatShape(s.shapes[slot])
             << (s.withQ[slot] ? " or has no q-parts" : "");
    s.view[slot] = &input;
  }
  for (unsigned k = 0; k < kNumUnaryKinds; ++k) {
    s.functionKeys[k] = randomFunctionKey(options.functionSeed, k + 1);
    s.exponentKeys[k] = exponentFunctionKey(options.functionSeed, k + 1);
  }
  s.functionSeed = options.functionSeed;
  s.padding.reset();
  if (options.paddingSeed)
    s.padding.emplace(options.paddingSeed);
  s.divisionByZero = false;

  LogicalResult ran = s.run(s.program, BlockPosition());
  FieldEvaluation evaluation;
  if (succeeded(ran)) {
    for (unsigned slot : s.resultSlots)
      evaluation.results.push_back(*s.view[slot]);
    evaluation.divisionByZero = s.divisionByZero;
  }
  // The inputs belong to the caller: forget them.
  for (unsigned slot : s.argumentSlots)
    s.view[slot] = &s.storage[slot];
  if (failed(ran))
    return failure();
  return evaluation;
}

FailureOr<FieldEvaluation>
mlsopt::verify::evaluate(func::FuncOp func, ArrayRef<FieldTensor> inputs,
                         const FieldOptions &options) {
  FailureOr<FieldEvaluator> evaluator = FieldEvaluator::create(func);
  if (failed(evaluator))
    return failure();
  return evaluator->evaluate(inputs, options);
}

uint64_t mlsopt::verify::getComparisonDegree(const FieldEvaluator &lhs,
                                             const FieldEvaluator &rhs) {
  uint64_t degree = 1;
  for (auto [l, r] :
       llvm::zip_equal(lhs.getResultDegrees(), rhs.getResultDegrees()))
    degree = std::max(degree, satAdd(l, r));
  uint64_t exponents =
      satMul(2, std::max(lhs.getExponentDegree(), rhs.getExponentDegree()));
  return std::max(degree, exponents);
}

FailureOr<FieldComparison> mlsopt::verify::compareInField(FieldEvaluator &lhs,
                                                          FieldEvaluator &rhs,
                                                          unsigned tests,
                                                          uint64_t seed) {
  // q-parts only for the inputs some exp reads in either function.
  SmallVector<bool> withExponents;
  for (unsigned i = 0; i < lhs.getFunction().getNumArguments(); ++i)
    withExponents.push_back(lhs.needsInputExponents(i) ||
                            rhs.needsInputExponents(i));
  auto evaluateWith = [](FieldEvaluator &evaluator) {
    return [&evaluator](ArrayRef<FieldTensor> inputs,
                        const FieldOptions &options) {
      return evaluator.evaluate(inputs, options);
    };
  };
  auto evaluateLhs = evaluateWith(lhs), evaluateRhs = evaluateWith(rhs);
  return compareInField(lhs.getFunction(), rhs.getFunction(), withExponents,
                        evaluateLhs, evaluateRhs, tests, seed);
}

/// Runs both programs of one test into `a` and `b`: one after the other, or
/// with a pool, the lhs as its task while this thread runs the rhs. Fails
/// when either fails; their errors come in lhs, rhs order either way.
static LogicalResult
evaluateBoth(func::FuncOp l, FieldEvaluateFn evaluateLhs,
             FieldEvaluateFn evaluateRhs, ArrayRef<FieldTensor> inputs,
             const FieldOptions &options, llvm::ThreadPoolInterface *pool,
             FailureOr<FieldEvaluation> &a, FailureOr<FieldEvaluation> &b) {
  if (!pool) {
    a = evaluateLhs(inputs, options);
    if (failed(a))
      return failure();
    b = evaluateRhs(inputs, options);
    return failure(failed(b));
  }
  ParallelDiagnosticHandler diagnostics(l.getContext());
  llvm::ThreadPoolTaskGroup group(*pool);
  group.async([&] {
    diagnostics.setOrderIDForThread(0);
    a = evaluateLhs(inputs, options);
    diagnostics.eraseOrderIDForThread();
  });
  diagnostics.setOrderIDForThread(1);
  b = evaluateRhs(inputs, options);
  diagnostics.eraseOrderIDForThread();
  // A pool thread waiting here runs the lhs itself if no other has taken it.
  group.wait();
  return failure(failed(a) || failed(b));
}

FailureOr<FieldComparison> mlsopt::verify::compareInField(
    func::FuncOp l, func::FuncOp r, ArrayRef<bool> withExponents,
    FieldEvaluateFn evaluateLhs, FieldEvaluateFn evaluateRhs, unsigned tests,
    uint64_t seed, llvm::ThreadPoolInterface *pool) {
  // Element types do not matter in the field; shapes do.
  auto sameShapes = [](TypeRange a, TypeRange b) {
    return a.size() == b.size() && llvm::all_of_zip(a, b, [](Type x, Type y) {
             auto sx = dyn_cast<ShapedType>(x), sy = dyn_cast<ShapedType>(y);
             return sx && sy && sx.getShape() == sy.getShape();
           });
  };
  if (!sameShapes(l.getArgumentTypes(), r.getArgumentTypes()) ||
      !sameShapes(l.getResultTypes(), r.getResultTypes()))
    return l.emitError("cannot compare @")
           << l.getSymName() << " with @" << r.getSymName()
           << ": their signatures differ";
  FieldComparison comparison;
  bool sawDivisionByZero = false;
  SmallVector<FieldTensor> inputs;
  for (unsigned t = 0; t < tests; ++t) {
    // Every test draws fresh inputs (into the same buffers) and fresh random
    // functions.
    uint64_t testSeed = mix64(seed + mix64(t + 1));
    FieldRandom random(testSeed);
    fillRandomInputs(inputs, l, random, withExponents);
    FieldOptions options;
    options.functionSeed = mix64(testSeed ^ 0x5851f42d4c957f2dULL);
    FailureOr<FieldEvaluation> a = failure(), b = failure();
    if (failed(evaluateBoth(l, evaluateLhs, evaluateRhs, inputs, options, pool,
                            a, b)))
      return failure();
    ++comparison.tests;
    if (a->divisionByZero || b->divisionByZero) {
      // The zero may be padding past a ragged tile's end, which no result
      // reads: with random padding the test proves as much as any other.
      // One program after the other: an engine may hand such runs to the
      // evaluator, whose grids silence diagnostics while their threads run,
      // the other program's included.
      options.paddingSeed = getPaddingSeed(testSeed);
      if (failed(evaluateBoth(l, evaluateLhs, evaluateRhs, inputs, options,
                              /*pool=*/nullptr, a, b)))
        return failure();
    }
    if (a->divisionByZero || b->divisionByZero) {
      sawDivisionByZero = true;
      continue;
    }
    for (auto [i, pair] : llvm::enumerate(llvm::zip(a->results, b->results))) {
      const FieldTensor &x = std::get<0>(pair), &y = std::get<1>(pair);
      if (x.p == y.p)
        continue;
      int64_t index = 0;
      while (x.p[index] == y.p[index])
        ++index;
      comparison.verdict = FieldVerdict::Different;
      comparison.test = t;
      comparison.result = i;
      comparison.index = index;
      comparison.lhsValue = x.p[index];
      comparison.rhsValue = y.p[index];
      return comparison;
    }
  }
  comparison.verdict =
      sawDivisionByZero ? FieldVerdict::Inconclusive : FieldVerdict::Equal;
  return comparison;
}
