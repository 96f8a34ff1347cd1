//===- SuperoptimizerTest.cpp - The search as a library -------------------===//
//
// The search improves a program it can fuse, answers the same for any
// thread count, finds the same winner with abstract-expression pruning off
// (pruning loses nothing the screening would keep), and keeps the reference
// when nothing beats it.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Search/SearchProblem.h"
#include "mlsopt/Search/Superoptimizer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "MLIRTest.h"
#include "SearchTestUtils.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

namespace {

class SuperoptimizerTest : public test::MLIRTest {
protected:
  SearchResult searchF(StringRef source, SearchOptions options) {
    module = parse(source);
    EXPECT_TRUE(module) << diagnostics;
    FailureOr<SearchProblem> problem =
        test::buildFunctionProblem(lookupFunc(*module, "f"));
    EXPECT_TRUE(succeeded(problem));
    return superoptimize(*problem, options, &context);
  }
  OwningOpRef<ModuleOp> module;
};

constexpr StringLiteral kGatedMlp = R"mlir(
func.func @f(%x: tensor<8x128xf32>, %w1: tensor<128x128xf32>, %w2: tensor<128x128xf32>) -> tensor<8x128xf32> {
  %a = kernel.matmul %x, %w1 : tensor<8x128xf32>, tensor<128x128xf32>
  %b = kernel.matmul %x, %w2 : tensor<8x128xf32>, tensor<128x128xf32>
  %s = kernel.silu %a : tensor<8x128xf32>
  %o = kernel.mul %s, %b : tensor<8x128xf32>, tensor<8x128xf32>
  return %o : tensor<8x128xf32>
}
)mlir";

TEST_F(SuperoptimizerTest, FusesAGatedMlpIntoOneKernel) {
  SearchOptions options;
  options.timeoutSeconds = 30;
  options.threads = 1;
  SearchResult result = searchF(kGatedMlp, options);
  EXPECT_TRUE(result.improved);
  EXPECT_FALSE(result.stats.timedOut);
  EXPECT_LT(result.bestCost.totalUs, result.referenceCost.totalUs);
  ASSERT_EQ(result.best.nodes.size(), 1u);
  EXPECT_TRUE(result.best.nodes[0].isCustom());
  EXPECT_GT(result.stats.prunedByAbstractExpr, 0u);
  EXPECT_GT(result.stats.screenPassed, 0u);
}

TEST_F(SuperoptimizerTest, SameAnswerForAnyThreadCount) {
  SearchOptions options;
  options.timeoutSeconds = 30;
  options.threads = 1;
  std::string one = toString(searchF(kGatedMlp, options).best);
  options.threads = 3;
  std::string three = toString(searchF(kGatedMlp, options).best);
  EXPECT_EQ(one, three);
}

TEST_F(SuperoptimizerTest, TakesOnlyWinnersWhoseCheckFits) {
  SearchOptions options;
  options.timeoutSeconds = 30;
  options.threads = 1;
  // A check that could never fit in the timeout: every better candidate is
  // refused and the input stays (until the timeout: nothing taken, so
  // nothing reaches the cost lower bound).
  options.timeoutSeconds = 3;
  unsigned asked = 0;
  options.checkSeconds = [&](const KernelGraph &) {
    ++asked;
    return 100.0;
  };
  SearchResult refused = searchF(kGatedMlp, options);
  EXPECT_FALSE(refused.improved);
  EXPECT_GT(refused.stats.tooLateToCheck, 0u);
  EXPECT_EQ(refused.stats.tooLateToCheck, asked);
  // A check that fits: the same winner as without one.
  options.timeoutSeconds = 30;
  options.checkSeconds = [](const KernelGraph &) { return 1.0; };
  SearchResult taken = searchF(kGatedMlp, options);
  EXPECT_TRUE(taken.improved);
  EXPECT_EQ(taken.stats.tooLateToCheck, 0u);
  options.checkSeconds = nullptr;
  EXPECT_EQ(toString(taken.best), toString(searchF(kGatedMlp, options).best));
  // While the input is the best, the search ends the least check before
  // the timeout: here at once.
  options.checkSeconds = [](const KernelGraph &) { return 1.0; };
  options.minCheckSeconds = 30;
  SearchResult none = searchF(kGatedMlp, options);
  EXPECT_TRUE(none.stats.timedOut);
  EXPECT_FALSE(none.improved);
}

TEST_F(SuperoptimizerTest, PruningKeepsTheWinner) {
  // Small enough for the unpruned search to finish.
  constexpr StringLiteral kExpMul = R"mlir(
func.func @f(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %e = kernel.exp %x : tensor<64x256xf32>
  %m = kernel.mul %e, %y : tensor<64x256xf32>, tensor<64x256xf32>
  return %m : tensor<64x256xf32>
}
)mlir";
  SearchOptions options;
  options.timeoutSeconds = 60;
  options.maxBlockOps = 5;
  options.maxKernelOps = 2;
  SearchResult pruned = searchF(kExpMul, options);
  EXPECT_TRUE(pruned.improved);
  options.abstractPruning = false;
  SearchResult unpruned = searchF(kExpMul, options);
  ASSERT_FALSE(unpruned.stats.timedOut);
  EXPECT_EQ(unpruned.stats.prunedByAbstractExpr, 0u);
  EXPECT_GT(unpruned.stats.enumerated, pruned.stats.enumerated);
  EXPECT_EQ(toString(pruned.best), toString(unpruned.best));
}

TEST_F(SuperoptimizerTest, KeepsAProgramNothingBeats) {
  // One exp: a library kernel already reads and writes each element once.
  SearchOptions options;
  options.timeoutSeconds = 30;
  SearchResult result = searchF(R"mlir(
func.func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = kernel.exp %x : tensor<64x64xf32>
  return %e : tensor<64x64xf32>
}
)mlir",
                                options);
  EXPECT_FALSE(result.improved);
  EXPECT_EQ(toString(result.best), "inputs 1\n%1 = exp(0)\nreturn %1\n");
}

} // namespace
