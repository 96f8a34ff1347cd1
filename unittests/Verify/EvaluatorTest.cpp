//===- EvaluatorTest.cpp - Programs compared over finite fields -----------===//
//
// Pairs the verifier must accept (every example μGraph against its
// reference, matmul associativity, exp(a) exp(b) = exp(a + b), sum splitting
// across a for-loop, ...) and pairs it must reject (a wrong imap, a commuted
// matmul, a wrong reduction dim, a changed constant, silu vs x * exp(x)), plus
// the errors: not LAX, unsupported ops, bad inputs. The example comparisons
// print the evaluator's speed at the examples' full shapes.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Verify/Evaluator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"

#include "MLIRTest.h"
#include "TestPrograms.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::verify;

namespace {

class EvaluatorTest : public test::MLIRTest {
protected:
  /// Compares @lhs with @rhs of `module` over `tests` random tests; fails the
  /// test on an error.
  std::optional<FieldComparison> compare(ModuleOp module, StringRef lhs,
                                         StringRef rhs, unsigned tests = 3,
                                         uint64_t seed = 1) {
    test::DiagnosticCollector collect = collectDiagnostics();
    func::FuncOp l = lookupFunc(module, lhs), r = lookupFunc(module, rhs);
    EXPECT_TRUE(l && r) << "missing @" << lhs.str() << " or @" << rhs.str();
    if (!l || !r)
      return std::nullopt;
    FailureOr<FieldEvaluator> a = FieldEvaluator::create(l);
    FailureOr<FieldEvaluator> b = FieldEvaluator::create(r);
    EXPECT_TRUE(succeeded(a) && succeeded(b)) << diagnostics;
    if (failed(a) || failed(b))
      return std::nullopt;
    FailureOr<FieldComparison> c = compareInField(*a, *b, tests, seed);
    EXPECT_TRUE(succeeded(c)) << diagnostics;
    if (failed(c))
      return std::nullopt;
    return *c;
  }

  /// The verdict of comparing @lhs and @rhs in `source`.
  std::optional<FieldVerdict> verdict(StringRef source, StringRef lhs,
                                      StringRef rhs, unsigned tests = 3) {
    OwningOpRef<ModuleOp> module = parse(source);
    EXPECT_TRUE(module) << diagnostics;
    if (!module)
      return std::nullopt;
    std::optional<FieldComparison> c = compare(*module, lhs, rhs, tests);
    if (!c)
      return std::nullopt;
    return c->verdict;
  }

  /// The error FieldEvaluator::create reports for @name in `source`, or ""
  /// if it succeeds.
  std::string createError(StringRef source, StringRef name) {
    OwningOpRef<ModuleOp> module = parse(source);
    EXPECT_TRUE(module) << diagnostics;
    if (!module)
      return "";
    std::string errors;
    test::DiagnosticCollector collect(&context, errors);
    FailureOr<FieldEvaluator> e = FieldEvaluator::create(lookupFunc(*module, name));
    if (succeeded(e))
      return "";
    EXPECT_FALSE(errors.empty()) << "failure without a diagnostic";
    return errors;
  }

};

//===----------------------------------------------------------------------===//
// The examples
//===----------------------------------------------------------------------===//

TEST_F(EvaluatorTest, EveryExampleEqualsItsReference) {
  unsigned pairs = 0;
  for (const std::string &path : exampleFiles()) {
    OwningOpRef<ModuleOp> module = parseSourceFile(path);
    ASSERT_TRUE(module) << path << ": " << diagnostics;
    for (auto func : module->getOps<func::FuncOp>()) {
      auto ref = func->getAttrOfType<FlatSymbolRefAttr>("mlsopt.equivalent_to");
      if (!ref)
        continue;
      ++pairs;
      FailureOr<FieldEvaluator> lhs = FieldEvaluator::create(func);
      FailureOr<FieldEvaluator> rhs =
          FieldEvaluator::create(lookupFunc(*module, ref.getValue()));
      ASSERT_TRUE(succeeded(lhs) && succeeded(rhs)) << diagnostics;
      uint64_t degree = getComparisonDegree(*lhs, *rhs);
      std::optional<unsigned> tests = testsForFalsePositiveBound(1e-9, degree);
      ASSERT_TRUE(tests.has_value());
      auto start = std::chrono::steady_clock::now();
      FailureOr<FieldComparison> c = compareInField(*lhs, *rhs, *tests, 7);
      double seconds = test::secondsSince(start);
      ASSERT_TRUE(succeeded(c)) << diagnostics;
      std::string name = (llvm::sys::path::filename(path) + ": @" +
                          func.getSymName() + " vs @" + ref.getValue())
                             .str();
      EXPECT_EQ(c->verdict, FieldVerdict::Equal)
          << name << " differs at result " << c->result << ", element "
          << c->index;
      // One check: both functions on one draw of inputs, compared.
      std::printf("[ evaluator ] %s: degree bound %llu, %u test(s) for "
                  "1e-9, %.3f s, %.2f checks/s\n",
                  name.c_str(), static_cast<unsigned long long>(degree), *tests,
                  seconds, *tests / seconds);
    }
  }
  // attention (3), gated_mlp, rmsnorm_matmul.
  EXPECT_GE(pairs, 5u);
}

/// Reads examples/`name` from the source tree.
static std::string readExample(StringRef name) {
  return test::MLIRTest::readSourceFile(("examples/" + name).str());
}

TEST_F(EvaluatorTest, ExampleMutantsDiffer) {
  // Each mutant still passes the verifier; only its numbers are wrong.
  struct Mutant {
    StringRef file, function, from, to;
  } mutants[] = {
      // Plain sums instead of the online-softmax rescaling.
      {"attention.mlir", "fused_online_softmax",
       "accumulate (max, rescale by 0, rescale by 0)",
       "accumulate (max, sum, sum)"},
      // The softmax denominator as a max of the tile instead of its sum.
      {"attention.mlir", "fused", "%l = block.reduce_sum %e dim 2",
       "%l = block.reduce_max %e dim 2"},
      // Flash-decoding's denominator as the largest chunk's row sum instead
      // of the sum over the chunks.
      {"attention.mlir", "flash_decoding",
       "block.for_loop 16 iterations accumulate (sum, sum)",
       "block.for_loop 16 iterations accumulate (sum, max)"},
      // The gate without its silu.
      {"gated_mlp.mlir", "fused", "%p = thread.binary mul %s, %b",
       "%p = thread.binary mul %a, %b"},
      // A mean over 1024 instead of 4096 elements.
      {"rmsnorm_matmul.mlir", "fused", "2.44140625E-4", "9.765625E-4"},
  };
  for (const Mutant &m : mutants) {
    std::string source = readExample(m.file);
    size_t at = source.find(m.from.str());
    ASSERT_NE(at, std::string::npos) << m.file.str() << ": " << m.from.str();
    source.replace(at, m.from.size(), m.to.str());
    EXPECT_EQ(verdict(source, m.function, "reference", /*tests=*/1),
              FieldVerdict::Different)
        << m.file.str() << ": " << m.to.str();
  }
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

// The matmul of test/Conversion/CustomKernelToLoops/run-schedule.mlir as a
// custom kernel: @right, @wrong, which loads X's rows by grid dim y instead
// of x, and @wrong_omap, whose blocks place their tiles transposed (a wrong
// output offset). All pass the verifier.
static std::string schedules() {
  return R"mlir(
func.func @reference(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %m = kernel.matmul %x, %w : tensor<8x16xf32>, tensor<16x8xf32>
  return %m : tensor<8x8xf32>
}
)mlir" + test::tiledMatmulKernel("right") +
         test::tiledMatmulKernel("wrong", /*xImap=*/"y = 0") +
         test::tiledMatmulKernel("wrong_omap", "x = 0", /*omap=*/"x = 1, y = 0");
}

TEST_F(EvaluatorTest, WrongImapIsDetected) {
  OwningOpRef<ModuleOp> module = parse(schedules());
  ASSERT_TRUE(module) << diagnostics;
  std::optional<FieldComparison> right = compare(*module, "right", "reference");
  ASSERT_TRUE(right);
  EXPECT_EQ(right->verdict, FieldVerdict::Equal);
  std::optional<FieldComparison> wrong = compare(*module, "wrong", "reference");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->verdict, FieldVerdict::Different);
  EXPECT_EQ(wrong->test, 0u);
  EXPECT_EQ(wrong->result, 0u);
  EXPECT_NE(wrong->lhsValue, wrong->rhsValue);
  // Block (x, y) loads X's rows 4y..4y+3 instead of 4x..4x+3: blocks (0, 0)
  // and (1, 1) are right by chance; the first wrong element is row 0,
  // column 4, the first of block (0, 1).
  EXPECT_EQ(wrong->index, 4);
  std::optional<FieldComparison> omap =
      compare(*module, "wrong_omap", "reference");
  ASSERT_TRUE(omap);
  EXPECT_EQ(omap->verdict, FieldVerdict::Different);
}

TEST_F(EvaluatorTest, SmallScheduleSpeed) {
  // The search compares candidates at small shapes: how many checks per
  // second at 8x16 x 16x8 on a 2x2 grid with a 4-iteration loop.
  OwningOpRef<ModuleOp> module = parse(schedules());
  ASSERT_TRUE(module) << diagnostics;
  FailureOr<FieldEvaluator> a =
      FieldEvaluator::create(lookupFunc(*module, "right"));
  FailureOr<FieldEvaluator> b =
      FieldEvaluator::create(lookupFunc(*module, "reference"));
  ASSERT_TRUE(succeeded(a) && succeeded(b));
  constexpr unsigned tests = 20000;
  auto start = std::chrono::steady_clock::now();
  FailureOr<FieldComparison> c = compareInField(*a, *b, tests, 3);
  double seconds = test::secondsSince(start);
  ASSERT_TRUE(succeeded(c));
  EXPECT_EQ(c->verdict, FieldVerdict::Equal);
  std::printf("[ evaluator ] run-schedule @right vs @reference: %.0f "
              "checks/s\n",
              tests / seconds);
}

// A kernel whose W has another shape than the reference's.
constexpr StringLiteral kOtherSignature = R"mlir(
func.func @reference(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %m = kernel.matmul %x, %w : tensor<8x16xf32>, tensor<16x8xf32>
  return %m : tensor<8x8xf32>
}
func.func @wrong(%x: tensor<8x16xf32>, %w: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %o = kernel.custom (%x, %w) grid <2, 2, 1> block <32, 1, 1>
      : (tensor<8x16xf32>, tensor<4x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %in1: tensor<4x8xf32>, %out0: tensor<8x8xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<4x4xf32> {
      %xt = block.load %in0 imap <x = 0> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %wt = block.load %in1 imap <y = 1> : tensor<4x8xf32> -> tensor<4x4xf32>
      %m = block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x4xf32>
      block.yield %m : tensor<4x4xf32>
    }
    block.store %acc, %out0 omap <x = 0, y = 1> : tensor<4x4xf32> into tensor<8x8xf32>
    block.return
  }
  return %o : tensor<8x8xf32>
}
)mlir";

TEST_F(EvaluatorTest, SignatureMismatchIsAnError) {
  OwningOpRef<ModuleOp> module = parse(kOtherSignature);
  ASSERT_TRUE(module) << diagnostics;
  test::DiagnosticCollector collect = collectDiagnostics();
  FailureOr<FieldEvaluator> a =
      FieldEvaluator::create(lookupFunc(*module, "wrong"));
  FailureOr<FieldEvaluator> b =
      FieldEvaluator::create(lookupFunc(*module, "reference"));
  ASSERT_TRUE(succeeded(a) && succeeded(b));
  EXPECT_TRUE(failed(compareInField(*a, *b, 1, 0)));
  EXPECT_NE(diagnostics.find("signatures differ"), std::string::npos)
      << diagnostics;
}

// Sum splitting: a reduction split across the for-loop's iterations, and the
// mean, max and rms accumulators.
constexpr StringLiteral kAccumulators = R"mlir(
func.func @rowsum(%x: tensor<8x16xf32>) -> tensor<8x1xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<8x16xf32>
  return %s : tensor<8x1xf32>
}
func.func @rowsum_split(%x: tensor<8x16xf32>) -> tensor<8x1xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<8x16xf32>) -> tensor<8x1xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %out0: tensor<8x1xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<4x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %s = block.reduce_sum %t dim 1 : tensor<4x4xf32>
      block.yield %s : tensor<4x1xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<4x1xf32> into tensor<8x1xf32>
    block.return
  }
  return %o : tensor<8x1xf32>
}
func.func @rowsum_mean(%x: tensor<8x16xf32>) -> tensor<8x1xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<8x16xf32>) -> tensor<8x1xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %out0: tensor<8x1xf32>):
    %acc = block.for_loop 4 iterations accumulate (mean) : tensor<4x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %s = block.reduce_sum %t dim 1 : tensor<4x4xf32>
      block.yield %s : tensor<4x1xf32>
    }
    %y = block.mul_scalar %acc, 4.0 : tensor<4x1xf32>
    block.store %y, %out0 omap <x = 0> : tensor<4x1xf32> into tensor<8x1xf32>
    block.return
  }
  return %o : tensor<8x1xf32>
}
func.func @rowmax(%x: tensor<8x16xf32>) -> tensor<8x1xf32> {
  %s = kernel.reduce_max %x dim 1 : tensor<8x16xf32>
  return %s : tensor<8x1xf32>
}
func.func @rowmax_split(%x: tensor<8x16xf32>) -> tensor<8x1xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<8x16xf32>) -> tensor<8x1xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %out0: tensor<8x1xf32>):
    %acc = block.for_loop 4 iterations accumulate (max) : tensor<4x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %s = block.reduce_max %t dim 1 : tensor<4x4xf32>
      block.yield %s : tensor<4x1xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<4x1xf32> into tensor<8x1xf32>
    block.return
  }
  return %o : tensor<8x1xf32>
}
// Without an fmap every iteration loads the same tile: rms over 4 equal
// values is sqrt(x^2).
func.func @root_of_square(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = kernel.square %x : tensor<8x16xf32>
  %r = kernel.sqrt %s : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func @rms_of_same(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %out0: tensor<8x16xf32>):
    %acc = block.for_loop 4 iterations accumulate (rms) : tensor<4x16xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<8x16xf32> -> tensor<4x16xf32>
      block.yield %t : tensor<4x16xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<4x16xf32> into tensor<8x16xf32>
    block.return
  }
  return %o : tensor<8x16xf32>
}
func.func @abs_like(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  return %x : tensor<8x16xf32>
}
)mlir";

TEST_F(EvaluatorTest, Accumulators) {
  OwningOpRef<ModuleOp> module = parse(kAccumulators);
  ASSERT_TRUE(module) << diagnostics;
  auto verdictOf = [&](StringRef a, StringRef b) {
    std::optional<FieldComparison> c = compare(*module, a, b);
    return c ? c->verdict : FieldVerdict::Inconclusive;
  };
  EXPECT_EQ(verdictOf("rowsum_split", "rowsum"), FieldVerdict::Equal);
  EXPECT_EQ(verdictOf("rowsum_mean", "rowsum"), FieldVerdict::Equal);
  EXPECT_EQ(verdictOf("rowmax_split", "rowmax"), FieldVerdict::Equal);
  FailureOr<FieldEvaluator> rowmax =
      FieldEvaluator::create(lookupFunc(*module, "rowmax_split"));
  FailureOr<FieldEvaluator> rowsum =
      FieldEvaluator::create(lookupFunc(*module, "rowsum_split"));
  ASSERT_TRUE(succeeded(rowmax) && succeeded(rowsum));
  EXPECT_TRUE(rowmax->hasMaxSelection());
  EXPECT_FALSE(rowsum->hasMaxSelection());
  EXPECT_EQ(verdictOf("rowmax", "rowsum"), FieldVerdict::Different);
  EXPECT_EQ(verdictOf("rms_of_same", "root_of_square"), FieldVerdict::Equal);
  // sqrt(x^2) is +-x in the field, as |x| is in the reals: not x.
  EXPECT_EQ(verdictOf("root_of_square", "abs_like"), FieldVerdict::Different);
}

//===----------------------------------------------------------------------===//
// Algebra the search relies on, and what it must not believe
//===----------------------------------------------------------------------===//

TEST_F(EvaluatorTest, MatmulAssociativity) {
  constexpr StringLiteral source = R"mlir(
func.func @left(%a: tensor<8x16xf32>, %b: tensor<16x12xf32>, %c: tensor<12x10xf32>) -> tensor<8x10xf32> {
  %ab = kernel.matmul %a, %b : tensor<8x16xf32>, tensor<16x12xf32>
  %r = kernel.matmul %ab, %c : tensor<8x12xf32>, tensor<12x10xf32>
  return %r : tensor<8x10xf32>
}
func.func @right(%a: tensor<8x16xf32>, %b: tensor<16x12xf32>, %c: tensor<12x10xf32>) -> tensor<8x10xf32> {
  %bc = kernel.matmul %b, %c : tensor<16x12xf32>, tensor<12x10xf32>
  %r = kernel.matmul %a, %bc : tensor<8x16xf32>, tensor<16x10xf32>
  return %r : tensor<8x10xf32>
}
)mlir";
  EXPECT_EQ(verdict(source, "left", "right"), FieldVerdict::Equal);
}

TEST_F(EvaluatorTest, CommutedMatmulDiffers) {
  constexpr StringLiteral source = R"mlir(
func.func @ab(%a: tensor<2x8x8xf32>, %b: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %r = kernel.matmul %a, %b : tensor<2x8x8xf32>, tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}
func.func @ba(%a: tensor<2x8x8xf32>, %b: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %r = kernel.matmul %b, %a : tensor<2x8x8xf32>, tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}
// (A B)^T = B^T A^T.
func.func @abt(%a: tensor<2x8x8xf32>, %b: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %r = kernel.matmul %a, %b : tensor<2x8x8xf32>, tensor<2x8x8xf32>
  %t = kernel.transpose %r [0, 2, 1] : tensor<2x8x8xf32>
  return %t : tensor<2x8x8xf32>
}
func.func @btat(%a: tensor<2x8x8xf32>, %b: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %at = kernel.transpose %a [0, 2, 1] : tensor<2x8x8xf32>
  %bt = kernel.transpose %b [0, 2, 1] : tensor<2x8x8xf32>
  %r = kernel.matmul %bt, %at : tensor<2x8x8xf32>, tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}
)mlir";
  EXPECT_EQ(verdict(source, "ab", "ba"), FieldVerdict::Different);
  EXPECT_EQ(verdict(source, "abt", "btat"), FieldVerdict::Equal);
}

TEST_F(EvaluatorTest, WrongReductionDimDiffers) {
  // Both scale x by a sum that broadcasts back to 8x8: by row or by column.
  constexpr StringLiteral source = R"mlir(
func.func @rows(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<8x8xf32>
  %y = kernel.mul %x, %s : tensor<8x8xf32>, tensor<8x1xf32>
  return %y : tensor<8x8xf32>
}
func.func @cols(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = kernel.reduce_sum %x dim 0 : tensor<8x8xf32>
  %y = kernel.mul %x, %s : tensor<8x8xf32>, tensor<1x8xf32>
  return %y : tensor<8x8xf32>
}
)mlir";
  EXPECT_EQ(verdict(source, "rows", "cols"), FieldVerdict::Different);
}

TEST_F(EvaluatorTest, ChangedConstantDiffers) {
  // The cubic term of the tanh form of gelu.
  constexpr StringLiteral source = R"mlir(
func.func @a(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %x2 = kernel.square %x : tensor<4x8xf32>
  %x3 = kernel.mul %x2, %x : tensor<4x8xf32>, tensor<4x8xf32>
  %c = kernel.mul_scalar %x3, 0.044715 : tensor<4x8xf32>
  %y = kernel.add %x, %c : tensor<4x8xf32>, tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @b(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %x2 = kernel.square %x : tensor<4x8xf32>
  %x3 = kernel.mul %x2, %x : tensor<4x8xf32>, tensor<4x8xf32>
  %c = kernel.mul_scalar %x3, 0.044716 : tensor<4x8xf32>
  %y = kernel.add %x, %c : tensor<4x8xf32>, tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// x + 0.044715 x^3 = x (1 + 0.044715 x^2): distributivity with constants.
func.func @factored(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %x2 = kernel.square %x : tensor<4x8xf32>
  %c = kernel.mul_scalar %x2, 0.044715 : tensor<4x8xf32>
  %d = kernel.add_scalar %c, 1.0 : tensor<4x8xf32>
  %y = kernel.mul %x, %d : tensor<4x8xf32>, tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
)mlir";
  EXPECT_EQ(verdict(source, "a", "b"), FieldVerdict::Different);
  EXPECT_EQ(verdict(source, "a", "factored"), FieldVerdict::Equal);
}

TEST_F(EvaluatorTest, SiluIsItsOwnFunction) {
  constexpr StringLiteral source = R"mlir(
func.func @silu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = kernel.silu %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @x_exp_x(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kernel.exp %x : tensor<4x8xf32>
  %y = kernel.mul %x, %e : tensor<4x8xf32>, tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @x_sigmoid_x(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kernel.sigmoid %x : tensor<4x8xf32>
  %y = kernel.mul %x, %s : tensor<4x8xf32>, tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// The same silu in a thread graph inside a custom kernel.
func.func @silu_fused(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%in0: tensor<4x8xf32>, %out0: tensor<4x8xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<2x8xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<4x8xf32> -> tensor<2x8xf32>
      block.yield %t : tensor<2x8xf32>
    }
    %y = thread.graph (%acc) : (tensor<2x8xf32>) -> tensor<2x8xf32> {
    ^bb0(%a: f32):
      %s = thread.unary silu %a : f32
      thread.yield %s : f32
    }
    block.store %y, %out0 omap <x = 0> : tensor<2x8xf32> into tensor<4x8xf32>
    block.return
  }
  return %o : tensor<4x8xf32>
}
)mlir";
  EXPECT_EQ(verdict(source, "silu", "x_exp_x"), FieldVerdict::Different);
  EXPECT_EQ(verdict(source, "silu", "x_sigmoid_x"), FieldVerdict::Different);
  EXPECT_EQ(verdict(source, "silu", "silu_fused"), FieldVerdict::Equal);
}

TEST_F(EvaluatorTest, ExpOfSumIsProductOfExps) {
  constexpr StringLiteral source = R"mlir(
func.func @sum(%a: tensor<4x8xf32>, %b: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %s = kernel.add %a, %b : tensor<4x8xf32>, tensor<4x1xf32>
  %e = kernel.exp %s : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @product(%a: tensor<4x8xf32>, %b: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %ea = kernel.exp %a : tensor<4x8xf32>
  %eb = kernel.exp %b : tensor<4x1xf32>
  %e = kernel.mul %ea, %eb : tensor<4x8xf32>, tensor<4x1xf32>
  return %e : tensor<4x8xf32>
}
// exp(a - b) = exp(a) / exp(b), through a thread graph.
func.func @quotient(%a: tensor<4x8xf32>, %b: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %nb = kernel.neg %b : tensor<4x1xf32>
  %ea = kernel.exp %a : tensor<4x8xf32>
  %eb = kernel.exp %nb : tensor<4x1xf32>
  %e = kernel.div %ea, %eb : tensor<4x8xf32>, tensor<4x1xf32>
  return %e : tensor<4x8xf32>
}
// exp(a) + exp(b) is not exp(a + b).
func.func @wrong(%a: tensor<4x8xf32>, %b: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %ea = kernel.exp %a : tensor<4x8xf32>
  %eb = kernel.exp %b : tensor<4x1xf32>
  %e = kernel.add %ea, %eb : tensor<4x8xf32>, tensor<4x1xf32>
  return %e : tensor<4x8xf32>
}
)mlir";
  EXPECT_EQ(verdict(source, "sum", "product"), FieldVerdict::Equal);
  EXPECT_EQ(verdict(source, "sum", "quotient"), FieldVerdict::Equal);
  EXPECT_EQ(verdict(source, "sum", "wrong"), FieldVerdict::Different);
}

TEST_F(EvaluatorTest, RmsNormDefinition) {
  // rms_norm(x) = x / sqrt(sum(x^2) / n + eps) over the last dim; the mean
  // multiplies by the inverse of n.
  constexpr StringLiteral source = R"mlir(
func.func @op(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = kernel.rms_norm %x {epsilon = 1.0e-05 : f64} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @spelled(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kernel.square %x : tensor<4x8xf32>
  %m = kernel.reduce_sum %s dim 1 : tensor<4x8xf32>
  %n = kernel.mul_scalar %m, 0.125 : tensor<4x1xf32>
  %e = kernel.add_scalar %n, 1.0e-05 : tensor<4x1xf32>
  %r = kernel.rsqrt %e : tensor<4x1xf32>
  %y = kernel.mul %x, %r : tensor<4x8xf32>, tensor<4x1xf32>
  return %y : tensor<4x8xf32>
}
func.func @other_eps(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
)mlir";
  EXPECT_EQ(verdict(source, "op", "spelled"), FieldVerdict::Equal);
  EXPECT_EQ(verdict(source, "op", "other_eps"), FieldVerdict::Different);
}

// The degree bound counts 1/rms as the fresh variable of a normalization,
// and a square root as its inverse. With the root itself as the variable,
// each normalized row summed over a matmul's k had k denominators that the
// bound could not see are one: two RMSNorm + matmul layers over 64 features
// came to about 8300, and a model of a few layers past 2^62, which no test
// count brings under the bound. Every spelling of the norm, divided by the
// root or multiplied by its inverse, has the same small degree.
TEST_F(EvaluatorTest, NormalizedLayersKeepASmallDegree) {
  constexpr StringLiteral source = R"mlir(
func.func @layers(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>, %v: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-05 : f64} : tensor<4x64xf32>
  %h = kernel.matmul %n, %w : tensor<4x64xf32>, tensor<64x64xf32>
  %m = kernel.rms_norm %h {epsilon = 1.0e-05 : f64} : tensor<4x64xf32>
  %y = kernel.matmul %m, %v : tensor<4x64xf32>, tensor<64x64xf32>
  return %y : tensor<4x64xf32>
}
func.func @divided(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %s = kernel.square %x : tensor<4x64xf32>
  %t = kernel.reduce_sum %s dim 1 : tensor<4x64xf32>
  %e = kernel.mul_scalar %t, 0.015625 : tensor<4x1xf32>
  %r = kernel.sqrt %e : tensor<4x1xf32>
  %y = kernel.div %x, %r : tensor<4x64xf32>, tensor<4x1xf32>
  return %y : tensor<4x64xf32>
}
func.func @multiplied(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %s = kernel.square %x : tensor<4x64xf32>
  %t = kernel.reduce_sum %s dim 1 : tensor<4x64xf32>
  %e = kernel.mul_scalar %t, 0.015625 : tensor<4x1xf32>
  %r = kernel.rsqrt %e : tensor<4x1xf32>
  %y = kernel.mul %x, %r : tensor<4x64xf32>, tensor<4x1xf32>
  return %y : tensor<4x64xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module = parse(source);
  ASSERT_TRUE(module);
  auto degreeOf = [&](StringRef name) -> uint64_t {
    FailureOr<FieldEvaluator> evaluator =
        FieldEvaluator::create(lookupFunc(*module, name));
    EXPECT_TRUE(succeeded(evaluator)) << diagnostics;
    if (failed(evaluator) || evaluator->getResultDegrees().size() != 1)
      return 0;
    return evaluator->getResultDegrees()[0];
  };
  // x (1), times 1/rms (2), times w (3), times 1/rms (4), times v (5).
  EXPECT_EQ(degreeOf("layers"), 5u);
  // x over the root: x times the variable, as rms_norm.
  EXPECT_EQ(degreeOf("divided"), 2u);
  EXPECT_EQ(degreeOf("multiplied"), 2u);
}

// sqrt, rsqrt, rms_norm, the rms accumulator and the random functions have
// residues mod q (one random function of the operand mod p per op, sqrt's
// for every root), so exp of them verifies. Every result below is exp of
// something: equal verdicts need consistent q-parts, different ones q-parts
// that tell the programs apart.
TEST_F(EvaluatorTest, EverySpellingOfARootAgreesUnderExp) {
  OwningOpRef<ModuleOp> module = parse(test::rootsUnderExp());
  ASSERT_TRUE(module) << diagnostics;
  auto verdictOf = [&](StringRef a, StringRef b) {
    std::optional<FieldComparison> c = compare(*module, a, b);
    return c ? c->verdict : FieldVerdict::Inconclusive;
  };
  for (StringRef spelling :
       {"exp_norm_rsqrt", "exp_norm_div", "exp_norm_block"})
    EXPECT_EQ(verdictOf("exp_norm_op", spelling), FieldVerdict::Equal)
        << spelling.str();
  EXPECT_EQ(verdictOf("exp_norm_op", "exp_norm_other_eps"),
            FieldVerdict::Different);
  EXPECT_EQ(verdictOf("exp_root_op", "exp_root_div"), FieldVerdict::Equal);
  EXPECT_EQ(verdictOf("exp_root_op", "exp_root_acc"), FieldVerdict::Equal);
  EXPECT_EQ(verdictOf("exp_root_op", "exp_norm_op"), FieldVerdict::Different);
  // The norms' scales are row and column scales of Q K mod q as mod p.
  EXPECT_EQ(verdictOf("qk_norm", "qk_scaled"), FieldVerdict::Equal);
  EXPECT_EQ(verdictOf("qk_norm", "qk_other_eps"), FieldVerdict::Different);
  // One function per op, the same at every use; rsqrt inverts sqrt mod q.
  EXPECT_EQ(verdictOf("exp_tanh_squared", "exp_tanh_doubled"),
            FieldVerdict::Equal);
  EXPECT_EQ(verdictOf("exp_tanh_doubled", "exp_erf_doubled"),
            FieldVerdict::Different);
  EXPECT_EQ(verdictOf("exp_root_over_root", "exp_one"), FieldVerdict::Equal);
  EXPECT_EQ(verdictOf("exp_root_over_root", "exp_tanh_doubled"),
            FieldVerdict::Different);

  // The q-parts are drawn from the function seed: the same seed gives the
  // same values, another seed others.
  FailureOr<FieldEvaluator> e =
      FieldEvaluator::create(lookupFunc(*module, "qk_norm"));
  ASSERT_TRUE(succeeded(e)) << diagnostics;
  EXPECT_TRUE(e->needsInputExponents(0) && e->needsInputExponents(1));
  FieldRandom random(3);
  SmallVector<FieldTensor> inputs = drawRandomInputs(e->getFunction(), random);
  FieldOptions one, two;
  one.functionSeed = 1;
  two.functionSeed = 2;
  FailureOr<FieldEvaluation> a = e->evaluate(inputs, one);
  FailureOr<FieldEvaluation> b = e->evaluate(inputs, one);
  FailureOr<FieldEvaluation> c = e->evaluate(inputs, two);
  ASSERT_TRUE(succeeded(a) && succeeded(b) && succeeded(c)) << diagnostics;
  EXPECT_EQ(a->results[0].p, b->results[0].p);
  EXPECT_NE(a->results[0].p, c->results[0].p);
}

TEST_F(EvaluatorTest, ConcatAndBroadcast) {
  constexpr StringLiteral source = R"mlir(
func.func @concat_then_scale(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>, %s: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %c = kernel.concat %a, %b dim 1 : tensor<4x3xf32>, tensor<4x5xf32>
  %y = kernel.mul %c, %s : tensor<4x8xf32>, tensor<4x1xf32>
  return %y : tensor<4x8xf32>
}
func.func @scale_then_concat(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>, %s: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %x = kernel.mul %a, %s : tensor<4x3xf32>, tensor<4x1xf32>
  %y = kernel.mul %b, %s : tensor<4x5xf32>, tensor<4x1xf32>
  %c = kernel.concat %x, %y dim 1 : tensor<4x3xf32>, tensor<4x5xf32>
  return %c : tensor<4x8xf32>
}
func.func @swapped(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>, %s: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %c = kernel.concat %b, %a dim 1 : tensor<4x5xf32>, tensor<4x3xf32>
  %y = kernel.mul %c, %s : tensor<4x8xf32>, tensor<4x1xf32>
  return %y : tensor<4x8xf32>
}
)mlir";
  EXPECT_EQ(verdict(source, "concat_then_scale", "scale_then_concat"),
            FieldVerdict::Equal);
  EXPECT_EQ(verdict(source, "concat_then_scale", "swapped"),
            FieldVerdict::Different);
}

//===----------------------------------------------------------------------===//
// Errors and inconclusive tests
//===----------------------------------------------------------------------===//

TEST_F(EvaluatorTest, DivisionByZeroIsNeverEqual) {
  constexpr StringLiteral source = R"mlir(
func.func @x(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @x_over_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = kernel.sub %x, %x : tensor<4xf32>, tensor<4xf32>
  %y = kernel.div %x, %z : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir";
  EXPECT_EQ(verdict(source, "x_over_zero", "x"), FieldVerdict::Inconclusive);
  EXPECT_EQ(verdict(source, "x_over_zero", "x_over_zero"),
            FieldVerdict::Inconclusive);
}

TEST_F(EvaluatorTest, ExpOfNonLaxValueIsAnError) {
  constexpr StringLiteral source = R"mlir(
func.func @exp_exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = kernel.exp %x : tensor<4xf32>
  %f = kernel.exp %e : tensor<4xf32>
  return %f : tensor<4xf32>
}
// rms_norm scales x's own residue mod q, which exp's result lacks.
func.func @exp_norm_of_exp(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = kernel.exp %x : tensor<4x4xf32>
  %n = kernel.rms_norm %e : tensor<4x4xf32>
  %f = kernel.exp %n : tensor<4x4xf32>
  return %f : tensor<4x4xf32>
}
// A random function of exp's residue mod p has a residue mod q.
func.func @exp_sqrt_of_exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = kernel.exp %x : tensor<4xf32>
  %r = kernel.sqrt %e : tensor<4xf32>
  %f = kernel.exp %r : tensor<4xf32>
  return %f : tensor<4xf32>
}
func.func @exp_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = kernel.tanh %x : tensor<4xf32>
  %f = kernel.exp %t : tensor<4xf32>
  return %f : tensor<4xf32>
}
func.func @exp_rms(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %n = kernel.rms_norm %x : tensor<4x4xf32>
  %s = kernel.add %n, %x : tensor<4x4xf32>, tensor<4x4xf32>
  %f = kernel.exp %s : tensor<4x4xf32>
  return %f : tensor<4x4xf32>
}
func.func @exp_once(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = kernel.tanh %x : tensor<4xf32>
  %f = kernel.exp %x : tensor<4xf32>
  %y = kernel.mul %t, %f : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir";
  for (StringRef name : {"exp_exp", "exp_norm_of_exp"}) {
    std::string error = createError(source, name);
    EXPECT_NE(error.find("not LAX"), std::string::npos)
        << name.str() << ": " << error;
  }
  for (StringRef name : {"exp_sqrt_of_exp", "exp_tanh", "exp_rms", "exp_once"})
    EXPECT_EQ(createError(source, name), "") << name.str();
}

TEST_F(EvaluatorTest, UnsupportedOpIsAnError) {
  constexpr StringLiteral source = R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir";
  std::string error = createError(source, "f");
  EXPECT_NE(error.find("does not support 'arith.addf'"), std::string::npos)
      << error;
}

TEST_F(EvaluatorTest, BadInputsAreAnError) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kernel.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir");
  ASSERT_TRUE(module) << diagnostics;
  test::DiagnosticCollector collect = collectDiagnostics();
  FailureOr<FieldEvaluator> e = FieldEvaluator::create(lookupFunc(*module, "f"));
  ASSERT_TRUE(succeeded(e));
  EXPECT_TRUE(failed(e->evaluate({}, {})));
  FieldTensor wrongShape(ArrayRef<int64_t>{5});
  EXPECT_TRUE(failed(e->evaluate(wrongShape, {})));
  // exp needs the q-parts of its input.
  FieldTensor noExponents(ArrayRef<int64_t>{4}, /*withExponents=*/false);
  EXPECT_TRUE(failed(e->evaluate(noExponents, {})));
  FieldTensor ok(ArrayRef<int64_t>{4});
  ok.q = {0, 1, 2, 3};
  FailureOr<FieldEvaluation> r = e->evaluate(ok, {});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->results[0].p[0], 1u);
  EXPECT_EQ(r->results[0].p[2], 16u);
}

TEST_F(EvaluatorTest, EvaluationIsDeterministicAndReusable) {
  OwningOpRef<ModuleOp> module = parse(schedules());
  ASSERT_TRUE(module) << diagnostics;
  FailureOr<FieldEvaluator> e =
      FieldEvaluator::create(lookupFunc(*module, "right"));
  ASSERT_TRUE(succeeded(e));
  FieldRandom r1(9), r2(9);
  SmallVector<FieldTensor> in1 = drawRandomInputs(e->getFunction(), r1);
  SmallVector<FieldTensor> in2 = drawRandomInputs(e->getFunction(), r2);
  FailureOr<FieldEvaluation> a = e->evaluate(in1, {});
  FailureOr<FieldEvaluation> b = e->evaluate(in2, {});
  ASSERT_TRUE(succeeded(a) && succeeded(b));
  EXPECT_EQ(a->results[0].p, b->results[0].p);
  EXPECT_EQ(a->results[0].shape, (SmallVector<int64_t, 4>{8, 8}));
  // Results mod p only: no exp reads them mod q.
  EXPECT_FALSE(a->results[0].hasExponents());
}

/// A custom kernel over a 4 x 2 grid, with a for-loop and exp, and a matmul
/// of 2^21 multiply-adds followed by exp: each shared among threads or not.
static const char *const kThreaded = R"mlir(
func.func @grid(%x: tensor<64x96xf32>, %w: tensor<96x32xf32>) -> tensor<64x32xf32> {
  %o = kernel.custom (%x, %w) grid <4, 2, 1> block <128, 1, 1>
      : (tensor<64x96xf32>, tensor<96x32xf32>) -> tensor<64x32xf32> {
  ^bb0(%in0: tensor<64x96xf32>, %in1: tensor<96x32xf32>, %out0: tensor<64x32xf32>):
    %acc = block.for_loop 3 iterations accumulate (sum) : tensor<16x16xf32> {
      %xt = block.load %in0 imap <x = 0> fmap 1 : tensor<64x96xf32> -> tensor<16x32xf32>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<96x32xf32> -> tensor<32x16xf32>
      %m = block.matmul %xt, %wt : tensor<16x32xf32>, tensor<32x16xf32>
      block.yield %m : tensor<16x16xf32>
    }
    %e = block.exp %acc : tensor<16x16xf32>
    block.store %e, %out0 omap <x = 0, y = 1> : tensor<16x16xf32> into tensor<64x32xf32>
    block.return
  }
  return %o : tensor<64x32xf32>
}
func.func @product(%a: tensor<2x64x128xf32>, %b: tensor<2x128x128xf32>) -> tensor<2x64x128xf32> {
  %m = kernel.matmul %a, %b : tensor<2x64x128xf32>, tensor<2x128x128xf32>
  %e = kernel.exp %m : tensor<2x64x128xf32>
  return %e : tensor<2x64x128xf32>
}
)mlir";

TEST_F(EvaluatorTest, ThreadsGiveTheSameResults) {
  OwningOpRef<ModuleOp> module = parse(kThreaded);
  ASSERT_TRUE(module) << diagnostics;
  llvm::StdThreadPool pool(llvm::hardware_concurrency(4));
  for (StringRef name : {"grid", "product"}) {
    FailureOr<FieldEvaluator> alone =
        FieldEvaluator::create(lookupFunc(*module, name));
    FailureOr<FieldEvaluator> shared =
        FieldEvaluator::create(lookupFunc(*module, name));
    ASSERT_TRUE(succeeded(alone) && succeeded(shared)) << diagnostics;
    shared->setThreadPool(&pool);
    FieldRandom random(5);
    SmallVector<FieldTensor> inputs =
        drawRandomInputs(alone->getFunction(), random);
    FieldOptions options;
    options.functionSeed = 11;
    FailureOr<FieldEvaluation> a = alone->evaluate(inputs, options);
    FailureOr<FieldEvaluation> b = shared->evaluate(inputs, options);
    ASSERT_TRUE(succeeded(a) && succeeded(b)) << diagnostics;
    ASSERT_EQ(a->results.size(), 1u);
    EXPECT_EQ(a->results[0].p, b->results[0].p) << name.str();
    EXPECT_EQ(a->results[0].q, b->results[0].q) << name.str();
    // Every tile was written: no zero left where the stores put values.
    EXPECT_EQ(llvm::count(b->results[0].p, 0u), 0) << name.str();
  }
}

// compareInField with a pool runs the two programs of a test at once (the
// JIT engine of --verify-equivalence does): the same comparison as one after
// the other, and the errors in the same order.
TEST_F(EvaluatorTest, BothProgramsRunAtOnceWithTheSameOutcome) {
  OwningOpRef<ModuleOp> module = parse(schedules());
  ASSERT_TRUE(module) << diagnostics;
  llvm::StdThreadPool pool(llvm::hardware_concurrency(2));
  func::FuncOp reference = lookupFunc(*module, "reference");
  FailureOr<FieldEvaluator> rhs = FieldEvaluator::create(reference);
  ASSERT_TRUE(succeeded(rhs)) << diagnostics;
  SmallVector<bool> withExponents(reference.getNumArguments(), false);
  for (StringRef name : {"right", "wrong", "wrong_omap"}) {
    FailureOr<FieldEvaluator> lhs =
        FieldEvaluator::create(lookupFunc(*module, name));
    ASSERT_TRUE(succeeded(lhs)) << diagnostics;
    // The lhs waits until the rhs has started: one after the other, it
    // would wait in vain.
    std::mutex mutex;
    std::condition_variable started;
    bool rhsStarted = false, lhsSawIt = true;
    auto runLhs = [&](ArrayRef<FieldTensor> inputs,
                      const FieldOptions &options) {
      std::unique_lock<std::mutex> lock(mutex);
      lhsSawIt &= started.wait_for(lock, std::chrono::seconds(10),
                                   [&] { return rhsStarted; });
      lock.unlock();
      return lhs->evaluate(inputs, options);
    };
    auto runRhs = [&](ArrayRef<FieldTensor> inputs,
                      const FieldOptions &options) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        rhsStarted = true;
      }
      started.notify_all();
      return rhs->evaluate(inputs, options);
    };
    FailureOr<FieldComparison> together =
        compareInField(lhs->getFunction(), reference, withExponents, runLhs,
                       runRhs, /*tests=*/2, /*seed=*/9, &pool);
    FailureOr<FieldComparison> alone =
        compareInField(*lhs, *rhs, /*tests=*/2, /*seed=*/9);
    ASSERT_TRUE(succeeded(together) && succeeded(alone)) << diagnostics;
    EXPECT_TRUE(lhsSawIt) << name.str();
    EXPECT_EQ(together->verdict, alone->verdict) << name.str();
    EXPECT_EQ(together->tests, alone->tests) << name.str();
    EXPECT_EQ(together->index, alone->index) << name.str();
    EXPECT_EQ(together->lhsValue, alone->lhsValue) << name.str();
    EXPECT_EQ(together->rhsValue, alone->rhsValue) << name.str();
  }

  // Both fail: the lhs's error first, though it comes later.
  std::string errors;
  {
    test::DiagnosticCollector collect(&context, errors);
    auto failLate = [&](ArrayRef<FieldTensor>,
                        const FieldOptions &) -> FailureOr<FieldEvaluation> {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return reference.emitError("lhs failed");
    };
    auto failAtOnce = [&](ArrayRef<FieldTensor>,
                          const FieldOptions &) -> FailureOr<FieldEvaluation> {
      return reference.emitError("rhs failed");
    };
    EXPECT_TRUE(failed(compareInField(reference, reference, withExponents,
                                      failLate, failAtOnce, 1, 1, &pool)));
  }
  EXPECT_EQ(errors, "lhs failed\nrhs failed\n");
}

} // namespace
