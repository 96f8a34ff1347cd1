//===- TileShapesTest.cpp - Tiles cut by grid and for-loop ----------------===//

#include "mlsopt/Support/TileShapes.h"

#include "gtest/gtest.h"

#include <limits>

using namespace mlsopt;
using Shape = llvm::SmallVector<int64_t>;

TEST(InputTileShape, SplitsAcrossGridAndLoop) {
  // W[4096, 6144] on 96 blocks along x (dim 1) and 64 iterations (dim 0).
  ShapeOrError r = inputTileShape({4096, 6144}, {1, std::nullopt, std::nullopt},
                                  {96, 1, 1}, 0, 64);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({64, 64}));
}

TEST(InputTileShape, ReplicatedGridDimKeepsWholeDim) {
  ShapeOrError r = inputTileShape({8, 4096}, {}, {96, 1, 1}, 1, 64);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({8, 64}));
}

TEST(InputTileShape, RoundsRaggedGridSplitsUp) {
  // 100 columns on 3 blocks: the smallest tile is 34, the last block's
  // ragged tile holding 32.
  ShapeOrError r = inputTileShape({8, 100}, {1, std::nullopt, std::nullopt},
                                  {3, 1, 1}, std::nullopt, 1);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, (Shape{8, 34}));
}

TEST(InputTileShape, RejectsGridSplitLeavingABlockEmpty) {
  // 5 on 4 blocks: tiles of 2 leave the last block none.
  ShapeOrError r = inputTileShape({8, 5}, {1, std::nullopt, std::nullopt},
                                  {4, 1, 1}, std::nullopt, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("leaves a block no element"), std::string::npos)
      << r.error;
}

TEST(InputTileShape, RoundsAnIndivisibleLoopSplitUp) {
  // 100 in 3 iterations: tiles of 34, the last one ragged.
  ShapeOrError r = inputTileShape({8, 100}, {}, {1, 1, 1}, 1, 3);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, (Shape{8, 34}));
}

TEST(GridTile, AcceptsTilesThatGiveEveryBlockAnElement) {
  // 200 on 4 blocks: tiles of 50 up to 66 (3 * 67 > 200).
  EXPECT_FALSE(isGridTile(49, 200, 4));
  EXPECT_TRUE(isGridTile(50, 200, 4));
  EXPECT_TRUE(isGridTile(64, 200, 4));
  EXPECT_TRUE(isGridTile(66, 200, 4));
  EXPECT_FALSE(isGridTile(67, 200, 4));
  // One block holds the whole dim and no more.
  EXPECT_TRUE(isGridTile(200, 200, 1));
  EXPECT_FALSE(isGridTile(256, 200, 1));
  EXPECT_TRUE(isRaggedTile(64, 200, 4));
  EXPECT_FALSE(isRaggedTile(50, 200, 4));
}

TEST(InputTileShape, AcceptsLargerTilesAlongSplitDimsOnly) {
  GridToTensorDims imap = {1, std::nullopt, std::nullopt};
  // The grid splits dim 1: 64 is a ragged tile of 200 on 4 blocks.
  EXPECT_TRUE(isInputTileShape({8, 64}, {8, 50}, {8, 200}, imap, {4, 1, 1},
                               std::nullopt, 1));
  EXPECT_FALSE(isInputTileShape({8, 67}, {8, 50}, {8, 200}, imap, {4, 1, 1},
                                std::nullopt, 1));
  // Dim 0 is not split: its tile is the whole dim.
  EXPECT_FALSE(isInputTileShape({9, 50}, {8, 50}, {8, 200}, imap, {4, 1, 1},
                                std::nullopt, 1));
  // Dim 1 is walked by a loop as well: its tiles are exact.
  EXPECT_FALSE(
      isInputTileShape({8, 64}, {8, 50}, {8, 200}, imap, {4, 1, 1}, 1, 4));
  // The loop alone walks dim 1 in 4 iterations: 64 is a ragged tile.
  EXPECT_TRUE(
      isInputTileShape({8, 64}, {8, 50}, {8, 200}, {}, {4, 1, 1}, 1, 4));
  EXPECT_FALSE(
      isInputTileShape({8, 67}, {8, 50}, {8, 200}, {}, {4, 1, 1}, 1, 4));
}

TEST(InputTileShape, LoopAloneCutsRaggedly) {
  // k = 4097 in 65 iterations: tiles of 64 at least (63 leave one out).
  ShapeOrError r = inputTileShape({16, 4097}, {0, std::nullopt, std::nullopt},
                                  {1, 1, 1}, 1, 65);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, (Shape{16, 64}));
  // 5 elements in 4 iterations: tiles of 2 leave the last iteration none.
  r = inputTileShape({5}, {}, {1, 1, 1}, 0, 4);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("leaves an iteration no element"), std::string::npos)
      << r.error;
}

TEST(InputTileShape, GridAndLoopSplitOneDimIntoChunks) {
  // 4096 keys on 16 blocks, each walking its 256 in 4 iterations of 64.
  ShapeOrError r =
      inputTileShape({2, 64, 4096}, {0, 2, std::nullopt}, {2, 16, 1}, 2, 4);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, (Shape{1, 64, 64}));
  // Blocks start 256 apart along the chunked dim, a tile apart elsewhere.
  EXPECT_EQ(blockSpan(64, 2, 2, 4), 256);
  EXPECT_EQ(blockSpan(64, 1, 2, 4), 64);
  EXPECT_EQ(blockSpan(64, 2, std::nullopt, 4), 64);
}

TEST(InputTileShape, RejectsRaggedChunks) {
  // 4100 on 16 blocks is ragged: chunks the loop walks must be exact.
  ShapeOrError r =
      inputTileShape({4100}, {0, std::nullopt, std::nullopt}, {16, 1, 1}, 0, 4);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("splits raggedly"), std::string::npos) << r.error;
  // 4096 / 16 = 256 does not split into 3 iterations.
  r = inputTileShape({4096}, {0, std::nullopt, std::nullopt}, {16, 1, 1}, 0, 3);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("each block's chunk of dim 0 of size 256"),
            std::string::npos)
      << r.error;
}

TEST(InputTileShape, RejectsDimSplitByTwoGridDims) {
  ShapeOrError r =
      inputTileShape({8, 64}, {1, 1, std::nullopt}, {2, 2, 1}, std::nullopt, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("already splits"), std::string::npos) << r.error;
}

TEST(InputTileShape, RejectsDimOutOfRange) {
  EXPECT_FALSE(
      inputTileShape({8, 64}, {2, std::nullopt, std::nullopt}, {2, 1, 1},
                     std::nullopt, 1)
          .ok());
  EXPECT_FALSE(inputTileShape({8, 64}, {}, {1, 1, 1}, 5, 2).ok());
}

TEST(OutputCoverage, AcceptsExactCover) {
  EXPECT_EQ(checkOutputCoverage({8, 64}, {8, 6144},
                                {1, std::nullopt, std::nullopt}, {96, 1, 1}),
            "");
}

TEST(OutputCoverage, RejectsReplicatedGridDim) {
  std::string e = checkOutputCoverage({8, 64}, {8, 64}, {}, {2, 1, 1});
  EXPECT_NE(e.find("overwrite"), std::string::npos) << e;
}

TEST(OutputCoverage, RejectsPartialCover) {
  std::string e = checkOutputCoverage(
      {8, 32}, {8, 6144}, {1, std::nullopt, std::nullopt}, {96, 1, 1});
  EXPECT_NE(e.find("cover the output exactly"), std::string::npos) << e;
}

TEST(OutputCoverage, AcceptsRaggedCover) {
  EXPECT_EQ(checkOutputCoverage({8, 64}, {8, 200},
                                {1, std::nullopt, std::nullopt}, {4, 1, 1}),
            "");
  // Tiles of 67 would leave the fourth block none.
  std::string e = checkOutputCoverage(
      {8, 67}, {8, 200}, {1, std::nullopt, std::nullopt}, {4, 1, 1});
  EXPECT_NE(e.find("at least one element"), std::string::npos) << e;
}

TEST(OutputCoverage, SizeOneGridDimMayStayUnmapped) {
  EXPECT_EQ(checkOutputCoverage({8, 64}, {8, 64}, {}, {1, 1, 1}), "");
}

TEST(TileBytes, CountsElementBits) {
  EXPECT_EQ(tileBytes({64, 64}, 16), 8192);
  EXPECT_EQ(tileBytes({8, 1}, 32), 32);
}

TEST(OutputCoverage, RejectsTwoGridDimsOnOneOutputDim) {
  // Not expressible as a #block.dim_map (its verifier rejects it), but
  // callers building maps in C++ get the same answer.
  std::string e = checkOutputCoverage({8, 32}, {8, 128}, {1, 1, std::nullopt},
                                      {2, 2, 1});
  EXPECT_NE(e.find("two grid dims"), std::string::npos) << e;
}

TEST(TileBytes, SaturatesInsteadOfWrapping) {
  EXPECT_EQ(tileBytes({int64_t(1) << 32, int64_t(1) << 32}, 16),
            std::numeric_limits<int64_t>::max());
}
