//===- ShapeInferenceTest.cpp - Shape rules shared by all levels ----------===//

#include "mlsopt/Support/ShapeInference.h"

#include "gtest/gtest.h"

using namespace mlsopt;
using Shape = llvm::SmallVector<int64_t>;

TEST(BroadcastShapes, StretchesSizeOneDims) {
  ShapeOrError r = broadcastShapes({8, 1}, {1, 64});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({8, 64}));
}

TEST(BroadcastShapes, AlignsOnTheRight) {
  ShapeOrError r = broadcastShapes({4, 8, 64}, {64});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({4, 8, 64}));
}

TEST(BroadcastShapes, RejectsUnequalSizes) {
  ShapeOrError r = broadcastShapes({8, 64}, {8, 32});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("dim 1 has sizes 64 and 32"), std::string::npos)
      << r.error;
}

TEST(MatmulShape, BatchedOverEqualLeadingDims) {
  ShapeOrError r = matmulShape({16, 256, 64}, {16, 64, 4096});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({16, 256, 4096}));
}

TEST(MatmulShape, RejectsMismatchedContraction) {
  EXPECT_FALSE(matmulShape({8, 64}, {32, 16}).ok());
}

TEST(MatmulShape, RejectsUnequalBatchDims) {
  EXPECT_FALSE(matmulShape({2, 8, 64}, {4, 64, 16}).ok());
}

TEST(MatmulShape, RejectsRankOne) {
  EXPECT_FALSE(matmulShape({64}, {64, 16}).ok());
}

TEST(ReduceShape, KeepsReducedDimAsOne) {
  ShapeOrError r = reduceShape({8, 4096}, 1);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({8, 1}));
  EXPECT_FALSE(reduceShape({8, 4096}, 2).ok());
  EXPECT_FALSE(reduceShape({8, 4096}, -1).ok());
}

TEST(ConcatShape, AddsAlongDim) {
  llvm::SmallVector<int64_t> a = {8, 16}, b = {8, 32};
  ShapeOrError r = concatShape({a, b}, 1);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({8, 48}));
  EXPECT_FALSE(concatShape({a, b}, 0).ok());
}

TEST(TransposeShape, PermutesAndRejectsNonPermutations) {
  ShapeOrError r = transposeShape({2, 3, 4}, {0, 2, 1});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({2, 4, 3}));
  EXPECT_FALSE(transposeShape({2, 3, 4}, {0, 1, 1}).ok());
  EXPECT_FALSE(transposeShape({2, 3, 4}, {0, 1}).ok());
  EXPECT_FALSE(transposeShape({2, 3}, {0, 5}).ok());
}
