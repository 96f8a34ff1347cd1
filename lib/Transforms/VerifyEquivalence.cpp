//===- VerifyEquivalence.cpp - Check functions against their reference ----===//

#include "mlsopt/Transforms/Passes.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/Verify/Evaluator.h"
#include "mlsopt/Verify/FiniteField.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"

#include <cmath>

#define DEBUG_TYPE "verify-equivalence"

namespace mlsopt {
#define GEN_PASS_DEF_VERIFYEQUIVALENCE
#include "mlsopt/Transforms/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

/// "1.2e-17": a probability in three significant digits.
static std::string formatProbability(double probability) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.3g", probability);
  return s;
}

namespace {

struct VerifyEquivalencePass
    : mlsopt::impl::VerifyEquivalenceBase<VerifyEquivalencePass> {
  using Base::Base;

  void runOnOperation() override {
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

  LogicalResult check(func::FuncOp func, func::FuncOp reference) {
    FailureOr<verify::FieldEvaluator> lhs =
        verify::FieldEvaluator::create(func);
    FailureOr<verify::FieldEvaluator> rhs =
        verify::FieldEvaluator::create(reference);
    if (failed(lhs) || failed(rhs))
      return failure();

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
        verify::compareInField(*lhs, *rhs, count, seed);
    if (failed(comparison))
      return failure();

    StringRef name = func.getSymName(), refName = reference.getSymName();
    switch (comparison->verdict) {
    case verify::FieldVerdict::Different:
      return func.emitError("@")
             << name << " is not equivalent to @" << refName << ": result #"
             << comparison->result << " differs at flat element "
             << comparison->index << " in random test " << comparison->test
             << " (" << comparison->lhsValue << " vs " << comparison->rhsValue
             << " mod p)";
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
    InFlightDiagnostic remark = func.emitRemark("@");
    remark << name << " is equivalent to @" << refName << ": equal on "
           << comparison->tests
           << (comparison->tests == 1 ? " random test" : " random tests")
           << " over GF(p); "
           << "false-positive probability <= " << formatProbability(probability);
    if (lhs->hasMaxSelection() || rhs->hasMaxSelection())
      remark << " (max ops are outside this bound: see docs/verification.md)";
    return success();
  }
};

} // namespace
