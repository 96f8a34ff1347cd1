//===- AbstractExprTest.cpp - Abstract expressions and their builders -----===//
//
// Hash-consing (equal expressions are equal pointers, distinct constants stay
// distinct), the composite builders, and the expression of every kernel,
// block and thread op. The op tests annotate each op with the expression it
// must get (`{expect = "..."}`, an attribute no verifier looks at), so one
// walk checks every op of the program.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Search/AbstractExpr.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "MLIRTest.h"
#include "SearchTestUtils.h"

#include <string>
#include <thread>
#include <vector>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

namespace {

using test::str;

class AbstractExprTest : public test::MLIRTest {
protected:
  /// Builds the expressions of every value of @`name` in `source` and checks
  /// each op that has an `expect` attribute against it. Returns the number
  /// of ops checked.
  unsigned checkExpectations(StringRef source, StringRef name = "f") {
    OwningOpRef<ModuleOp> module = parse(source);
    EXPECT_TRUE(module) << diagnostics;
    if (!module)
      return 0;
    func::FuncOp func = lookupFunc(*module, name);
    EXPECT_TRUE(func);
    ExprContext ctx;
    DenseMap<Value, ExprRef> exprs;
    EXPECT_TRUE(succeeded(test::buildFunctionExprs(func, ctx, exprs)))
        << diagnostics;
    unsigned checked = 0;
    func.walk([&](Operation *op) {
      auto expect = op->getAttrOfType<StringAttr>("expect");
      if (!expect)
        return;
      ++checked;
      ASSERT_TRUE(exprs.count(op->getResult(0)))
          << op->getName().getStringRef().str();
      EXPECT_EQ(str(exprs[op->getResult(0)]), expect.getValue().str())
          << "for " << op->getName().getStringRef().str();
    });
    return checked;
  }
};

TEST_F(AbstractExprTest, HashConsing) {
  ExprContext ctx;
  ExprRef x = ctx.getInput(0), w = ctx.getInput(1);
  EXPECT_EQ(ctx.getInput(0), x);
  EXPECT_NE(x, w);
  EXPECT_EQ(ctx.getMul(x, w), ctx.getMul(ctx.getInput(0), ctx.getInput(1)));
  // Structural, not modulo the axioms: that is the oracle's business.
  EXPECT_NE(ctx.getMul(x, w), ctx.getMul(w, x));
  EXPECT_EQ(ctx.getSum(64, x), ctx.getSum(64, x));
  EXPECT_NE(ctx.getSum(64, x), ctx.getSum(32, x));
  EXPECT_NE(ctx.getSum(64, x), ctx.getMax(64, x));
  EXPECT_EQ(ctx.getConstant(0.044715), ctx.getConstant(0.044715));
  EXPECT_NE(ctx.getConstant(0.044715), ctx.getConstant(0.044716));
  EXPECT_EQ(ctx.getConstant(-0.0), ctx.getConstant(0.0));
  EXPECT_EQ(ctx.getOpaque("silu", {x}), ctx.getOpaque("silu", {x}));
  EXPECT_NE(ctx.getOpaque("silu", {x}), ctx.getOpaque("gelu", {x}));
  EXPECT_NE(ctx.getOpaque("silu", {x}), ctx.getOpaque("silu", {w}));

  size_t before = ctx.size();
  ctx.getMatmul(x, w, 4096);
  ctx.getMatmul(x, w, 4096);
  EXPECT_EQ(ctx.size(), before + 1); // sum(4096, mul(x, w)), once.
}

// The literal pass of the search compares unordered hashes: equal for
// operands of add and mul in either order, at any depth, and different
// wherever the order matters or the structure differs.
TEST_F(AbstractExprTest, UnorderedHash) {
  ExprContext ctx;
  ExprRef x = ctx.getInput(0), g = ctx.getInput(1), w = ctx.getInput(2);
  auto hash = [](ExprRef e) { return e->getUnorderedHash(); };
  ExprRef rms = ctx.getRmsNorm(x, 2048, 1e-5);
  EXPECT_EQ(hash(ctx.getMul(rms, g)), hash(ctx.getMul(g, rms)));
  EXPECT_EQ(hash(ctx.getMatmul(ctx.getMul(rms, g), w, 2048)),
            hash(ctx.getMatmul(ctx.getMul(g, rms), w, 2048)));
  EXPECT_EQ(hash(ctx.getAdd(x, ctx.getExp(g))),
            hash(ctx.getAdd(ctx.getExp(g), x)));
  EXPECT_NE(hash(ctx.getSub(x, g)), hash(ctx.getSub(g, x)));
  EXPECT_NE(hash(ctx.getDiv(x, g)), hash(ctx.getDiv(g, x)));
  EXPECT_NE(hash(ctx.getMatmul(x, w, 64)), hash(ctx.getMatmul(x, w, 32)));
  EXPECT_NE(hash(ctx.getSum(64, x)), hash(ctx.getSum(32, x)));
  EXPECT_NE(hash(ctx.getSum(64, x)), hash(ctx.getMax(64, x)));
  EXPECT_NE(hash(ctx.getConstant(0.5)), hash(ctx.getConstant(0.25)));
  EXPECT_NE(hash(ctx.getOpaque("silu", {x})), hash(ctx.getOpaque("gelu", {x})));
  EXPECT_NE(hash(x), hash(g));
  // A fixed function of the structure: another context gives the same.
  ExprContext other;
  EXPECT_EQ(
      hash(ctx.getMul(rms, g)),
      hash(other.getMul(other.getInput(1),
                        other.getRmsNorm(other.getInput(0), 2048, 1e-5))));
}

TEST_F(AbstractExprTest, SubtractsMax) {
  ExprContext ctx;
  ExprRef x = ctx.getInput(0), c = ctx.getConstant(0.125);
  ExprRef m = ctx.getMax(64, x);
  ExprRef shifted = ctx.getSub(x, m);
  EXPECT_TRUE(shifted->subtractsMax());
  EXPECT_TRUE(ctx.getMul(shifted, c)->subtractsMax());
  EXPECT_TRUE(ctx.getSub(ctx.getMul(x, c), ctx.getMul(m, c))->subtractsMax());
  EXPECT_TRUE(ctx.getAdd(ctx.getNeg(m), x)->subtractsMax());
  // A maximum held but not subtracted: exp of it overflows as exp(x) does.
  EXPECT_TRUE(m->holdsMax());
  EXPECT_FALSE(m->subtractsMax());
  EXPECT_FALSE(ctx.getSub(m, x)->subtractsMax());
  EXPECT_FALSE(ctx.getAdd(x, m)->subtractsMax());
  EXPECT_FALSE(ctx.getExp(shifted)->subtractsMax());
  EXPECT_FALSE(ctx.getSub(x, ctx.getSum(64, x))->subtractsMax());
  EXPECT_FALSE(ctx.getNeg(m)->subtractsMax());
}

// Only a maximum of the values themselves bounds them: the maximum of a
// chunk's maxima (flash-decoding's combine) does, a maximum of other values
// does not, though a softmax shifted by it is the same over the field (a
// search had shifted attention scores by max(sum(q)), and the f32 result
// was NaN where the program's was finite).
TEST_F(AbstractExprTest, SubtractsMaxOfTheSameValues) {
  ExprContext ctx;
  ExprRef q = ctx.getInput(0), k = ctx.getInput(1);
  ExprRef scores = ctx.getSum(64, ctx.getMul(q, k));
  ExprRef chunkMax = ctx.getMax(256, scores);
  ExprRef rowMax = ctx.getMax(4, chunkMax);
  EXPECT_TRUE(ctx.getSub(scores, chunkMax)->subtractsMax());
  EXPECT_TRUE(ctx.getSub(scores, rowMax)->subtractsMax());
  EXPECT_TRUE(ctx.getSub(chunkMax, rowMax)->subtractsMax());
  ExprRef other = ctx.getMax(2, ctx.getSum(32, q));
  EXPECT_TRUE(other->holdsMax());
  EXPECT_FALSE(ctx.getSub(scores, other)->subtractsMax());
  EXPECT_FALSE(ctx.getAdd(scores, ctx.getNeg(other))->subtractsMax());
  EXPECT_FALSE(ctx.getExp(ctx.getSub(scores, other))->subtractsMax());
}

TEST_F(AbstractExprTest, IsScaled) {
  ExprContext ctx;
  ExprRef x = ctx.getInput(0), y = ctx.getInput(1);
  ExprRef c = ctx.getConstant(1.0 / 1024);
  EXPECT_TRUE(ctx.getMul(x, c)->isScaled());
  EXPECT_TRUE(ctx.getMul(c, x)->isScaled());
  // A loop that accumulates a scaled value, and a mean accumulator.
  EXPECT_TRUE(ctx.getSum(4, ctx.getMul(x, c))->isScaled());
  EXPECT_TRUE(ctx.getAccumulated(block::AccumKind::mean, 4, x)->isScaled());
  EXPECT_FALSE(x->isScaled());
  EXPECT_FALSE(ctx.getMul(x, y)->isScaled());
  EXPECT_FALSE(ctx.getSum(64, ctx.getMul(x, x))->isScaled());
  EXPECT_FALSE(ctx.getAdd(ctx.getMul(x, c), y)->isScaled());
  EXPECT_FALSE(ctx.getRmsNorm(x, 1024, 0)->isScaled());
}

TEST_F(AbstractExprTest, HashConsingAcrossThreads) {
  ExprContext ctx;
  std::vector<ExprRef> built(4);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < built.size(); ++t)
    threads.emplace_back([&, t] {
      ExprRef e = ctx.getInput(0);
      for (int i = 0; i < 2000; ++i)
        e = ctx.getAdd(ctx.getMul(e, ctx.getInput(1)), ctx.getConstant(i));
      built[t] = e;
    });
  for (std::thread &thread : threads)
    thread.join();
  for (ExprRef e : built)
    EXPECT_EQ(e, built[0]);
}

TEST_F(AbstractExprTest, CompositeBuilders) {
  ExprContext ctx;
  ExprRef x = ctx.getInput(0), w = ctx.getInput(1);
  EXPECT_EQ(str(ctx.getMatmul(x, w, 64)), "sum(64, mul(in0, in1))");
  EXPECT_EQ(str(ctx.getRmsNorm(x, 4096, 1e-6)),
            "div(in0, sqrt(add(mul(sum(4096, mul(in0, in0)), "
            "0.000244140625), 9.9999999999999995e-07)))");
  EXPECT_EQ(str(ctx.getRmsNorm(x, 4, 0)),
            "div(in0, sqrt(mul(sum(4, mul(in0, in0)), 0.25)))");
  EXPECT_EQ(str(ctx.getAccumulated(block::AccumKind::sum, 8, x)),
            "sum(8, in0)");
  EXPECT_EQ(str(ctx.getAccumulated(block::AccumKind::max, 8, x)),
            "max(8, in0)");
  EXPECT_EQ(str(ctx.getAccumulated(block::AccumKind::mean, 8, x)),
            "mul(sum(8, in0), 0.125)");
  EXPECT_EQ(str(ctx.getAccumulated(block::AccumKind::rms, 8, x)),
            "sqrt(mul(sum(8, mul(in0, in0)), 0.125))");
  // Rescale: the per-iteration max m is replaced by the loop's max(n, m).
  ExprRef m = ctx.getMax(64, x);
  ExprRef p = ctx.getExp(ctx.getSub(x, m));
  EXPECT_EQ(str(ctx.getAccumulated(block::AccumKind::rescale, 4,
                                   ctx.getMul(p, w), m)),
            "sum(4, mul(exp(sub(in0, max(4, max(64, in0)))), in1))");
  EXPECT_EQ(ctx.substitute(p, w, x), p);
}

TEST_F(AbstractExprTest, EveryKernelOp) {
  unsigned checked = checkExpectations(R"mlir(
func.func @f(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>, %c: tensor<8x64xf32>) -> tensor<8x16xf32> {
  %0 = kernel.matmul %a, %b {expect = "sum(64, mul(in0, in1))"} : tensor<8x64xf32>, tensor<64x16xf32>
  %1 = kernel.add %a, %c {expect = "add(in0, in2)"} : tensor<8x64xf32>, tensor<8x64xf32>
  %2 = kernel.sub %a, %c {expect = "sub(in0, in2)"} : tensor<8x64xf32>, tensor<8x64xf32>
  %3 = kernel.mul %a, %c {expect = "mul(in0, in2)"} : tensor<8x64xf32>, tensor<8x64xf32>
  %4 = kernel.div %a, %c {expect = "div(in0, in2)"} : tensor<8x64xf32>, tensor<8x64xf32>
  %5 = kernel.exp %a {expect = "exp(in0)"} : tensor<8x64xf32>
  %6 = kernel.log %a {expect = "log(in0)"} : tensor<8x64xf32>
  %7 = kernel.sqrt %a {expect = "sqrt(in0)"} : tensor<8x64xf32>
  %8 = kernel.rsqrt %a {expect = "rsqrt(in0)"} : tensor<8x64xf32>
  %9 = kernel.square %a {expect = "square(in0)"} : tensor<8x64xf32>
  %10 = kernel.silu %a {expect = "silu(in0)"} : tensor<8x64xf32>
  %11 = kernel.sigmoid %a {expect = "sigmoid(in0)"} : tensor<8x64xf32>
  %12 = kernel.gelu %a {expect = "gelu(in0)"} : tensor<8x64xf32>
  %13 = kernel.relu %a {expect = "relu(in0)"} : tensor<8x64xf32>
  %14 = kernel.tanh %a {expect = "tanh(in0)"} : tensor<8x64xf32>
  %15 = kernel.erf %a {expect = "erf(in0)"} : tensor<8x64xf32>
  %16 = kernel.neg %a {expect = "neg(in0)"} : tensor<8x64xf32>
  %17 = kernel.mul_scalar %a, 0.125 {expect = "mul(in0, 0.125)"} : tensor<8x64xf32>
  %18 = kernel.add_scalar %a, 2.5 {expect = "add(in0, 2.5)"} : tensor<8x64xf32>
  %19 = kernel.reduce_sum %a dim 1 {expect = "sum(64, in0)"} : tensor<8x64xf32>
  %20 = kernel.reduce_max %a dim 0 {expect = "max(8, in0)"} : tensor<8x64xf32>
  %21 = kernel.rms_norm %a {epsilon = 5.0e-01 : f64, expect = "div(in0, sqrt(add(mul(sum(64, mul(in0, in0)), 0.015625), 0.5)))"} : tensor<8x64xf32>
  %22 = kernel.concat %a, %c dim 1 {expect = "concat(in0, in2)"} : tensor<8x64xf32>, tensor<8x64xf32>
  %23 = kernel.transpose %b [1, 0] {expect = "in1"} : tensor<64x16xf32>
  %24 = kernel.matmul %5, %b {expect = "sum(64, mul(exp(in0), in1))"} : tensor<8x64xf32>, tensor<64x16xf32>
  return %24 : tensor<8x16xf32>
}
)mlir");
  EXPECT_EQ(checked, 25u);
}

TEST_F(AbstractExprTest, EveryBlockAndThreadOp) {
  // Every block compute op on tiles, every accumulator kind but rescale
  // (the attention example covers it), and a thread graph after the loop.
  unsigned checked = checkExpectations(R"mlir(
func.func @f(%x: tensor<8x256xf32>, %w: tensor<256x64xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %o:5 = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x256xf32>, tensor<256x64xf32>)
        -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  ^bb0(%in0: tensor<8x256xf32>, %in1: tensor<256x64xf32>, %out0: tensor<8x64xf32>,
       %out1: tensor<8x64xf32>, %out2: tensor<8x64xf32>, %out3: tensor<8x64xf32>, %out4: tensor<8x64xf32>):
    %acc:5 = block.for_loop 4 iterations accumulate (sum, max, mean, rms, sum)
        : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32> {
      %xt = block.load %in0 imap <> fmap 1 {expect = "in0"} : tensor<8x256xf32> -> tensor<8x64xf32>
      %wt = block.load %in1 imap <> fmap 0 {expect = "in1"} : tensor<256x64xf32> -> tensor<64x64xf32>
      %m = block.matmul %xt, %wt {expect = "sum(64, mul(in0, in1))"} : tensor<8x64xf32>, tensor<64x64xf32>
      %a = block.add %xt, %m {expect = "add(in0, sum(64, mul(in0, in1)))"} : tensor<8x64xf32>, tensor<8x64xf32>
      %s = block.sub %xt, %m {expect = "sub(in0, sum(64, mul(in0, in1)))"} : tensor<8x64xf32>, tensor<8x64xf32>
      %p = block.mul %xt, %xt {expect = "mul(in0, in0)"} : tensor<8x64xf32>, tensor<8x64xf32>
      %e = block.exp %xt {expect = "exp(in0)"} : tensor<8x64xf32>
      %g = block.gelu %xt {expect = "gelu(in0)"} : tensor<8x64xf32>
      %sq = block.square %xt {expect = "square(in0)"} : tensor<8x64xf32>
      %rs = block.reduce_sum %sq dim 1 {expect = "sum(64, square(in0))"} : tensor<8x64xf32>
      %rm = block.reduce_max %xt dim 1 {expect = "max(64, in0)"} : tensor<8x64xf32>
      %d = block.div %xt, %rs {expect = "div(in0, sum(64, square(in0)))"} : tensor<8x64xf32>, tensor<8x1xf32>
      %n = block.rms_norm %xt {expect = "div(in0, sqrt(mul(sum(64, mul(in0, in0)), 0.015625)))"} : tensor<8x64xf32>
      %ms = block.mul_scalar %g, 3.0 {expect = "mul(gelu(in0), 3)"} : tensor<8x64xf32>
      %as = block.add_scalar %n, 1.0 {expect = "add(div(in0, sqrt(mul(sum(64, mul(in0, in0)), 0.015625))), 1)"} : tensor<8x64xf32>
      block.yield %m, %xt, %e, %xt, %d : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
    }
    %y = thread.graph (%acc#0, %acc#1) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%u: f32, %v: f32):
      %t1 = thread.unary silu %u {expect = "silu(sum(4, sum(64, mul(in0, in1))))"} : f32
      %t2 = thread.binary mul %t1, %v {expect = "mul(silu(sum(4, sum(64, mul(in0, in1)))), max(4, in0))"} : f32
      %t3 = thread.mul_scalar %t2, 0.5 {expect = "mul(mul(silu(sum(4, sum(64, mul(in0, in1)))), max(4, in0)), 0.5)"} : f32
      %t4 = thread.add_scalar %t3, 1.0e-06 {expect = "add(mul(mul(silu(sum(4, sum(64, mul(in0, in1)))), max(4, in0)), 0.5), 9.9999999999999995e-07)"} : f32
      thread.yield %t4 : f32
    }
    %c = block.mul_scalar %acc#2, 2.0 {expect = "mul(mul(sum(4, exp(in0)), 0.25), 2)"} : tensor<8x64xf32>
    %r = block.neg %acc#3 {expect = "neg(sqrt(mul(sum(4, mul(in0, in0)), 0.25)))"} : tensor<8x64xf32>
    block.store %y, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.store %acc#1, %out1 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.store %c, %out2 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.store %r, %out3 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.store %acc#4, %out4 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  %z = kernel.add %o#0, %o#4 {expect = "add(add(mul(mul(silu(sum(4, sum(64, mul(in0, in1)))), max(4, in0)), 0.5), 9.9999999999999995e-07), sum(4, div(in0, sum(64, square(in0)))))"} : tensor<8x64xf32>, tensor<8x64xf32>
  return %z, %o#1, %o#2, %o#3, %o#4 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}
)mlir");
  EXPECT_EQ(checked, 22u);
}

TEST_F(AbstractExprTest, ResultsOfAFunction) {
  OwningOpRef<ModuleOp> module = parseSourceFile("examples/gated_mlp.mlir");
  ASSERT_TRUE(module) << diagnostics;
  ExprContext ctx;
  FailureOr<SmallVector<ExprRef>> ref =
      buildResultExprs(lookupFunc(*module, "reference"), ctx);
  ASSERT_TRUE(succeeded(ref)) << diagnostics;
  ASSERT_EQ(ref->size(), 1u);
  EXPECT_EQ(str((*ref)[0]),
            "mul(silu(sum(4096, mul(in0, in1))), sum(4096, mul(in0, in2)))");
  FailureOr<SmallVector<ExprRef>> fused =
      buildResultExprs(lookupFunc(*module, "fused"), ctx);
  ASSERT_TRUE(succeeded(fused)) << diagnostics;
  EXPECT_EQ(str((*fused)[0]), "mul(silu(sum(32, sum(128, mul(in0, in1)))), "
                              "sum(32, sum(128, mul(in0, in2))))");
}

TEST_F(AbstractExprTest, UnknownOpIsADiagnostic) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.addf %a, %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)mlir");
  ASSERT_TRUE(module) << diagnostics;
  std::string errors;
  test::DiagnosticCollector collect(&context, errors);
  ExprContext ctx;
  EXPECT_TRUE(failed(buildResultExprs(lookupFunc(*module, "f"), ctx)));
  EXPECT_NE(errors.find("has no abstract expression"), std::string::npos)
      << errors;
}

} // namespace
