//===- ConstantsTest.cpp - What float constants stand for -----------------===//

#include "mlsopt/Support/Constants.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/APFloat.h"
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

// Past n = 2048 in f16 and n = 256 in bf16 a rounding holds 1/n for several
// n: 1/3072 rounded to f16 is also 1/3073's. The program's extents decide;
// without one among them, the n with the most factors of two.
TEST(Constants, AmbiguousRoundingsReadAsTheProgramsExtent) {
  auto f16 = [](int64_t n) {
    return roundTo(1.0 / static_cast<double>(n), llvm::APFloat::IEEEhalf());
  };
  auto bf16 = [](int64_t n) {
    return roundTo(1.0 / static_cast<double>(n), llvm::APFloat::BFloat());
  };
  ASSERT_EQ(f16(3072), f16(3073));
  for (int64_t n : {2560, 3072, 4096, 5120, 6144, 8192, 11008, 14336})
    EXPECT_EQ(getRoundedReciprocal(f16(n)), n) << "f16 " << n;
  for (int64_t n : {768, 2048, 3072, 4096, 5120, 11008})
    EXPECT_EQ(getRoundedReciprocal(bf16(n)), n) << "bf16 " << n;
  // Extents that are no multiple of a large power of two.
  for (int64_t n : {1000, 3000, 4000, 4097})
    EXPECT_EQ(getRoundedReciprocal(bf16(n), {7, n, 5 * n}), n) << n;
  // f16(1 / 4097) is 2^-12, exactly 1 / 4096: an extent 4097 reads it as
  // 1 / 4097, none as 1 / 4096.
  EXPECT_EQ(getRoundedReciprocal(f16(4097), {4097}), 4097);
  EXPECT_EQ(getRoundedReciprocal(f16(4097)), 4096);
  // An extent the rounding does not hold is no candidate.
  EXPECT_EQ(getRoundedReciprocal(f16(3072), {3100}), 3072);
}

// With the program's rounding type, only f64, f32 and that type's roundings
// count: an f32 program's 2^-12 is 1/4096 even beside an extent of 4097,
// and its f16 rounding of 1/3 is no third.
TEST(Constants, TheRoundingTypeDecidesWhichRoundingsCount) {
  mlir::MLIRContext context;
  mlir::Type f32 = mlir::Float32Type::get(&context);
  mlir::Type f16 = mlir::Float16Type::get(&context);
  mlir::Type bf16 = mlir::BFloat16Type::get(&context);
  double f16Third = roundTo(1.0 / 3, llvm::APFloat::IEEEhalf());
  double bf16Third = roundTo(1.0 / 3, llvm::APFloat::BFloat());
  EXPECT_EQ(getRoundedReciprocal(1.0 / 4096, {4097}), 4097);
  EXPECT_EQ(getRoundedReciprocal(1.0 / 4096, {4097}, f32), 4096);
  EXPECT_EQ(getRoundedReciprocal(1.0 / 4096, {4097}, f16), 4097);
  EXPECT_EQ(getRoundedReciprocal(f16Third, {}, f32), std::nullopt);
  EXPECT_EQ(getRoundedReciprocal(f16Third, {}, bf16), std::nullopt);
  EXPECT_EQ(getRoundedReciprocal(f16Third, {}, f16), 3);
  EXPECT_EQ(getRoundedReciprocal(bf16Third, {}, bf16), 3);
  EXPECT_EQ(getRoundedReciprocal(bf16Third, {}, f16), std::nullopt);
  // f32 and f64 roundings count for every type.
  EXPECT_EQ(getRoundedReciprocal(0.010416666977107525, {}, f16), 96);
  EXPECT_EQ(getRoundedReciprocal(1.0 / 96, {}, bf16), 96);
}

// The rounding type is read from a function's signature: its one narrow
// float type, f32 where it has none, null (all) where it has both.
TEST(Constants, TheRoundingTypeIsTheSignaturesNarrowType) {
  mlir::MLIRContext context;
  mlir::Type f32 = mlir::Float32Type::get(&context);
  mlir::Type f16 = mlir::Float16Type::get(&context);
  mlir::Type bf16 = mlir::BFloat16Type::get(&context);
  auto roundingTypeOf = [&](llvm::ArrayRef<mlir::Type> inputs,
                            llvm::ArrayRef<mlir::Type> results) {
    return getReciprocalRoundingType(mlir::FunctionType::get(
        &context, mlir::TypeRange(inputs), mlir::TypeRange(results)));
  };
  auto tensor = [](mlir::Type element) {
    return mlir::RankedTensorType::get({4, 8}, element);
  };
  EXPECT_EQ(roundingTypeOf({tensor(f16)}, {tensor(f16)}), f16);
  EXPECT_EQ(roundingTypeOf({tensor(f32)}, {tensor(bf16)}), bf16);
  EXPECT_EQ(roundingTypeOf({tensor(f32)}, {tensor(f32)}), f32);
  EXPECT_EQ(roundingTypeOf({tensor(f16), tensor(bf16)}, {}), mlir::Type());
}
