//===- ConstantsTest.cpp - What float constants stand for -----------------===//

#include "mlsopt/Support/Constants.h"

#include "gtest/gtest.h"

using namespace mlsopt;

TEST(Constants, ReciprocalsRoundedToEveryElementType) {
  EXPECT_EQ(getRoundedReciprocal(1.0 / 96), 96);             // f64
  EXPECT_EQ(getRoundedReciprocal(0.010416666977107525), 96); // f32
  EXPECT_EQ(getRoundedReciprocal(0.01041412353515625), 96);  // f16
  EXPECT_EQ(getRoundedReciprocal(0.01043701171875), 96);     // bf16
  EXPECT_EQ(getRoundedReciprocal(0.012500000186264515), 80);
  EXPECT_EQ(getRoundedReciprocal(1.0 / 4096), 4096); // exact
  EXPECT_EQ(getRoundedReciprocal(0.5), 2);
}

TEST(Constants, OtherValuesAreNoReciprocal) {
  EXPECT_EQ(getRoundedReciprocal(0.012505), std::nullopt);
  EXPECT_EQ(getRoundedReciprocal(0.044715), std::nullopt);
  EXPECT_EQ(getRoundedReciprocal(1.0), std::nullopt);
  EXPECT_EQ(getRoundedReciprocal(0.75), std::nullopt);
  EXPECT_EQ(getRoundedReciprocal(0.0), std::nullopt);
  EXPECT_EQ(getRoundedReciprocal(-0.5), std::nullopt);
  EXPECT_EQ(getRoundedReciprocal(1e-12), std::nullopt); // n past 2^30
}
