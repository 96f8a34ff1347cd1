//===- FiniteFieldTest.cpp - The fields of the verifier -------------------===//
//
// The verifier is sound only if its arithmetic is: these tests check the
// primes, the reductions against plain 128-bit arithmetic, and the identities
// the search relies on (inverses, multiplicative sqrt, exp(a + b) =
// exp(a) exp(b), exact constants, random functions shared per seed).
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Verify/FiniteField.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mlsopt::verify;

namespace {

constexpr uint64_t p = PrimeField::kModulus;
constexpr uint64_t q = ExponentField::kModulus;

/// Deterministic Miller-Rabin for n < 2^64 (these bases suffice).
template <typename Field> bool isPrime() {
  constexpr uint64_t n = Field::kModulus;
  uint64_t d = n - 1;
  unsigned s = 0;
  while (d % 2 == 0) {
    d /= 2;
    ++s;
  }
  for (uint64_t a : {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37}) {
    uint64_t x = Field::pow(a, d);
    if (x == 1 || x == n - 1)
      continue;
    bool composite = true;
    for (unsigned r = 1; r < s && composite; ++r) {
      x = Field::mul(x, x);
      composite = x != n - 1;
    }
    if (composite)
      return false;
  }
  return true;
}

TEST(FiniteFieldTest, PrimesAreSafeAndThreeModFour) {
  EXPECT_EQ(p, (uint64_t(1) << 63) - 4569);
  EXPECT_EQ(q, (p - 1) / 2);
  EXPECT_TRUE(isPrime<PrimeField>());
  EXPECT_TRUE(isPrime<ExponentField>());
  EXPECT_EQ(p % 4, 3u);
  // 4 has order exactly q (q is prime and 4 != 1).
  EXPECT_EQ(PrimeField::pow(kExpBase, q), 1u);
  EXPECT_NE(kExpBase, 1u);
}

TEST(FiniteFieldTest, ReductionMatchesWideArithmetic) {
  FieldRandom random(1);
  for (int i = 0; i < 100000; ++i) {
    uint64_t a = random.nextResidue(), b = random.nextResidue();
    ASSERT_EQ(PrimeField::mul(a, b),
              static_cast<uint64_t>((uint128_t(a) * b) % p));
    uint64_t c = random.nextExponent(), d = random.nextExponent();
    ASSERT_EQ(ExponentField::mul(c, d),
              static_cast<uint64_t>((uint128_t(c) * d) % q));
    uint128_t any = (uint128_t(random.next()) << 64) | random.next();
    ASSERT_EQ(PrimeField::reduce(any), static_cast<uint64_t>(any % p));
    ASSERT_EQ(ExponentField::reduce(any), static_cast<uint64_t>(any % q));
  }
  // The largest inputs.
  EXPECT_EQ(PrimeField::mul(p - 1, p - 1), 1u);
  EXPECT_EQ(ExponentField::mul(q - 1, q - 1), 1u);
  EXPECT_EQ(PrimeField::reduce(~uint128_t(0)),
            static_cast<uint64_t>(~uint128_t(0) % p));
  // A 192-bit sum: top * 2^128 + low.
  uint128_t low = ~uint128_t(0) - 12345;
  uint64_t top = 987654321;
  uint64_t expected = PrimeField::add(
      PrimeField::reduce(low),
      PrimeField::mul(top % p,
                      PrimeField::mul(PrimeField::reduce(uint128_t(1) << 64),
                                      PrimeField::reduce(uint128_t(1) << 64))));
  EXPECT_EQ(PrimeField::reduceWide(top, low), expected);
}

TEST(FiniteFieldTest, AddSubNegAreInverse) {
  FieldRandom random(2);
  for (int i = 0; i < 10000; ++i) {
    uint64_t a = random.nextResidue(), b = random.nextResidue();
    ASSERT_EQ(PrimeField::sub(PrimeField::add(a, b), b), a);
    ASSERT_EQ(PrimeField::add(a, PrimeField::neg(a)), 0u);
  }
  EXPECT_EQ(PrimeField::neg(0), 0u);
  EXPECT_EQ(PrimeField::fromInteger(-1), p - 1);
  EXPECT_EQ(ExponentField::fromInteger(-1), q - 1);
}

TEST(FiniteFieldTest, Inverse) {
  FieldRandom random(3);
  for (int i = 0; i < 1000; ++i) {
    uint64_t a = random.nextResidue();
    if (a == 0)
      continue;
    ASSERT_EQ(PrimeField::mul(a, PrimeField::inverse(a)), 1u);
    uint64_t e = random.nextExponent();
    if (e != 0) {
      ASSERT_EQ(ExponentField::mul(e, ExponentField::inverse(e)), 1u);
    }
  }
  // Zero has no inverse; the q-part marks it.
  EXPECT_EQ(PrimeField::inverse(0), 0u);
  EXPECT_EQ(ExponentPart::inverse(0), kDivisionByZeroExponent);
}

TEST(FiniteFieldTest, SqrtIsMultiplicativeAndRootsSquares) {
  FieldRandom random(4);
  for (int i = 0; i < 1000; ++i) {
    uint64_t a = random.nextResidue(), b = random.nextResidue();
    // Multiplicative for all elements, residues or not.
    ASSERT_EQ(fieldSqrt(PrimeField::mul(a, b)),
              PrimeField::mul(fieldSqrt(a), fieldSqrt(b)));
    // A square has a root that squares back to it.
    uint64_t square = PrimeField::mul(a, a);
    uint64_t root = fieldSqrt(square);
    ASSERT_EQ(PrimeField::mul(root, root), square);
    ASSERT_TRUE(root == a || root == PrimeField::neg(a));
  }
  // -1 is not a square mod p = 3 mod 4: its "root" squares to 1 = -(-1).
  uint64_t minusOne = p - 1;
  uint64_t r = fieldSqrt(minusOne);
  EXPECT_EQ(PrimeField::mul(r, r), 1u);
  EXPECT_EQ(fieldSqrt(0), 0u);
  EXPECT_EQ(fieldSqrt(1), 1u);
  EXPECT_EQ(fieldSqrt(4), 2u);
}

TEST(FiniteFieldTest, ExpIsAHomomorphism) {
  FieldRandom random(5);
  EXPECT_EQ(fieldExp(0), 1u);
  EXPECT_EQ(fieldExp(1), kExpBase);
  EXPECT_EQ(PrimeField::mul(fieldExp(q - 1), kExpBase), 1u);
  for (int i = 0; i < 10000; ++i) {
    uint64_t a = random.nextExponent(), b = random.nextExponent();
    ASSERT_EQ(fieldExp(a), PrimeField::pow(kExpBase, a));
    ASSERT_EQ(fieldExp(ExponentField::add(a, b)),
              PrimeField::mul(fieldExp(a), fieldExp(b)));
    ASSERT_EQ(fieldExp(ExponentField::sub(a, b)),
              PrimeField::mul(fieldExp(a), PrimeField::inverse(fieldExp(b))));
    ASSERT_EQ(fieldExp(ExponentField::mul(a, 3)),
              PrimeField::pow(fieldExp(a), 3));
  }
}

TEST(FiniteFieldTest, ConstantsAreExactDyadicRationals) {
  auto c = [](double v) { return *fieldConstant(v); };
  EXPECT_EQ(c(0.0), (FieldElement{0, 0}));
  EXPECT_EQ(c(-0.0), (FieldElement{0, 0}));
  EXPECT_EQ(c(3.0), fieldInteger(3));
  EXPECT_EQ(c(-7.0), fieldInteger(-7));
  EXPECT_EQ(c(4096.0), fieldInteger(4096));
  // 0.5 is the inverse of 2 in both fields.
  EXPECT_EQ(PrimeField::mul(c(0.5).p, 2), 1u);
  EXPECT_EQ(ExponentField::mul(c(0.5).q, 2), 1u);
  // 2^-12, the 1/4096 of a mean over 4096 elements, is its inverse.
  EXPECT_EQ(c(2.44140625e-4).p, PrimeField::inverse(4096));
  EXPECT_EQ(c(-1.5).p, PrimeField::mul(PrimeField::fromInteger(-3),
                                       PrimeField::inverse(2)));
  // Distinct nearby constants stay distinct.
  EXPECT_NE(c(0.044715).p, c(0.044716).p);
  EXPECT_NE(c(0.044715).q, c(0.044716).q);
  EXPECT_NE(c(1.0e-6).p, c(1.0e-5).p);
  // 1.0 / n rounded to f64, f32, f16 or bf16 stands for 1/n
  // (mlsopt/Support/Constants.h): 0.1 is 1/10, f32's 0.0125 is 1/80.
  EXPECT_EQ(PrimeField::mul(c(0.1).p, 10), 1u);
  EXPECT_EQ(PrimeField::mul(c(static_cast<double>(0.0125f)).p, 80), 1u);
  EXPECT_EQ(ExponentField::mul(c(static_cast<double>(0.0125f)).q, 80), 1u);
  EXPECT_EQ(PrimeField::mul(c(-0.1).p, 10), PrimeField::neg(1));
  // The double next to 0.1 is no rounding of 1/10: a dyadic rational.
  EXPECT_NE(PrimeField::mul(c(std::nextafter(0.1, 1.0)).p, 10), 1u);
  // The constant is the dyadic rational m * 2^e exactly.
  double v = 0.044715;
  int e = 0;
  double fraction = std::frexp(v, &e);
  auto m = static_cast<uint64_t>(std::ldexp(fraction, 53));
  EXPECT_EQ(
      c(v).p,
      PrimeField::mul(m % p, PrimeField::pow(PrimeField::inverse(2), 53 - e)));
  // The extremes of the double range.
  EXPECT_EQ(c(std::numeric_limits<double>::denorm_min()).p,
            PrimeField::pow(PrimeField::inverse(2), 1074));
  EXPECT_TRUE(fieldConstant(std::numeric_limits<double>::max()).has_value());
  EXPECT_FALSE(fieldConstant(std::nan("")).has_value());
  EXPECT_FALSE(
      fieldConstant(std::numeric_limits<double>::infinity()).has_value());
}

TEST(FiniteFieldTest, RandomFunctionsAreSharedPerSeedAndDifferPerOp) {
  uint64_t tanh1 = randomFunctionKey(7, 1), tanh2 = randomFunctionKey(7, 1);
  uint64_t erf = randomFunctionKey(7, 2), tanhOther = randomFunctionKey(8, 1);
  EXPECT_EQ(tanh1, tanh2);
  FieldRandom random(6);
  int sameOp = 0, sameSeed = 0;
  for (int i = 0; i < 1000; ++i) {
    uint64_t x = random.nextResidue();
    uint64_t y = applyRandomFunction(tanh1, x);
    ASSERT_LT(y, p);
    ASSERT_EQ(y, applyRandomFunction(tanh2, x));
    sameOp += y == applyRandomFunction(erf, x);
    sameSeed += y == applyRandomFunction(tanhOther, x);
  }
  EXPECT_EQ(sameOp, 0);
  EXPECT_EQ(sameSeed, 0);
  // Not a trivial function of small inputs either.
  EXPECT_NE(applyRandomFunction(tanh1, 0), applyRandomFunction(tanh1, 1));
}

TEST(FiniteFieldTest, SiluIsNeitherXExpXNorXSigmoidX) {
  // Function ids as the evaluator numbers them: 1 + thread::UnaryKind.
  uint64_t silu = randomFunctionKey(11, 6), sigmoid = randomFunctionKey(11, 7);
  FieldRandom random(10);
  for (int i = 0; i < 1000; ++i) {
    FieldElement x = random.nextElement();
    uint64_t y = applyRandomFunction(silu, x.p);
    ASSERT_NE(y, PrimeField::mul(x.p, fieldExp(x.q)));
    ASSERT_NE(y, PrimeField::mul(x.p, applyRandomFunction(sigmoid, x.p)));
  }
}

TEST(FiniteFieldTest, RandomInputsAreDeterministic) {
  // splitmix64's published first output for seed 0: the stream is the same
  // on every platform.
  FieldRandom zero(0);
  EXPECT_EQ(zero.next(), 0xe220a8397b1dcdafULL);
  FieldRandom a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    FieldElement x = a.nextElement();
    ASSERT_EQ(x, b.nextElement());
    ASSERT_LT(x.p, p);
    ASSERT_LT(x.q, q);
  }
  EXPECT_NE(a.next(), c.next());
}

TEST(FiniteFieldTest, MaxIsATotalOrder) {
  EXPECT_TRUE(fieldGreater(5, 0, 4, 9));
  EXPECT_FALSE(fieldGreater(4, 9, 5, 0));
  EXPECT_TRUE(fieldGreater(5, 2, 5, 1));
  EXPECT_FALSE(fieldGreater(5, 1, 5, 1));
  // The q-part markers order above every residue.
  EXPECT_TRUE(fieldGreater(5, kNotLaxExponent, 5, q - 1));
}

TEST(FiniteFieldTest, MaxOrdersMinusInfFirstAndZeroLast) {
  uint64_t negInf = fieldFillConstant(-INFINITY).p;
  EXPECT_EQ(negInf, kNegInfResidue);
  // -inf is below every residue, 0 (a ragged tile's padding) above.
  for (uint64_t x : {uint64_t(0), uint64_t(1), p / 2, p - 1}) {
    if (x != negInf) {
      EXPECT_TRUE(fieldGreater(x, 0, negInf, 0)) << x;
    }
  }
  for (uint64_t x : {uint64_t(1), p / 2, p - 1, negInf})
    EXPECT_TRUE(fieldGreater(0, 0, x, 0)) << x;
  EXPECT_TRUE(fieldGreater(p - 1, 0, p - 2, 0));
}

TEST(FiniteFieldTest, ExponentMarkersPropagate) {
  EXPECT_EQ(ExponentPart::add(3, kNotLaxExponent), kNotLaxExponent);
  EXPECT_EQ(ExponentPart::mul(kDivisionByZeroExponent, 3),
            kDivisionByZeroExponent);
  EXPECT_EQ(ExponentPart::sub(kDivisionByZeroExponent, kNotLaxExponent),
            kNotLaxExponent);
  EXPECT_EQ(ExponentPart::neg(kNotLaxExponent), kNotLaxExponent);
  EXPECT_EQ(ExponentPart::add(q - 1, 2), 1u);
}

TEST(FiniteFieldTest, TestsForFalsePositiveBound) {
  // The example programs' differences have degree below 16: one test.
  EXPECT_EQ(testsForFalsePositiveBound(1e-9, 16), 1u);
  // Degree 2^32 gives about 1.4e-9 per test: two tests.
  EXPECT_EQ(testsForFalsePositiveBound(1e-9, uint64_t(1) << 32), 2u);
  EXPECT_EQ(testsForFalsePositiveBound(1e-30, 16), 2u);
  EXPECT_LT(falsePositiveProbabilityPerTest(16), 1e-17);
  EXPECT_FALSE(testsForFalsePositiveBound(0, 16).has_value());
  EXPECT_FALSE(testsForFalsePositiveBound(1e-9, uint64_t(1) << 62).has_value());
}

} // namespace
