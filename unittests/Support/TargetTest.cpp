//===- TargetTest.cpp - GPU target table ----------------------------------===//

#include "mlsopt/Support/Target.h"

#include "gtest/gtest.h"

using namespace mlsopt;

TEST(Target, KnowsEverySupportedChip) {
  for (llvm::StringRef chip : {"sm_80", "sm_86", "sm_89", "sm_90"}) {
    std::optional<TargetInfo> t = lookupTarget(chip);
    ASSERT_TRUE(t.has_value()) << chip.str();
    EXPECT_EQ(t->chip, chip);
    EXPECT_GT(t->maxSharedMemPerBlock, 48u * 1024);
  }
  EXPECT_FALSE(lookupTarget("sm_70").has_value());
  EXPECT_FALSE(lookupTarget("").has_value());
}

TEST(Target, DefaultIsHopper) {
  EXPECT_EQ(getDefaultTarget().chip, "sm_90");
  EXPECT_EQ(getDefaultTarget().maxSharedMemPerBlock, 232448u);
}

TEST(Target, PtxVersionSupportsChip) {
  // sm_89 and sm_90 first appear in PTX ISA 7.8; sm_86 in 7.1; sm_80 in 7.0.
  EXPECT_EQ(lookupTarget("sm_80")->ptxVersion, "7.0");
  EXPECT_EQ(lookupTarget("sm_86")->ptxVersion, "7.1");
  EXPECT_EQ(lookupTarget("sm_90")->ptxVersion, "7.8");
}

TEST(Target, NamesListsAll) {
  EXPECT_EQ(supportedTargetNames(), "sm_80, sm_86, sm_89, sm_90");
}

TEST(Target, OccupancyLimitsAreConsistent) {
  for (const TargetInfo &t : getSupportedTargets()) {
    // A block may never ask for more shared memory than its SM has, and an
    // SM must hold at least one largest block.
    EXPECT_GE(t.sharedMemPerSM, t.maxSharedMemPerBlock) << t.chip.str();
    EXPECT_GE(t.maxThreadsPerSM, t.maxThreadsPerBlock) << t.chip.str();
    EXPECT_GE(t.maxBlocksPerSM, 1u) << t.chip.str();
    EXPECT_GT(t.launchOverheadUs, 0.0) << t.chip.str();
  }
  EXPECT_EQ(lookupTarget("sm_90")->maxThreadsPerSM, 2048u);
  EXPECT_EQ(lookupTarget("sm_86")->maxThreadsPerSM, 1536u);
}
