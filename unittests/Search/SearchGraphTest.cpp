//===- SearchGraphTest.cpp - The search's compact programs ----------------===//
//
// What the enumeration relies on: dimension classes unify exactly the dims
// that must match, a reference turned into a KernelGraph materializes back
// into the same function at any extents, custom kernels materialize into
// block graphs the verifier accepts, and the canonical text tells graphs
// apart.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Search/SearchGraph.h"
#include "mlsopt/Search/SearchProblem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

#include "MLIRTest.h"
#include "SearchTestUtils.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

namespace {

class SearchGraphTest : public test::MLIRTest {
protected:
  /// The problem of every kernel op of `func` in `module`.
  FailureOr<SearchProblem> problemOf(ModuleOp module, StringRef func = "f") {
    return test::buildFunctionProblem(lookupFunc(module, func));
  }
  /// Parses `text` into `module` and builds the problem of its `func`.
  FailureOr<SearchProblem> parseProblem(StringRef text,
                                        OwningOpRef<ModuleOp> &module,
                                        StringRef func = "f") {
    module = parse(text);
    if (!module)
      return failure();
    return problemOf(*module, func);
  }
  /// The text of `graph` materialized as function @fused at the end of
  /// `module`, which must verify; empty if it does not build.
  std::string materializeText(ModuleOp module, const KernelGraph &graph,
                              const SearchProblem &problem) {
    OpBuilder b(&context);
    b.setInsertionPointToEnd(module.getBody());
    FailureOr<func::FuncOp> func = materializeFunction(
        b, b.getUnknownLoc(), "fused", graph, problem.shapes);
    if (failed(func))
      return {};
    EXPECT_TRUE(succeeded(verify(module))) << diagnostics;
    std::string text;
    llvm::raw_string_ostream os(text);
    func->print(os);
    return text;
  }
};

constexpr StringLiteral kRmsNormMatmul = R"mlir(
func.func @f(%x: tensor<8x64xf16>, %w: tensor<64x32xf16>) -> tensor<8x32xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x64xf16>
  %o = kernel.matmul %n, %w : tensor<8x64xf16>, tensor<64x32xf16>
  return %o : tensor<8x32xf16>
}
// The key of attention stored [h, d, n], normalized over d.
func.func @key_norm(%q: tensor<2x8x64xf16>, %k: tensor<2x64x32xf16>) -> tensor<2x8x32xf16> {
  %n = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x64x32xf16>
  %o = kernel.matmul %q, %n : tensor<2x8x64xf16>, tensor<2x64x32xf16>
  return %o : tensor<2x8x32xf16>
}
)mlir";

TEST_F(SearchGraphTest, ClassesFollowContractionsAndVocabularyTheProgram) {
  OwningOpRef<ModuleOp> module;
  FailureOr<SearchProblem> problem = parseProblem(kRmsNormMatmul, module);
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  // X is [m, k], W is [k, n]: three classes, k shared by both.
  ASSERT_EQ(problem->shapes.extents.size(), 3u);
  EXPECT_EQ(problem->shapes.inputDims[0][1].cls,
            problem->shapes.inputDims[1][0].cls);
  EXPECT_NE(problem->shapes.inputDims[0][0].cls,
            problem->shapes.inputDims[1][1].cls);
  int k = problem->shapes.inputDims[0][1].cls;
  EXPECT_EQ(problem->shapes.extents[k], 64);
  // The sums of the matmul and of the rms_norm are both over k.
  EXPECT_TRUE(problem->sumClasses.contains(k));
  EXPECT_EQ(problem->sumClasses.size(), 1u);
  // rms_norm brings its pieces, with 1/k as a constant of the class.
  EXPECT_TRUE(problem->uses(OpKind::Square));
  EXPECT_TRUE(problem->uses(OpKind::ReduceSum));
  EXPECT_FALSE(problem->uses(OpKind::Exp));
  EXPECT_TRUE(llvm::is_contained(problem->scalars, Scalar{0.0, k}));
  EXPECT_EQ(problem->epsilons, SmallVector<double>{1.0e-06});
}

// A long summed class gets a chunk class for flash-decoding: about 256
// elements a chunk, at most 32 chunks, and a count that divides the extent.
TEST_F(SearchGraphTest, ChunkCountDividesTheSummedExtent) {
  auto chunksOf = [&](int64_t keys) -> std::optional<int64_t> {
    std::string text = llvm::formatv(R"mlir(
func.func @f(%q: tensor<2x16x64xf16>, %k: tensor<2x64x{0}xf16>, %v: tensor<2x{0}x64xf16>) -> tensor<2x16x64xf16> {{
  %s = kernel.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x{0}xf16>
  %o = kernel.matmul %s, %v : tensor<2x16x{0}xf16>, tensor<2x{0}x64xf16>
  return %o : tensor<2x16x64xf16>
}
)mlir",
                                     keys);
    OwningOpRef<ModuleOp> module;
    FailureOr<SearchProblem> problem = parseProblem(text, module);
    if (failed(problem))
      return std::nullopt;
    int n = problem->shapes.inputDims[1][2].cls;
    for (auto [cls, of] : llvm::enumerate(problem->shapes.chunkOf))
      if (of == n)
        return problem->shapes.extents[cls];
    return 0;
  };
  EXPECT_EQ(chunksOf(4096), 16);
  EXPECT_EQ(chunksOf(16384), 32);
  // 4000 / 256 is 15, which does not divide 4000: 10 chunks of 400.
  EXPECT_EQ(chunksOf(4000), 10);
  // A prime length has no whole chunks; a short one needs no split.
  EXPECT_EQ(chunksOf(4099), 0);
  EXPECT_EQ(chunksOf(300), 0);
}

TEST_F(SearchGraphTest, RmsNormOverDimOneNormalizesThatClass) {
  OwningOpRef<ModuleOp> module;
  FailureOr<SearchProblem> problem = parseProblem(kRmsNormMatmul, module, "key_norm");
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  // K is [h, d, n], normalized over d, the matmul's contraction class.
  int d = problem->shapes.inputDims[1][1].cls;
  int n = problem->shapes.inputDims[1][2].cls;
  EXPECT_EQ(problem->shapes.inputDims[0][2].cls, d);
  const SOp &norm = problem->reference.nodes[0].op;
  EXPECT_EQ(norm.kind, OpKind::RmsNorm);
  EXPECT_EQ(norm.dim, 1);
  // The enumeration normalizes over d only, with 1/d (not 1/n) for its mean.
  EXPECT_EQ(problem->normClasses.size(), 1u);
  EXPECT_TRUE(problem->normClasses.contains(d));
  EXPECT_FALSE(problem->sumClasses.contains(n));
  EXPECT_TRUE(llvm::is_contained(problem->scalars, Scalar{0.0, d}));
  EXPECT_FALSE(llvm::is_contained(problem->scalars, Scalar{0.0, n}));
  // Built back, the op keeps its dim; over the last dim it would print none.
  OpBuilder b(&context);
  b.setInsertionPointToEnd(module->getBody());
  FailureOr<func::FuncOp> full = materializeFunction(
      b, b.getUnknownLoc(), "full", problem->reference, problem->shapes);
  ASSERT_TRUE(succeeded(full));
  auto built = *full->getOps<kernel::RmsNormOp>().begin();
  EXPECT_EQ(built.getDim(), std::optional<uint64_t>(1));
  EXPECT_EQ(built.getNormalizedDim(), 1);
}

constexpr StringLiteral kInputReadTwice = R"mlir(
// A residual: x's columns are W's rows for the product, and the product's
// columns for the sum.
func.func @f(%x: tensor<8x64xf16>, %w: tensor<64x64xf16>) -> tensor<8x64xf16> {
  %p = kernel.matmul %x, %w : tensor<8x64xf16>, tensor<64x64xf16>
  %o = kernel.add %p, %x : tensor<8x64xf16>, tensor<8x64xf16>
  return %o : tensor<8x64xf16>
}
// Two products of x, and x in the sum: the products read x alike.
func.func @gated(%x: tensor<8x64xf16>, %w1: tensor<64x64xf16>, %w2: tensor<64x64xf16>) -> tensor<8x64xf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x64xf16>, tensor<64x64xf16>
  %b = kernel.matmul %x, %w2 : tensor<8x64xf16>, tensor<64x64xf16>
  %m = kernel.mul %a, %b : tensor<8x64xf16>, tensor<8x64xf16>
  %o = kernel.add %m, %x : tensor<8x64xf16>, tensor<8x64xf16>
  return %o : tensor<8x64xf16>
}
// A softmax reads x's rows whole twice: that is no conflict.
func.func @softmax(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<8x64xf16>
  %d = kernel.sub %x, %m : tensor<8x64xf16>, tensor<8x1xf16>
  return %d : tensor<8x64xf16>
}
)mlir";

TEST_F(SearchGraphTest, InputReadInTwoTilingsIsTwoInputs) {
  OwningOpRef<ModuleOp> module;
  FailureOr<SearchProblem> problem = parseProblem(kInputReadTwice, module);
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  func::FuncOp f = lookupFunc(*module, "f");
  // x, W and x again, the sum reading the third: W's two dims are then
  // two classes, the contraction k and the columns n.
  ASSERT_EQ(problem->reference.numInputs, 3u);
  EXPECT_EQ(problem->inputValues,
            SmallVector<Value>(
                {f.getArgument(0), f.getArgument(1), f.getArgument(0)}));
  EXPECT_EQ(problem->reference.nodes[1].op.operands[1], 2u);
  const auto &dims = problem->shapes.inputDims;
  EXPECT_NE(dims[1][0].cls, dims[1][1].cls);
  EXPECT_EQ(dims[2][1].cls, dims[1][1].cls);
  EXPECT_EQ(dims[0][1].cls, dims[1][0].cls);
  // Both products read x as [m, k]: it stays one input, though the sum
  // reads it as [m, n].
  problem = problemOf(*module, "gated");
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  ASSERT_EQ(problem->reference.numInputs, 4u);
  EXPECT_EQ(problem->reference.nodes[0].op.operands[0], 0u);
  EXPECT_EQ(problem->reference.nodes[1].op.operands[0], 0u);
  EXPECT_EQ(problem->reference.nodes[3].op.operands[1], 3u);
  // No matmul, no split.
  problem = problemOf(*module, "softmax");
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  EXPECT_EQ(problem->reference.numInputs, 1u);
}

TEST_F(SearchGraphTest, ReferenceMaterializesAtAnyExtents) {
  OwningOpRef<ModuleOp> module;
  FailureOr<SearchProblem> problem = parseProblem(kRmsNormMatmul, module);
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  OpBuilder b(&context);
  b.setInsertionPointToEnd(module->getBody());
  FailureOr<func::FuncOp> full = materializeFunction(
      b, b.getUnknownLoc(), "full", problem->reference, problem->shapes);
  ASSERT_TRUE(succeeded(full));
  EXPECT_EQ(full->getFunctionType(),
            lookupFunc(*module, "f").getFunctionType());
  ShapeContext small = getScreeningShapes(problem->shapes, 4);
  FailureOr<func::FuncOp> shrunk = materializeFunction(
      b, b.getUnknownLoc(), "small", problem->reference, small);
  ASSERT_TRUE(succeeded(shrunk));
  EXPECT_TRUE(succeeded(verify(*module)));
  auto x = cast<RankedTensorType>(shrunk->getArgumentTypes()[0]);
  EXPECT_EQ(x.getShape(), ArrayRef<int64_t>({4, 4}));
}

constexpr StringLiteral kMixedPrecision = R"mlir(
// bf16 products, their SiLU and product in f32, rounded back.
func.func @f(%x: tensor<8x64xbf16>, %w1: tensor<64x32xbf16>, %w2: tensor<64x32xbf16>) -> tensor<8x32xbf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x64xbf16>, tensor<64x32xbf16>
  %b = kernel.matmul %x, %w2 : tensor<8x64xbf16>, tensor<64x32xbf16>
  %af = kernel.convert %a : tensor<8x32xbf16> to tensor<8x32xf32>
  %bf = kernel.convert %b : tensor<8x32xbf16> to tensor<8x32xf32>
  %s = kernel.silu %af : tensor<8x32xf32>
  %m = kernel.mul %s, %bf : tensor<8x32xf32>, tensor<8x32xf32>
  %o = kernel.convert %m : tensor<8x32xf32> to tensor<8x32xbf16>
  return %o : tensor<8x32xbf16>
}
// bf16 ops between conversions of an f32 input and an f32 result, which is
// returned in bf16 too.
func.func @between(%x: tensor<8x64xf32>, %w: tensor<64x32xbf16>) -> (tensor<8x32xf32>, tensor<8x32xbf16>) {
  %xb = kernel.convert %x : tensor<8x64xf32> to tensor<8x64xbf16>
  %h = kernel.matmul %xb, %w : tensor<8x64xbf16>, tensor<64x32xbf16>
  %o = kernel.convert %h : tensor<8x32xbf16> to tensor<8x32xf32>
  return %o, %h : tensor<8x32xf32>, tensor<8x32xbf16>
}
)mlir";

// The search sees through conversions: a program of several element types
// is computed in f32, one of a single type between conversions of its
// inputs and results in that type, and the reference materializes with the
// program's interface types.
TEST_F(SearchGraphTest, ConversionsAreSeenThrough) {
  OwningOpRef<ModuleOp> module;
  FailureOr<SearchProblem> problem = parseProblem(kMixedPrecision, module);
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  Type f32 = Float32Type::get(&context), bf16 = BFloat16Type::get(&context);
  EXPECT_EQ(problem->shapes.elementType, f32);
  // matmul, matmul, silu, mul: the conversions are no nodes.
  ASSERT_EQ(problem->reference.nodes.size(), 4u);
  EXPECT_EQ(problem->reference.nodes[2].op.operands[0], 3u);
  EXPECT_EQ(problem->shapes.inputTypes, SmallVector<Type>({bf16, bf16, bf16}));
  EXPECT_EQ(problem->shapes.resultTypes, SmallVector<Type>({bf16}));
  EXPECT_EQ(problem->shapes.getMinElementBytes(), 2u);
  OpBuilder b(&context);
  b.setInsertionPointToEnd(module->getBody());
  FailureOr<func::FuncOp> reference = materializeFunction(
      b, b.getUnknownLoc(), "reference", problem->reference, problem->shapes);
  ASSERT_TRUE(succeeded(reference));
  EXPECT_EQ(reference->getFunctionType(),
            lookupFunc(*module, "f").getFunctionType());
  // The pre-defined ops compute in f32, between conversions.
  EXPECT_EQ(llvm::range_size(reference->getOps<kernel::ConvertOp>()), 4u);
  EXPECT_TRUE(succeeded(verify(*module))) << diagnostics;

  // A bf16 product is computed in f32 too; x is read rounded to bf16.
  problem = problemOf(*module, "between");
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  EXPECT_EQ(problem->shapes.elementType, f32);
  ASSERT_EQ(problem->reference.nodes.size(), 1u);
  // Both results are the product.
  EXPECT_EQ(problem->reference.results, SmallVector<unsigned>({2, 2}));
  EXPECT_EQ(problem->shapes.inputTypes, SmallVector<Type>({f32, bf16}));
  EXPECT_EQ(problem->shapes.readTypes, SmallVector<Type>({bf16, bf16}));
  EXPECT_EQ(problem->shapes.resultTypes, SmallVector<Type>({f32, bf16}));
}

TEST_F(SearchGraphTest, CustomKernelMaterializesIntoAVerifiedBlockGraph) {
  OwningOpRef<ModuleOp> module;
  FailureOr<SearchProblem> problem = parseProblem(kRmsNormMatmul, module);
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  int m = problem->shapes.inputDims[0][0].cls;
  int k = problem->shapes.inputDims[0][1].cls;
  int n = problem->shapes.inputDims[1][1].cls;
  // The fused RMSNorm + MatMul with a loop over k: the body multiplies and
  // sums squares, the epilogue scales.
  Layout layout;
  layout.gridClass = {n, Dim::kOne, Dim::kOne};
  layout.gridSize = {4, 1, 1};
  layout.loopClass = k;
  layout.iterations = 4;
  KernelGraph g = test::getFusedRmsNormMatmul(layout, k);

  std::optional<SmallVector<Dims>> dims =
      inferKernelGraphDims(g, problem->shapes.inputDims);
  ASSERT_TRUE(dims);
  EXPECT_EQ((*dims)[2], (Dims{Dim{m, false}, Dim{n, false}}));

  std::string text = materializeText(*module, g, *problem);
  ASSERT_FALSE(text.empty());
  EXPECT_NE(text.find("block.for_loop 4 iterations accumulate (sum, sum)"),
            std::string::npos)
      << text;
  // An f16 program is computed in f32. x, whose squares are summed too, is
  // loaded widened and rounded back to f16 for the matmul, which the
  // program multiplies in f16; the weight, which only the matmul reads,
  // stays f16.
  EXPECT_NE(text.find("block.load %in1 imap <x = 1> fmap 0 : "
                      "tensor<64x32xf16> -> tensor<16x8xf16>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("block.convert %6 : tensor<8x16xf32> to "
                      "tensor<8x16xf16>\n      %9 = block.matmul %8, %7 : "
                      "tensor<8x16xf16>, tensor<16x8xf16> -> tensor<8x8xf32>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1.562500e-02"), std::string::npos) << text;

  // A layout whose grid does not divide the extents cuts them raggedly:
  // 32 columns on 3 blocks in tiles of 11.
  g.customs[0].layout.gridSize = {3, 1, 1};
  OpBuilder b(&context);
  b.setInsertionPointToEnd(module->getBody());
  FailureOr<func::FuncOp> ragged =
      materializeFunction(b, b.getUnknownLoc(), "ragged", g, problem->shapes);
  ASSERT_TRUE(succeeded(ragged));
  std::string raggedText;
  llvm::raw_string_ostream(raggedText) << *ragged;
  EXPECT_NE(raggedText.find("block.load %in1 imap <x = 1> fmap 0 : "
                            "tensor<64x32xf16> -> tensor<16x11xf16>"),
            std::string::npos)
      << raggedText;
  // One that leaves a block no element does not build: 12 blocks of 3
  // columns would need 33.
  g.customs[0].layout.gridSize = {12, 1, 1};
  EXPECT_TRUE(failed(materializeFunction(b, b.getUnknownLoc(), "bad", g,
                                         problem->shapes)));

  // The canonical text tells the two layouts apart.
  KernelGraph other = g;
  other.customs[0].layout.gridSize = {4, 1, 1};
  EXPECT_NE(toString(g), toString(other));
}

TEST_F(SearchGraphTest, InputAfterTheLoopIsLoadedOnceForTheEpilogue) {
  OwningOpRef<ModuleOp> module;
  FailureOr<SearchProblem> problem = parseProblem(R"mlir(
func.func @f(%x: tensor<8x64xf16>, %w: tensor<64x32xf16>, %r: tensor<8x32xf16>) -> tensor<8x32xf16> {
  %m = kernel.matmul %x, %w : tensor<8x64xf16>, tensor<64x32xf16>
  %o = kernel.add %m, %r : tensor<8x32xf16>, tensor<8x32xf16>
  return %o : tensor<8x32xf16>
}
)mlir",
                                                  module);
  ASSERT_TRUE(succeeded(problem)) << diagnostics;
  int k = problem->shapes.inputDims[0][1].cls;
  int n = problem->shapes.inputDims[1][1].cls;
  // x W summed over 4 iterations along k; the residual r, which the loop
  // does not walk, is loaded after it and added there.
  BlockGraph bg;
  bg.inputs = {0, 1, 2};
  bg.layout.gridClass = {n, Dim::kOne, Dim::kOne};
  bg.layout.gridSize = {4, 1, 1};
  bg.layout.loopClass = k;
  bg.layout.iterations = 4;
  bg.body = {SOp{OpKind::Matmul, {0, 1}}}; // value 3
  Accum residual{2};
  residual.afterLoop = true;
  bg.accums = {Accum{3, block::AccumKind::sum}, residual};
  bg.post = {SOp{OpKind::Add, {0, 1}}}; // epilogue value 2
  bg.stores = {2};
  // Its load counts as it would in the loop.
  EXPECT_EQ(bg.getNumBlockOps(), 6u);
  KernelGraph g;
  g.numInputs = 3;
  g.customs.push_back(bg);
  g.nodes.push_back(KernelNode{SOp(), 0});
  g.results = {3};

  std::string text = materializeText(*module, g, *problem);
  ASSERT_FALSE(text.empty());
  // One accumulator; the residual's tile is loaded after the loop's end,
  // without an fmap, and nothing loads it inside.
  size_t loopEnd = text.find("block.yield");
  // (Computed in f32, the residual converted as it is loaded.)
  size_t load = text.find("block.load %in2 imap <x = 1> : tensor<8x32xf16> "
                          "-> tensor<8x8xf32>");
  EXPECT_NE(text.find("block.for_loop 4 iterations accumulate (sum) : "
                      "tensor<8x8xf32> {"),
            std::string::npos)
      << text;
  ASSERT_NE(load, std::string::npos) << text;
  EXPECT_LT(loopEnd, load) << text;
  EXPECT_EQ(text.find("block.load %in2", load + 1), std::string::npos) << text;
  // The canonical text tells it from an accumulated residual.
  KernelGraph accumulated = g;
  accumulated.customs[0].accums[1].afterLoop = false;
  accumulated.customs[0].accums[1].kind = block::AccumKind::max;
  EXPECT_NE(toString(g), toString(accumulated));
}

TEST_F(SearchGraphTest, DimsRejectWhatDoesNotTypeCheck) {
  Dims a = {Dim{0, false}, Dim{1, false}};
  Dims b = {Dim{2, false}, Dim{3, false}};
  SOp matmul{OpKind::Matmul, {0, 1}};
  EXPECT_FALSE(inferDims(matmul, {&a, &b}));
  SOp add{OpKind::Add, {0, 1}};
  EXPECT_FALSE(inferDims(add, {&a, &b}));
  Dims row = {Dim{0, false}, Dim()};
  std::optional<Dims> broadcast = inferDims(add, {&a, &row});
  ASSERT_TRUE(broadcast);
  EXPECT_EQ(*broadcast, a);
  // A loop-cut dim does not broadcast against the whole dim.
  Dims cut = {Dim{0, false}, Dim{1, true}};
  EXPECT_FALSE(inferDims(add, {&a, &cut}));
  SOp reduce{OpKind::ReduceSum, {0}};
  reduce.dim = 1;
  EXPECT_EQ(*inferDims(reduce, {&a}), row);
}

TEST(BlockGraphCount, StabilizingMaximumCountsOnceWithItsSubtraction) {
  // Loads q and k; s = q k; m = max(s); d = s - m; store (the store is
  // counted whatever it stores).
  BlockGraph graph;
  graph.inputs = {0, 1};
  auto op = [](OpKind kind, llvm::ArrayRef<unsigned> operands) {
    SOp result;
    result.kind = kind;
    result.operands.assign(operands.begin(), operands.end());
    return result;
  };
  graph.body.push_back(op(OpKind::Matmul, {0, 1})); // value 2
  graph.body.push_back(op(OpKind::ReduceMax, {2})); // value 3
  graph.stores = {0};
  EXPECT_EQ(graph.getNumBlockOps(), 5u);
  // s - max(s): the pair counts as one op.
  graph.body.push_back(op(OpKind::Sub, {2, 3})); // value 4
  EXPECT_EQ(graph.getNumBlockOps(), 5u);
  // exp(d) counts.
  graph.body.push_back(op(OpKind::Exp, {4})); // value 5
  EXPECT_EQ(graph.getNumBlockOps(), 6u);
  // A maximum subtracted from something else is an op like any other.
  graph.body.push_back(op(OpKind::ReduceMax, {5})); // value 6
  graph.body.push_back(op(OpKind::Sub, {4, 6}));    // value 7
  EXPECT_EQ(graph.getNumBlockOps(), 8u);
  // Each stabilizing pair counts once, so a chain of them still grows the
  // count by one per pair: the enumeration's limit bounds it.
  graph.body.push_back(op(OpKind::ReduceMax, {7})); // value 8
  graph.body.push_back(op(OpKind::Sub, {7, 8}));    // value 9
  EXPECT_EQ(graph.getNumBlockOps(), 9u);
}

TEST(BlockGraphCount, InputWithOneReaderCountsWithIt) {
  // Loads q, k, a mask and a bias; store.
  BlockGraph graph;
  graph.inputs = {0, 1, 2, 3};
  auto op = [](OpKind kind, llvm::ArrayRef<unsigned> operands) {
    SOp result;
    result.kind = kind;
    result.operands.assign(operands.begin(), operands.end());
    return result;
  };
  graph.stores = {0};
  EXPECT_EQ(graph.getNumBlockOps(), 5u);
  // k's one reader is its transpose: the load counts with it.
  SOp transpose = op(OpKind::Transpose, {1}); // value 4
  transpose.permutation = {1, 0};
  graph.body.push_back(transpose);
  EXPECT_TRUE(readsInputWithOp(graph.body, transpose, 1, 4));
  EXPECT_EQ(graph.getNumBlockOps(), 5u);
  graph.body.push_back(op(OpKind::Matmul, {0, 4})); // value 5
  EXPECT_EQ(graph.getNumBlockOps(), 6u);
  // The mask added to the scores counts nothing, its load with its add.
  graph.body.push_back(op(OpKind::Add, {5, 2})); // value 6
  EXPECT_EQ(graph.getNumBlockOps(), 5u);
  // An op of two inputs counts both loads.
  SOp twoInputs = op(OpKind::Mul, {0, 3}); // value 7
  EXPECT_FALSE(readsInputWithOp(graph.body, twoInputs, 3, 4));
  graph.body.push_back(twoInputs);
  EXPECT_EQ(graph.getNumBlockOps(), 6u);
  // So does an input with a value other than a matmul's tile (a gain).
  SOp gain = op(OpKind::Mul, {6, 3});
  EXPECT_FALSE(readsInputWithOp(graph.body, gain, 3, 4));
  // A second reader makes the mask's load count again: the count never
  // drops as a graph grows.
  graph.body.push_back(op(OpKind::Sub, {6, 2})); // value 8
  EXPECT_EQ(graph.getNumBlockOps(), 9u);
  // A tile accumulated as loaded counts.
  BlockGraph accumulated;
  accumulated.inputs = {0};
  accumulated.accums.push_back(Accum{0});
  accumulated.stores = {0};
  EXPECT_EQ(accumulated.getNumBlockOps(), 2u);
  // A unary op of an input counts both.
  BlockGraph unary;
  unary.inputs = {0};
  unary.body.push_back(op(OpKind::Exp, {0})); // value 1
  unary.stores = {0};
  EXPECT_EQ(unary.getNumBlockOps(), 3u);
}

TEST(BlockGraphCount, ChainedDistinctMasksCountOnce) {
  // Loads q and k; s = q k; causal(s); window(causal(s)); store.
  BlockGraph graph;
  graph.inputs = {0, 1};
  auto mask = [](unsigned operand, int64_t diagonal) {
    SOp result;
    result.kind = OpKind::TriangleFill;
    result.operands = {operand};
    result.triangle = {0, 1};
    result.triangleClasses = {0, 1};
    result.diagonal = diagonal;
    result.scalar.literal = -std::numeric_limits<double>::infinity();
    return result;
  };
  SOp matmul;
  matmul.kind = OpKind::Matmul;
  matmul.operands = {0, 1};
  graph.body.push_back(matmul);     // value 2
  graph.body.push_back(mask(2, 1)); // value 3
  graph.stores = {0};
  EXPECT_EQ(graph.getNumBlockOps(), 5u);
  // A band: the second mask counts with the first.
  graph.body.push_back(mask(3, 32)); // value 4
  EXPECT_EQ(graph.getNumBlockOps(), 5u);
  // A mask that the chain below already applies counts, so chains stay
  // bounded by the masks the program has.
  graph.body.push_back(mask(4, 1)); // value 5
  EXPECT_EQ(graph.getNumBlockOps(), 6u);
  // The same mask with another value fills differently: it chains.
  SOp zero = mask(5, 32);
  zero.scalar.literal = 0.0;
  graph.body.push_back(zero); // value 6
  EXPECT_EQ(graph.getNumBlockOps(), 6u);
  // A mask of a value no mask made counts.
  graph.body.push_back(mask(2, 32)); // value 7
  EXPECT_EQ(graph.getNumBlockOps(), 7u);
  // In the epilogue, values are numbered after the accumulators.
  graph.accums.push_back(Accum{7});
  graph.post.push_back(mask(0, 1));  // post value 1
  graph.post.push_back(mask(1, 32)); // post value 2
  EXPECT_EQ(graph.getNumBlockOps(), 8u);
}

TEST(BlockGraphCount, CausalFillOfMaskedScoresCountsNothing) {
  // Loads q, k and a padding mask; s = q k + mask; causal(s); store.
  BlockGraph graph;
  graph.inputs = {0, 1, 2};
  SOp matmul;
  matmul.kind = OpKind::Matmul;
  matmul.operands = {0, 1};
  SOp add;
  add.kind = OpKind::Add;
  add.operands = {3, 2};
  SOp causal;
  causal.kind = OpKind::TriangleFill;
  causal.operands = {4};
  causal.triangle = {0, 1};
  causal.triangleClasses = {0, 1};
  causal.diagonal = 1;
  causal.scalar.literal = -std::numeric_limits<double>::infinity();
  graph.body = {matmul, add}; // values 3, 4
  graph.stores = {0};
  EXPECT_EQ(graph.getNumBlockOps(), 4u);
  graph.body.push_back(causal); // value 5
  EXPECT_EQ(graph.getNumBlockOps(), 4u);
  // On the unmasked scores it counts, as in a plain causal attention.
  SOp plain = causal;
  plain.operands = {3};
  graph.body.push_back(plain); // value 6
  EXPECT_EQ(graph.getNumBlockOps(), 5u);
  // A second reader of the mask makes its add an op like any other, and
  // the fill on it counts again: the count never drops as a graph grows.
  SOp again = add;
  again.kind = OpKind::Mul;
  again.operands = {6, 2};
  graph.body.push_back(again); // value 7
  EXPECT_EQ(graph.getNumBlockOps(), 9u);
}

} // namespace
