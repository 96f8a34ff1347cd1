//===- SharedMemorySwizzleTest.cpp - The swizzle avoids bank conflicts ----===//
//
// Evaluates the offsets SharedMemorySwizzle::emitSwizzledOffset emits (the
// very IR the GPU lowering uses, folded on constants) and counts, for the
// accesses the lowering makes, how many hit the same shared-memory bank.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/CustomKernelToGPU/SharedMemorySwizzle.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

#include "gtest/gtest.h"

#include <map>

using namespace mlir;
using namespace mlsopt;

namespace {

class SharedMemorySwizzleTest : public ::testing::Test {
protected:
  SharedMemorySwizzleTest() : b(&context), loc(b.getUnknownLoc()) {
    context.loadDialect<arith::ArithDialect>();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
  }

  /// The element offset `swizzle` maps `offset` to, through the IR.
  int64_t swizzled(const SharedMemorySwizzle &swizzle, int64_t offset) {
    Value in = arith::ConstantIndexOp::create(b, loc, offset);
    Value out = swizzle.emitSwizzledOffset(b, loc, in);
    APInt value;
    EXPECT_TRUE(matchPattern(out, m_ConstantInt(&value)))
        << "the swizzle of a constant offset should fold";
    return value.getSExtValue();
  }

  /// The most accesses that fall into one bank, over `byteAddresses` that
  /// one instruction phase serves together. `width` bytes per access: 16
  /// (ldmatrix rows, cp.async chunks) spans 4 banks, 4 one bank.
  static int64_t maxWaysPerBank(ArrayRef<int64_t> byteAddresses,
                                int64_t width) {
    std::map<int64_t, llvm::DenseSet<int64_t>> words;
    for (int64_t address : byteAddresses)
      for (int64_t w = 0; w < width; w += 4)
        words[((address + w) / 4) % 32].insert((address + w) / 128);
    int64_t ways = 0;
    for (auto &[bank, rows] : words)
      ways = std::max<int64_t>(ways, rows.size());
    return ways;
  }

  MLIRContext context;
  OpBuilder b;
  Location loc;
  OwningOpRef<ModuleOp> module;
};

TEST_F(SharedMemorySwizzleTest, IsAPermutationOfTheTile) {
  for (int64_t cols : {16, 32, 64, 128, 256}) {
    SmallVector<int64_t> shape = {32, cols};
    auto swizzle = SharedMemorySwizzle::get(shape, 16);
    ASSERT_TRUE(swizzle) << cols;
    llvm::DenseSet<int64_t> seen;
    for (int64_t e = 0; e < 32 * cols; ++e) {
      int64_t s = swizzled(*swizzle, e);
      EXPECT_LT(s, 32 * cols);
      // Chunks move whole: the element keeps its place in the chunk.
      EXPECT_EQ(s % 8, e % 8);
      seen.insert(s);
    }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), 32 * cols) << cols;
  }
}

TEST_F(SharedMemorySwizzleTest, LdmatrixRowsHitEightBankGroups) {
  // ldmatrix serves each 8x8 matrix in one phase: 8 lanes give the
  // addresses of 8 consecutive rows at one 16-byte chunk column (A: rows of
  // m at k; B, read transposed: rows of k at n). They must hit 8 distinct
  // 16-byte bank groups.
  for (int64_t cols : {16, 32, 64, 128, 256}) {
    int64_t rows = 64;
    auto swizzle = SharedMemorySwizzle::get({rows, cols}, 16);
    ASSERT_TRUE(swizzle);
    for (int64_t row0 = 0; row0 < rows; row0 += 8)
      for (int64_t chunk = 0; chunk < cols / 8; ++chunk) {
        llvm::DenseSet<int64_t> groups;
        SmallVector<int64_t> unswizzled, addresses;
        for (int64_t r = 0; r < 8; ++r) {
          int64_t offset = (row0 + r) * cols + chunk * 8;
          int64_t address = 2 * swizzled(*swizzle, offset);
          groups.insert((address / 16) % 8);
          addresses.push_back(address);
          unswizzled.push_back(2 * offset);
        }
        EXPECT_EQ(groups.size(), 8u)
            << "rows " << row0 << "+8 of a " << cols << "-half-wide tile";
        EXPECT_EQ(maxWaysPerBank(addresses, 16), 1);
        // What the swizzle removes: rows of 128 bytes and more hit one
        // group 8 times over.
        if (cols >= 64) {
          EXPECT_EQ(maxWaysPerBank(unswizzled, 16), 8);
        }
      }
  }
}

TEST_F(SharedMemorySwizzleTest, CpAsyncChunksOfEightThreadsHitEightGroups) {
  // cp.async: consecutive threads write consecutive 16-byte chunks; 8 of
  // them (128 bytes) are served together.
  for (int64_t cols : {16, 32, 64, 128}) {
    auto swizzle = SharedMemorySwizzle::get({32, cols}, 16);
    ASSERT_TRUE(swizzle);
    for (int64_t first = 0; first < 32 * cols / 8; first += 8) {
      SmallVector<int64_t> addresses;
      for (int64_t t = 0; t < 8; ++t)
        addresses.push_back(2 * swizzled(*swizzle, (first + t) * 8));
      EXPECT_EQ(maxWaysPerBank(addresses, 16), 1) << cols;
    }
  }
}

TEST_F(SharedMemorySwizzleTest, TF32FragmentLoads) {
  // m16n8k8 tf32, g = lane / 4, t = lane % 4: A (m x k) reads (g, k0 + t),
  // B (k x n, row-major) reads (k0 + t, n0 + g): 32 words per warp. `ways`
  // is the worst bank conflict over every fragment position `step` apart.
  auto ways = [&](int64_t rows, int64_t cols, int64_t step,
                  function_ref<int64_t(int64_t lane, int64_t start)> offset,
                  int64_t xorStep = 1) {
    auto swizzle = SharedMemorySwizzle::get({rows, cols}, 32, xorStep);
    EXPECT_TRUE(swizzle);
    int64_t worst = 0;
    for (int64_t start = 0; swizzle && start < cols; start += step) {
      SmallVector<int64_t> addresses;
      for (int64_t lane = 0; lane < 32; ++lane)
        addresses.push_back(4 * swizzled(*swizzle, offset(lane, start)));
      worst = std::max(worst, maxWaysPerBank(addresses, 4));
    }
    return worst;
  };
  for (int64_t k : {8, 16, 32, 64, 128})
    EXPECT_EQ(ways(16, k, 4,
                   [&](int64_t lane, int64_t k0) {
                     return (lane / 4) * k + k0 + lane % 4;
                   }),
              1)
        << "A, k = " << k;
  // B's column-wise reads take two chunks of each of 4 rows: the XOR that
  // steps one chunk a row maps rows 2i and 2i + 1 onto one pair of chunks
  // (2-way; 4-way unswizzled for n >= 32), the one that steps two is free
  // of conflicts.
  auto bAt = [](int64_t n) {
    return [n](int64_t lane, int64_t n0) {
      return (lane % 4) * n + n0 + lane / 4;
    };
  };
  for (int64_t n : {16, 32, 64, 128}) {
    EXPECT_EQ(ways(32, n, 8, bAt(n)), 2) << "B, n = " << n;
    EXPECT_EQ(ways(32, n, 8, bAt(n), /*xorStep=*/2), 1) << "B, n = " << n;
  }
  // Rows of 32 bytes: the 4 rows are one 128-byte line either way.
  EXPECT_EQ(ways(32, 8, 8, bAt(8), /*xorStep=*/2), 1);
}

TEST_F(SharedMemorySwizzleTest, StepTwoKeepsCpAsyncWritesFreeOfConflicts) {
  // The tile the tf32 B swizzle lays out is still written by cp.async in
  // 16-byte chunks, 8 threads (128 bytes) at a time, and stays a
  // permutation of itself.
  for (int64_t cols : {8, 16, 32, 64, 128}) {
    auto swizzle = SharedMemorySwizzle::get({32, cols}, 32, /*xorStep=*/2);
    ASSERT_TRUE(swizzle) << cols;
    llvm::DenseSet<int64_t> seen;
    for (int64_t e = 0; e < 32 * cols; ++e)
      seen.insert(swizzled(*swizzle, e));
    EXPECT_EQ(static_cast<int64_t>(seen.size()), 32 * cols) << cols;
    for (int64_t first = 0; first < 32 * cols / 4; first += 8) {
      SmallVector<int64_t> addresses;
      for (int64_t t = 0; t < 8; ++t)
        addresses.push_back(4 * swizzled(*swizzle, (first + t) * 4));
      EXPECT_EQ(maxWaysPerBank(addresses, 16), 1) << cols;
    }
  }
  EXPECT_FALSE(SharedMemorySwizzle::get({32, 32}, 32, /*xorStep=*/3));
}

TEST_F(SharedMemorySwizzleTest, NotForTilesItCannotPermute) {
  // Rows of one chunk, not a power of two of chunks, not whole 16-byte
  // chunks, or short rows that do not fill 128-byte lines.
  EXPECT_FALSE(SharedMemorySwizzle::get({64, 8}, 16));
  EXPECT_FALSE(SharedMemorySwizzle::get({64, 24}, 16));
  EXPECT_FALSE(SharedMemorySwizzle::get({64, 12}, 16));
  EXPECT_FALSE(SharedMemorySwizzle::get({3, 16}, 16));
  EXPECT_TRUE(SharedMemorySwizzle::get({4, 16}, 16));
  EXPECT_EQ(SharedMemorySwizzle::get({4, 128}, 16)->getPhaseChunks(), 16);
}

} // namespace
