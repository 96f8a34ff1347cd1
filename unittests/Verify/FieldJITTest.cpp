//===- FieldJITTest.cpp - The JIT-compiled field program agrees with the
//evaluator -===//
//
// The two implementations of docs/verification.md must compute the same
// thing: every function of every example and of the dialects' round-trip
// tests (which together use every kernel, block and thread op), plus small
// programs for what those do not reach (division by zero, non-LAX ops,
// every accumulator, exp of roots and random functions), runs on both
// engines on the same inputs and random functions, and the results must be
// equal element by element, in both fields where the evaluator computes the
// q-part, and so must the division-by-zero flags. The example runs print the
// JIT's speed.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Verify/FieldJIT.h"
#include "mlsopt/Dialect/Block/IR/BlockDialect.h"
#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h"
#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"
#include "mlsopt/Verify/Evaluator.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include "MLIRTest.h"
#include "TestPrograms.h"

#include <chrono>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::verify;

namespace {

class FieldJITTest : public test::MLIRTest {
protected:
  /// Runs `func` on both engines over `tests` draws of inputs and random
  /// functions and expects equal results. Returns whether both engines
  /// accepted the function (false, without a failure, when the evaluator
  /// rejects it and `mayReject`); `divisions` counts tests that divided by
  /// zero.
  bool expectAgreement(func::FuncOp func, unsigned tests = 2,
                       bool mayReject = false, unsigned *divisions = nullptr) {
    std::string name = ("@" + func.getSymName()).str();
    std::string local;
    FailureOr<FieldEvaluator> evaluator = failure();
    {
      test::DiagnosticCollector collect(&context, local);
      evaluator = FieldEvaluator::create(func);
    }
    if (failed(evaluator)) {
      EXPECT_TRUE(mayReject) << name << ": " << local;
      return false;
    }
    test::DiagnosticCollector collect = collectDiagnostics();
    FailureOr<std::unique_ptr<FieldJIT>> jit = FieldJIT::create({func});
    EXPECT_TRUE(succeeded(jit)) << name << ": " << diagnostics;
    if (failed(jit))
      return false;
    for (unsigned t = 0; t < tests; ++t) {
      // Every input with q-parts: what the evaluator reads must be there,
      // the rest must not change anything mod p.
      FieldRandom random(1000 + t);
      SmallVector<FieldTensor> inputs = drawRandomInputs(func, random);
      FieldOptions options;
      options.functionSeed = mix64(77 + t);
      FailureOr<FieldEvaluation> want = evaluator->evaluate(inputs, options);
      FailureOr<FieldEvaluation> got = (*jit)->evaluate(0, inputs, options);
      EXPECT_TRUE(succeeded(want) && succeeded(got))
          << name << ": " << diagnostics;
      if (failed(want) || failed(got))
        return false;
      EXPECT_EQ(got->divisionByZero, want->divisionByZero) << name;
      if (divisions && want->divisionByZero)
        ++*divisions;
      EXPECT_EQ(got->results.size(), want->results.size()) << name;
      for (auto [r, pair] :
           llvm::enumerate(llvm::zip(got->results, want->results))) {
        const FieldTensor &g = std::get<0>(pair), &w = std::get<1>(pair);
        EXPECT_EQ(g.shape, w.shape) << name << " result " << r;
        if (g.shape != w.shape)
          continue;
        int64_t n = w.getNumElements();
        int64_t firstP = -1, firstQ = -1;
        for (int64_t i = 0; i < n; ++i) {
          if (firstP < 0 && g.p[i] != w.p[i])
            firstP = i;
          if (firstQ < 0 && w.hasExponents() && g.q[i] != w.q[i])
            firstQ = i;
        }
        EXPECT_EQ(firstP, -1) << name << " result " << r << " test " << t
                              << ": mod p, first difference at element "
                              << firstP;
        EXPECT_EQ(firstQ, -1) << name << " result " << r << " test " << t
                              << ": mod q, first difference at element "
                              << firstQ;
      }
    }
    return true;
  }

  /// expectAgreement for every function of the source file `path`; adds the
  /// names of the ops of the functions both engines ran to `covered`.
  void expectAgreementOnFile(StringRef path, llvm::StringSet<> &covered,
                             unsigned &functions) {
    OwningOpRef<ModuleOp> module = parseSourceFile(path);
    ASSERT_TRUE(module) << path.str() << ": " << diagnostics;
    for (auto func : module->getOps<func::FuncOp>()) {
      // The round-trip tests include full-size attention (10^9
      // multiply-adds): the examples test that scale, this test the ops.
      bool large = false;
      auto check = [&](TypeRange types) {
        for (Type t : types)
          if (auto tensor = dyn_cast<RankedTensorType>(t))
            large |= tensor.hasStaticShape() &&
                     tensor.getNumElements() > (int64_t(1) << 16);
      };
      check(func.getArgumentTypes());
      func.walk([&](Operation *op) { check(op->getResultTypes()); });
      if (func.isExternal() || large ||
          !expectAgreement(func, /*tests=*/1, /*mayReject=*/true))
        continue;
      ++functions;
      func.walk([&](Operation *op) {
        covered.insert(op->getName().getStringRef());
      });
    }
  }
};

//===----------------------------------------------------------------------===//
// Every op
//===----------------------------------------------------------------------===//

TEST_F(FieldJITTest, EveryOpOfTheDialectTests) {
  llvm::StringSet<> covered;
  unsigned functions = 0;
  for (StringRef path :
       {"test/Dialect/Kernel/ops.mlir", "test/Dialect/Block/ops.mlir",
        "test/Dialect/Thread/ops.mlir"})
    expectAgreementOnFile(path, covered, functions);
  // What the round-trip tests use only at large shapes.
  OwningOpRef<ModuleOp> small = parse(R"mlir(
func.func @batched(%a: tensor<2x3x5xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x4xf32> {
  %t = kernel.transpose %b [0, 2, 1] : tensor<2x4x5xf32>
  %m = kernel.matmul %a, %t : tensor<2x3x5xf32>, tensor<2x5x4xf32>
  return %m : tensor<2x3x4xf32>
}
// Blocks of 16 x 16 outputs with ragged edges in both dims; the exp needs
// the q-parts of the products too.
func.func @ragged_blocks(%a: tensor<2x37x21xf32>, %b: tensor<2x21x19xf32>) -> (tensor<2x37x19xf32>, tensor<2x37x19xf32>) {
  %m = kernel.matmul %a, %b : tensor<2x37x21xf32>, tensor<2x21x19xf32>
  %e = kernel.exp %m : tensor<2x37x19xf32>
  return %m, %e : tensor<2x37x19xf32>, tensor<2x37x19xf32>
}
)mlir");
  ASSERT_TRUE(small) << diagnostics;
  for (auto func : small->getOps<func::FuncOp>()) {
    ASSERT_TRUE(expectAgreement(func, /*tests=*/2));
    func.walk([&](Operation *op) {
      covered.insert(op->getName().getStringRef());
    });
  }

  // Every op of the three dialects ran on both engines somewhere.
  context.getOrLoadDialect<kernel::KernelDialect>();
  context.getOrLoadDialect<block::BlockDialect>();
  context.getOrLoadDialect<thread::ThreadDialect>();
  SmallVector<std::string> missing;
  for (RegisteredOperationName op : context.getRegisteredOperations()) {
    StringRef ns = op.getDialectNamespace();
    if ((ns == "kernel" || ns == "block" || ns == "thread") &&
        !covered.contains(op.getStringRef()))
      missing.push_back(op.getStringRef().str());
  }
  EXPECT_TRUE(missing.empty())
      << "ops no dialect test ran on both engines: "
      << llvm::join(missing, ", ");
  EXPECT_GE(functions, 10u);
}

/// Every accumulator kind, every unary and binary kind at the thread level,
/// broadcasting thread operands and a grid over x and z.
TEST_F(FieldJITTest, EveryAccumulatorAndThreadKind) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @accumulators(%x: tensor<4x8x16xf32>) -> (tensor<4x8x1xf32>, tensor<4x8x1xf32>, tensor<4x8x4xf32>, tensor<4x8x1xf32>, tensor<4x8x4xf32>) {
  %o:5 = kernel.custom (%x) grid <2, 1, 2> block <32, 1, 1>
      : (tensor<4x8x16xf32>) -> (tensor<4x8x1xf32>, tensor<4x8x1xf32>, tensor<4x8x4xf32>, tensor<4x8x1xf32>, tensor<4x8x4xf32>) {
  ^bb0(%in: tensor<4x8x16xf32>, %o0: tensor<4x8x1xf32>, %o1: tensor<4x8x1xf32>, %o2: tensor<4x8x4xf32>, %o3: tensor<4x8x1xf32>, %o4: tensor<4x8x4xf32>):
    %acc:5 = block.for_loop 4 iterations accumulate (max, sum, mean, rms, rescale by 0)
        : tensor<2x4x1xf32>, tensor<2x4x1xf32>, tensor<2x4x4xf32>, tensor<2x4x1xf32>, tensor<2x4x4xf32> {
      %t = block.load %in imap <x = 0, z = 1> fmap 2 : tensor<4x8x16xf32> -> tensor<2x4x4xf32>
      %m = block.reduce_max %t dim 2 : tensor<2x4x4xf32>
      %s = block.reduce_sum %t dim 2 : tensor<2x4x4xf32>
      %e = block.exp %t : tensor<2x4x4xf32>
      block.yield %m, %s, %t, %s, %e : tensor<2x4x1xf32>, tensor<2x4x1xf32>, tensor<2x4x4xf32>, tensor<2x4x1xf32>, tensor<2x4x4xf32>
    }
    block.store %acc#0, %o0 omap <x = 0, z = 1> : tensor<2x4x1xf32> into tensor<4x8x1xf32>
    block.store %acc#1, %o1 omap <x = 0, z = 1> : tensor<2x4x1xf32> into tensor<4x8x1xf32>
    block.store %acc#2, %o2 omap <x = 0, z = 1> : tensor<2x4x4xf32> into tensor<4x8x4xf32>
    block.store %acc#3, %o3 omap <x = 0, z = 1> : tensor<2x4x1xf32> into tensor<4x8x1xf32>
    block.store %acc#4, %o4 omap <x = 0, z = 1> : tensor<2x4x4xf32> into tensor<4x8x4xf32>
    block.return
  }
  return %o#0, %o#1, %o#2, %o#3, %o#4 : tensor<4x8x1xf32>, tensor<4x8x1xf32>, tensor<4x8x4xf32>, tensor<4x8x1xf32>, tensor<4x8x4xf32>
}

func.func @thread_kinds(%a: tensor<4x8xf32>, %b: tensor<4x1xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %o:2 = kernel.custom (%a, %b) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<4x8xf32>, tensor<4x1xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%in0: tensor<4x8xf32>, %in1: tensor<4x1xf32>, %out0: tensor<4x8xf32>, %out1: tensor<4x8xf32>):
    %acc:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<2x8xf32>, tensor<2x1xf32> {
      %ta = block.load %in0 imap <x = 0> : tensor<4x8xf32> -> tensor<2x8xf32>
      %tb = block.load %in1 imap <x = 0> : tensor<4x1xf32> -> tensor<2x1xf32>
      block.yield %ta, %tb : tensor<2x8xf32>, tensor<2x1xf32>
    }
    %y:2 = thread.graph(%acc#0, %acc#1) : (tensor<2x8xf32>, tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
    ^bb0(%x: f32, %s: f32):
      %u0 = thread.unary exp %x : f32
      %u1 = thread.unary log %u0 : f32
      %u2 = thread.unary sqrt %u1 : f32
      %u3 = thread.unary rsqrt %u2 : f32
      %u4 = thread.unary square %u3 : f32
      %u5 = thread.unary silu %u4 : f32
      %u6 = thread.unary sigmoid %u5 : f32
      %u7 = thread.unary gelu %u6 : f32
      %u8 = thread.unary relu %u7 : f32
      %u9 = thread.unary tanh %u8 : f32
      %u10 = thread.unary erf %u9 : f32
      %u11 = thread.unary neg %u10 : f32
      %b0 = thread.binary add %u11, %s : f32
      %b1 = thread.binary sub %b0, %x : f32
      %b2 = thread.binary mul %b1, %s : f32
      %b3 = thread.binary div %b2, %x : f32
      %c0 = thread.mul_scalar %b3, 0.044715 : f32
      %c1 = thread.add_scalar %c0, -3.5 : f32
      thread.yield %c1, %b3 : f32, f32
    }
    block.store %y#0, %out0 omap <x = 0> : tensor<2x8xf32> into tensor<4x8xf32>
    block.store %y#1, %out1 omap <x = 0> : tensor<2x8xf32> into tensor<4x8xf32>
    block.return
  }
  return %o#0, %o#1 : tensor<4x8xf32>, tensor<4x8xf32>
}
)mlir");
  ASSERT_TRUE(module) << diagnostics;
  for (auto func : module->getOps<func::FuncOp>())
    EXPECT_TRUE(expectAgreement(func, /*tests=*/3)) << diagnostics;
}

//===----------------------------------------------------------------------===//
// Division by zero and non-LAX ops
//===----------------------------------------------------------------------===//

TEST_F(FieldJITTest, BothEnginesSeeDivisionByZero) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
// x / (x - x): a zero divisor mod p on every draw.
func.func @mod_p(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = kernel.sub %x, %x : tensor<4xf32>, tensor<4xf32>
  %q = kernel.div %x, %z : tensor<4xf32>, tensor<4xf32>
  return %q : tensor<4xf32>
}
// A zero divisor in rsqrt(0).
func.func @rsqrt_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = kernel.sub %x, %x : tensor<4xf32>, tensor<4xf32>
  %r = kernel.rsqrt %z : tensor<4xf32>
  %y = kernel.mul %x, %r : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir");
  ASSERT_TRUE(module) << diagnostics;
  for (auto func : module->getOps<func::FuncOp>()) {
    unsigned divisions = 0;
    EXPECT_TRUE(expectAgreement(func, /*tests=*/2, false, &divisions));
    EXPECT_EQ(divisions, 2u) << "@" << func.getSymName().str();
  }
}

TEST_F(FieldJITTest, NonLaxOpsAreTheSameRandomFunctions) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @non_lax(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x1xf32>, tensor<3x5xf32>) {
  %a = kernel.tanh %x : tensor<3x5xf32>
  %b = kernel.erf %a : tensor<3x5xf32>
  %c = kernel.silu %b : tensor<3x5xf32>
  %d = kernel.gelu %c : tensor<3x5xf32>
  %e = kernel.relu %d : tensor<3x5xf32>
  %f = kernel.sigmoid %e : tensor<3x5xf32>
  %g = kernel.log %f : tensor<3x5xf32>
  %m = kernel.reduce_max %g dim 1 : tensor<3x5xf32>
  %n = kernel.rms_norm %g {epsilon = 1.0e-06 : f64} : tensor<3x5xf32>
  %l = kernel.exp %g : tensor<3x5xf32>
  return %n, %m, %l : tensor<3x5xf32>, tensor<3x1xf32>, tensor<3x5xf32>
}
)mlir");
  ASSERT_TRUE(module) << diagnostics;
  func::FuncOp func = lookupFunc(*module, "non_lax");
  EXPECT_TRUE(expectAgreement(func, /*tests=*/3));

  // A different function seed gives a different random function: the JIT
  // really reads the seed.
  FailureOr<std::unique_ptr<FieldJIT>> jit = FieldJIT::create({func});
  ASSERT_TRUE(succeeded(jit)) << diagnostics;
  FieldRandom random(5);
  SmallVector<FieldTensor> inputs = drawRandomInputs(func, random);
  FieldOptions one, two;
  one.functionSeed = 1;
  two.functionSeed = 2;
  FailureOr<FieldEvaluation> a = (*jit)->evaluate(0, inputs, one);
  FailureOr<FieldEvaluation> b = (*jit)->evaluate(0, inputs, two);
  ASSERT_TRUE(succeeded(a) && succeeded(b)) << diagnostics;
  EXPECT_NE(a->results[0].p, b->results[0].p);
  // exp of log's value reads its residue mod q, drawn from the seed too.
  EXPECT_NE(a->results[2].p, b->results[2].p);
}

/// exp of sqrt, rsqrt, rms_norm (kernel and block), the rms accumulator and
/// random functions: both engines give them the same residues mod q.
TEST_F(FieldJITTest, RootsUnderExp) {
  OwningOpRef<ModuleOp> module = parse(test::rootsUnderExp());
  ASSERT_TRUE(module) << diagnostics;
  unsigned functions = 0;
  for (auto func : module->getOps<func::FuncOp>()) {
    EXPECT_TRUE(expectAgreement(func, /*tests=*/3)) << diagnostics;
    ++functions;
  }
  EXPECT_EQ(functions, 16u);
}

//===----------------------------------------------------------------------===//
// The examples
//===----------------------------------------------------------------------===//

TEST_F(FieldJITTest, EveryFunctionOfTheExamples) {
  unsigned functions = 0;
  for (const std::string &path : exampleFiles()) {
    OwningOpRef<ModuleOp> module = parseSourceFile(path);
    ASSERT_TRUE(module) << path << ": " << diagnostics;
    for (auto func : module->getOps<func::FuncOp>()) {
      auto start = std::chrono::steady_clock::now();
      EXPECT_TRUE(expectAgreement(func, /*tests=*/1));
      double seconds = test::secondsSince(start);
      ++functions;
      std::printf("[ jit+evaluator ] %s @%s: compile and one run on each "
                  "engine, %.3f s\n",
                  llvm::sys::path::filename(path).str().c_str(),
                  func.getSymName().str().c_str(), seconds);
    }
  }
  EXPECT_GE(functions, 8u);
}

} // namespace
