//===- GridChoicesTest.cpp - Sizes and per-layout lower bounds ------------===//
//
// The lower bound of a layout skeleton prunes whole skeletons before their
// block graphs are enumerated, so it must never exceed the cost the model
// gives a kernel with that grid, at any size the search would choose; and
// it must see what the program-wide bound does not (idle SMs, inputs
// loaded again by every block), or it would prune nothing.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Search/GridChoices.h"
#include "mlsopt/Search/CostModel.h"
#include "mlsopt/Search/SearchGraph.h"
#include "mlsopt/Search/SearchProblem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include "MLIRTest.h"
#include "SearchTestUtils.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

namespace {

class GridChoicesTest : public test::MLIRTest {};

// Eight rows: a grid over them alone leaves most SMs idle.
constexpr StringLiteral kRmsNormMatmul = R"mlir(
func.func @f(%x: tensor<8x1024xf16>, %w: tensor<1024x512xf16>) -> tensor<8x512xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x1024xf16>
  %o = kernel.matmul %n, %w : tensor<8x1024xf16>, tensor<1024x512xf16>
  return %o : tensor<8x512xf16>
}
)mlir";

TEST_F(GridChoicesTest, SkeletonBoundNeverExceedsACostTheSearchCouldChoose) {
  OwningOpRef<ModuleOp> module = parse(kRmsNormMatmul);
  ASSERT_TRUE(module) << diagnostics;
  FailureOr<SearchProblem> problem =
      test::buildFunctionProblem(lookupFunc(*module, "f"));
  ASSERT_TRUE(succeeded(problem));
  const Dims &x = problem->shapes.inputDims[0],
             &w = problem->shapes.inputDims[1];
  int m = x[0].cls, k = x[1].cls, n = w[1].cls;
  Dims out = {x[0], w[1]};
  const TargetInfo &target = getDefaultTarget();
  double programBoundUs =
      estimateRoofline((8 * 1024 + 1024 * 512 + 8 * 512) * 2.0, 0, 0, target)
          .totalUs;

  OpBuilder b(&context);
  b.setInsertionPointToEnd(module->getBody());
  // Sizes whose tiles overflow shared memory fail to verify, as they do in
  // the search; they are not costed.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  for (std::array<int, 3> grid :
       {std::array<int, 3>{n, Dim::kOne, Dim::kOne},
        std::array<int, 3>{m, n, Dim::kOne},
        std::array<int, 3>{m, Dim::kOne, Dim::kOne},
        std::array<int, 3>{Dim::kOne, Dim::kOne, Dim::kOne}}) {
    Layout skeleton;
    skeleton.gridClass = grid;
    skeleton.loopClass = k;
    double boundUs = getCustomKernelLowerBoundUs(*problem, target, skeleton,
                                                 {&x, &w}, {&out});
    EXPECT_GE(boundUs, programBoundUs * (1 - 1e-12));

    // Every size the search would try: the bound is at most its cost, and
    // the cheapest comes within 15% of it (the kernel is memory-bound, and
    // the bound counts its bytes but not that device memory moves runs of
    // at least 64 bytes: grids that fill the SMs cut w into narrow column
    // tiles, whose 32-byte rows cost 64).
    std::array<SmallVector<int64_t>, 3> sizes =
        getGridSizeChoices(*problem, skeleton);
    double cheapestUs = std::numeric_limits<double>::infinity();
    unsigned costed = 0;
    for (int64_t gx : sizes[0])
      for (int64_t gy : sizes[1])
        for (int64_t n : getIterationChoices(*problem, skeleton)) {
          Layout layout = skeleton;
          layout.gridSize = {gx, gy, 1};
          layout.iterations = n;
          KernelGraph g = test::getFusedRmsNormMatmul(layout, k);
          FailureOr<func::FuncOp> func = materializeFunction(
              b, b.getUnknownLoc(), "sized", g, problem->shapes);
          ASSERT_TRUE(succeeded(func));
          if (succeeded(verify(*func))) {
            FailureOr<KernelCost> cost = estimateFunctionCost(*func, target);
            ASSERT_TRUE(succeeded(cost));
            EXPECT_LE(boundUs, cost->totalUs * (1 + 1e-12))
                << "grid " << gx << "x" << gy << ", " << n << " iterations";
            cheapestUs = std::min(cheapestUs, cost->totalUs);
            ++costed;
          }
          func->erase();
        }
    ASSERT_GT(costed, 0u);
    EXPECT_LE(cheapestUs, boundUs * 1.15)
        << "grid classes " << grid[0] << " " << grid[1];
  }

  // One block, or one per row, leaves SMs idle; a grid over the columns
  // alone loads all of x again in every block. The bound sees both.
  auto boundOf = [&](std::array<int, 3> grid) {
    Layout skeleton;
    skeleton.gridClass = grid;
    skeleton.loopClass = k;
    return getCustomKernelLowerBoundUs(*problem, target, skeleton, {&x, &w},
                                       {&out});
  };
  double oneBlockUs = boundOf({Dim::kOne, Dim::kOne, Dim::kOne});
  double rowsUs = boundOf({m, Dim::kOne, Dim::kOne});
  double columnsUs = boundOf({n, Dim::kOne, Dim::kOne});
  EXPECT_GT(oneBlockUs, rowsUs);
  EXPECT_GT(rowsUs, columnsUs);
  EXPECT_GT(columnsUs, programBoundUs);
}

TEST_F(GridChoicesTest, SizeChoicesCutExtentsIntoAPowerOfTwoAndItsCofactor) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%x: tensor<8x1500xf16>) -> tensor<8x1500xf16> {
  %e = kernel.exp %x : tensor<8x1500xf16>
  return %e : tensor<8x1500xf16>
}
)mlir");
  ASSERT_TRUE(module) << diagnostics;
  FailureOr<SearchProblem> problem =
      test::buildFunctionProblem(lookupFunc(*module, "f"));
  ASSERT_TRUE(succeeded(problem));
  const Dims &x = problem->shapes.inputDims[0];
  Layout layout;
  layout.gridClass = {x[1].cls, x[0].cls, Dim::kOne};
  layout.loopClass = x[1].cls;
  std::array<SmallVector<int64_t>, 3> sizes =
      getGridSizeChoices(*problem, layout);
  // 1500 = 4 * 375; 16 does not divide it, so it is also cut raggedly
  // into tiles of 16, 32, 63 and 125 (94, 47, 24 and 12 blocks).
  EXPECT_EQ(sizes[0],
            (SmallVector<int64_t>{2, 4, 12, 24, 47, 94, 375, 750, 1500}));
  EXPECT_EQ(sizes[1], (SmallVector<int64_t>{2, 4, 8}));
  EXPECT_EQ(sizes[2], (SmallVector<int64_t>{1}));
  // Tiles of at least 8: 375 iterations would leave tiles of 4. As 16
  // does not divide 1500, also the largest divisor tile between each two
  // powers of two from 64: 125, 250, 500 (12, 6 and 3 iterations).
  EXPECT_EQ(getIterationChoices(*problem, layout),
            (SmallVector<int64_t>{2, 3, 4, 6, 12}));
}

TEST_F(GridChoicesTest, LoopsCutOddExtentsExactly) {
  auto choicesFor = [&](int64_t columns) {
    OwningOpRef<ModuleOp> module = parse(llvm::formatv(R"mlir(
func.func @f(%x: tensor<4x{0}xf16>) -> tensor<4x1xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<4x{0}xf16>
  return %m : tensor<4x1xf16>
}
)mlir",
                                                       columns)
                                             .str());
    EXPECT_TRUE(module) << diagnostics;
    FailureOr<SearchProblem> problem =
        test::buildFunctionProblem(lookupFunc(*module, "f"));
    EXPECT_TRUE(succeeded(problem));
    Layout layout;
    layout.loopClass = problem->shapes.inputDims[0][1].cls;
    return getIterationChoices(*problem, layout);
  };
  // GPT-2's vocabulary: 29 tiles of 1733 (not 1733 of 29), where only
  // 50257 iterations of one element were tried.
  EXPECT_EQ(choicesFor(50257), (SmallVector<int64_t>{29}));
  // A prime has no cut: no loop over it, unless it is short.
  EXPECT_TRUE(choicesFor(131071).empty());
  EXPECT_EQ(choicesFor(61), (SmallVector<int64_t>{61}));
  // The abstract expressions stand for the loop with a count that divides
  // the extent, so that sum splitting applies.
  EXPECT_EQ(getRepresentativeIterations(4096), 2);
  EXPECT_EQ(getRepresentativeIterations(50257), 29);
  EXPECT_EQ(getRepresentativeIterations(65535), 3);
  EXPECT_EQ(getRepresentativeIterations(131071), 131071);
}

} // namespace
