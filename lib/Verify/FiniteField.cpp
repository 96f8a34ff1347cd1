//===- FiniteField.cpp - Arithmetic for probabilistic verification --------===//

#include "mlsopt/Verify/FiniteField.h"

#include "mlsopt/Support/Constants.h"
#include "llvm/ADT/bit.h"

#include <array>
#include <cmath>

using namespace mlsopt::verify;

FieldElement mlsopt::verify::fieldInteger(int64_t value) {
  return {PrimeField::fromInteger(value), ExponentField::fromInteger(value)};
}

/// 2^e in a field whose modulus is odd, for an exponent of any sign.
template <typename Field> static uint64_t powerOfTwo(int64_t e) {
  // (m + 1) / 2 is the inverse of 2 modulo an odd m.
  constexpr uint64_t half = (Field::kModulus + 1) / 2;
  return e >= 0 ? Field::pow(2, e) : Field::pow(half, -e);
}

std::optional<FieldElement>
mlsopt::verify::fieldConstant(double value, llvm::ArrayRef<int64_t> extents,
                              mlir::Type roundingType) {
  if (!std::isfinite(value))
    return std::nullopt;
  if (value == 0)
    return FieldElement{0, 0};
  // 1/n rounded to the element type stands for 1/n
  // (mlsopt/Support/Constants.h).
  if (std::optional<int64_t> n =
          getRoundedReciprocal(std::fabs(value), extents, roundingType)) {
    FieldElement r{PrimeField::inverse(PrimeField::fromInteger(*n)),
                   ExponentField::inverse(ExponentField::fromInteger(*n))};
    if (value < 0)
      r = {PrimeField::neg(r.p), ExponentField::neg(r.q)};
    return r;
  }
  // |value| = fraction * 2^exponent with fraction in [0.5, 1); fraction has
  // at most 53 significant bits, so fraction * 2^53 is an exact integer.
  int exponent = 0;
  double fraction = std::frexp(std::fabs(value), &exponent);
  auto mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));
  int64_t e = static_cast<int64_t>(exponent) - 53;
  FieldElement r{PrimeField::mul(mantissa % PrimeField::kModulus,
                                 powerOfTwo<PrimeField>(e)),
                 ExponentField::mul(mantissa % ExponentField::kModulus,
                                    powerOfTwo<ExponentField>(e))};
  if (value < 0)
    r = {PrimeField::neg(r.p), ExponentField::neg(r.q)};
  return r;
}

FieldElement mlsopt::verify::fieldFillConstant(double value,
                                               llvm::ArrayRef<int64_t> extents,
                                               mlir::Type roundingType) {
  if (std::optional<FieldElement> c =
          fieldConstant(value, extents, roundingType))
    return *c;
  uint64_t bits = mix64(llvm::bit_cast<uint64_t>(value) ^ kFillKey);
  return {bits % PrimeField::kModulus, mix64(bits) % ExponentField::kModulus};
}

namespace {
/// w^(b * 2^(8i)) for every window i of an exponent below 2^64 and every byte
/// value b.
struct ExpTable {
  std::array<std::array<uint64_t, 256>, 8> windows;

  ExpTable() {
    uint64_t base = kExpBase; // w^(2^(8i))
    for (auto &window : windows) {
      uint64_t power = 1;
      for (uint64_t &entry : window) {
        entry = power;
        power = PrimeField::mul(power, base);
      }
      base = power; // w^(256 * 2^(8i))
    }
  }
};
} // namespace

uint64_t mlsopt::verify::fieldExp(uint64_t exponent) {
  static const ExpTable table;
  uint64_t r = table.windows[0][exponent & 0xff];
  for (unsigned i = 1; i < 8; ++i)
    r = PrimeField::mul(r, table.windows[i][(exponent >> (8 * i)) & 0xff]);
  return r;
}

uint64_t mlsopt::verify::fieldSqrt(uint64_t x) {
  return PrimeField::pow(x, (PrimeField::kModulus + 1) / 4);
}

uint64_t mlsopt::verify::randomFunctionKey(uint64_t seed, uint64_t function) {
  return mix64(mix64(seed ^ 0x6a09e667f3bcc908ULL) +
               mix64(function * 0x9e3779b97f4a7c15ULL + 0xbb67ae8584caa73bULL));
}

std::optional<uint64_t>
mlsopt::verify::scalarFunctionId(llvm::StringRef mnemonic, double constant) {
  if (mnemonic != "max_scalar" && mnemonic != "min_scalar")
    return std::nullopt;
  bool isMin = mnemonic == "min_scalar";
  // The top bit keeps the id (and the id + 2^32 of its function mod q) far
  // from the unary ops' 1 to 32; -0.0 and 0.0 stay distinct, as max and min
  // tell them apart.
  return (uint64_t(1) << 63) |
         (mix64(llvm::bit_cast<uint64_t>(constant) ^
                (isMin ? 0x6d696e5f7363616cULL : 0x6d61785f7363616cULL)) >>
          1);
}

uint64_t mlsopt::verify::binaryFunctionId(bool isMin) {
  // Bit 62 without bit 63: neither a unary op's id (1 to 32, and + 2^32 mod
  // q) nor a scalar op's (bit 63 set).
  return (uint64_t(1) << 62) | (isMin ? 2 : 1);
}

uint64_t mlsopt::verify::exponentFunctionKey(uint64_t seed, uint64_t function) {
  // Function ids below 2^32 are the random functions mod p: the ids above
  // give keys independent of theirs.
  return randomFunctionKey(seed, function + (uint64_t(1) << 32));
}

double mlsopt::verify::falsePositiveProbabilityPerTest(uint64_t degree) {
  double d = static_cast<double>(degree);
  double epsilon = d / static_cast<double>(PrimeField::kModulus) +
                   d / static_cast<double>(ExponentField::kModulus);
  return std::min(epsilon, 1.0);
}

std::optional<unsigned>
mlsopt::verify::testsForFalsePositiveBound(double bound, uint64_t degree) {
  if (!(bound > 0 && bound <= 1))
    return std::nullopt;
  double epsilon =
      falsePositiveProbabilityPerTest(std::max<uint64_t>(degree, 1));
  if (epsilon >= 1)
    return std::nullopt;
  // Independent tests all fail with probability epsilon^n <= bound.
  double n = std::ceil(std::log(bound) / std::log(epsilon));
  if (n > 1e6)
    return std::nullopt;
  return std::max(1u, static_cast<unsigned>(n));
}
