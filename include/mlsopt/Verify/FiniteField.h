//===- FiniteField.h - Arithmetic for probabilistic verification -*- C++
//-*-===//
//
// mlsopt proves two tensor programs equivalent by running both on random
// inputs over finite fields (Mirage, OSDI'25, section 5). Every value is a
// pair: its residue mod the prime p, which is the value the program computes,
// and its residue mod q = (p - 1) / 2, which is what `exp` needs: exp(x) is
// w^(x mod q) mod p for a w of order q, so exp(a) * exp(b) = exp(a + b) holds
// exactly. Both primes are 64-bit pseudo-Mersenne primes, so a product fits in
// 128 bits and reduces with two multiplications by a small constant.
//
// docs/verification.md gives the semantics of every op and the bound on false
// positives.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_VERIFY_FINITEFIELD_H
#define MLSOPT_VERIFY_FINITEFIELD_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace mlsopt::verify {

using uint128_t = unsigned __int128;

/// Arithmetic modulo the prime 2^Bits - C. Residues are canonical: always in
/// [0, kModulus).
template <unsigned Bits, uint64_t C> struct PseudoMersenneField {
  static_assert(Bits >= 62 && Bits <= 63 && C < (uint64_t(1) << 20),
                "reduce() relies on a small C and at most one spare bit");
  static constexpr uint64_t kModulus = (uint64_t(1) << Bits) - C;
  static constexpr uint64_t kLowMask = (uint64_t(1) << Bits) - 1;

  /// x mod kModulus for any 128-bit x: 2^Bits = C, so the bits above Bits
  /// fold down multiplied by C, twice, then one conditional subtraction.
  static constexpr uint64_t reduce(uint128_t x) {
    x = (x >> Bits) * C + (x & kLowMask); // < 2^86 + 2^Bits
    // Now the high part is below 2^24: the sum fits 64 bits, and is below
    // 2 * kModulus.
    uint64_t y = static_cast<uint64_t>((x >> Bits) * C + (x & kLowMask));
    return y >= kModulus ? y - kModulus : y;
  }

  /// (top * 2^128 + low) mod kModulus: the value of a 192-bit sum of
  /// products, as matmul accumulates it.
  static uint64_t reduceWide(uint64_t top, uint128_t low) {
    constexpr uint64_t k2To64 = reduce(uint128_t(1) << 64);
    constexpr uint64_t k2To128 = reduce(uint128_t(k2To64) * k2To64);
    return add(reduce(low), reduce(uint128_t(top) * k2To128));
  }

  static constexpr uint64_t add(uint64_t a, uint64_t b) {
    uint64_t s = a + b;
    return s >= kModulus ? s - kModulus : s;
  }
  static constexpr uint64_t sub(uint64_t a, uint64_t b) {
    return a >= b ? a - b : a + (kModulus - b);
  }
  static constexpr uint64_t neg(uint64_t a) {
    return a == 0 ? 0 : kModulus - a;
  }
  static constexpr uint64_t mul(uint64_t a, uint64_t b) {
    return reduce(uint128_t(a) * b);
  }
  static constexpr uint64_t pow(uint64_t base, uint64_t exponent) {
    uint64_t result = 1;
    for (; exponent; exponent >>= 1) {
      if (exponent & 1)
        result = mul(result, base);
      base = mul(base, base);
    }
    return result;
  }
  /// The inverse of a nonzero residue (Fermat); 0 for 0, which callers must
  /// treat as a division by zero.
  static constexpr uint64_t inverse(uint64_t a) { return pow(a, kModulus - 2); }
  /// The residue of an integer of any sign.
  static uint64_t fromInteger(int64_t v) {
    uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : v;
    uint64_t r = magnitude % kModulus;
    return v < 0 ? neg(r) : r;
  }
};

/// Z_p with p = 2^63 - 4569, a safe prime: q = (p - 1) / 2 is prime too, and
/// p = 3 mod 4. It is the largest safe prime of the form 2^63 - c.
using PrimeField = PseudoMersenneField<63, 4569>;
/// Z_q with q = (p - 1) / 2 = 2^62 - 2285: the field of exponents.
using ExponentField = PseudoMersenneField<62, 2285>;

static_assert(PrimeField::kModulus == 2 * ExponentField::kModulus + 1,
              "q must be (p - 1) / 2");
static_assert(PrimeField::kModulus % 4 == 3,
              "sqrt as x^((p+1)/4) needs p = 3 mod 4");

/// 4 = 2^2 is a square other than 1, so in the group of a safe prime it
/// generates the subgroup of order q: exp(x) = 4^(x mod q) mod p.
inline constexpr uint64_t kExpBase = 4;

/// Markers of the q-part of a value that has no residue mod q. Every residue
/// is below 2^62, so the markers compare above all of them, and
/// kNotLaxExponent above kDivisionByZeroExponent.
/// The value depends on an exp (or a rescale accumulator), whose result has
/// no image in Z_q: taking exp of it again is an error, the program is not
/// LAX.
inline constexpr uint64_t kNotLaxExponent = ~uint64_t(0);
/// A division by a zero residue mod q: exp of it means the test is void.
inline constexpr uint64_t kDivisionByZeroExponent = ~uint64_t(0) - 1;

inline bool isExponentResidue(uint64_t q) { return (q >> 62) == 0; }

/// Z_q arithmetic on q-parts that may be markers: a marker operand makes the
/// result a marker, the stronger one (not LAX) winning.
struct ExponentPart {
  static uint64_t add(uint64_t a, uint64_t b) {
    if (LLVM_UNLIKELY(((a | b) >> 62) != 0))
      return std::max(a, b);
    return ExponentField::add(a, b);
  }
  static uint64_t sub(uint64_t a, uint64_t b) {
    if (LLVM_UNLIKELY(((a | b) >> 62) != 0))
      return std::max(a, b);
    return ExponentField::sub(a, b);
  }
  static uint64_t mul(uint64_t a, uint64_t b) {
    if (LLVM_UNLIKELY(((a | b) >> 62) != 0))
      return std::max(a, b);
    return ExponentField::mul(a, b);
  }
  static uint64_t neg(uint64_t a) {
    return isExponentResidue(a) ? ExponentField::neg(a) : a;
  }
  static uint64_t inverse(uint64_t a) {
    if (!isExponentResidue(a))
      return a;
    return a == 0 ? kDivisionByZeroExponent : ExponentField::inverse(a);
  }
};

/// One value in the field: the residue mod p and the residue mod q (or a
/// marker).
struct FieldElement {
  uint64_t p = 0;
  uint64_t q = 0;
  friend bool operator==(FieldElement a, FieldElement b) {
    return a.p == b.p && a.q == b.q;
  }
  friend bool operator!=(FieldElement a, FieldElement b) { return !(a == b); }
};

/// The element of an integer.
FieldElement fieldInteger(int64_t value);

/// The element of a finite double. A double is a dyadic rational m * 2^e
/// (m an integer below 2^53), which maps exactly to m * (2^-1)^(-e) in both
/// fields, so distinct constants such as 0.044715 and 0.044716 stay distinct.
/// The exception is 1/n rounded to f64, f32, f16 or bf16, which is the exact
/// 1/n (getRoundedReciprocal): a mean's factor 1.0 / 96 in f32 is what
/// rms_norm over 96 elements divides by. None for NaN and infinities.
/// `extents` (getReciprocalExtents of the function) resolve a rounding that
/// holds 1/n for several n; `roundingType` (getReciprocalRoundingType of
/// the function) which roundings count.
std::optional<FieldElement> fieldConstant(double value,
                                          llvm::ArrayRef<int64_t> extents = {},
                                          mlir::Type roundingType = {});

/// The element a triangle_fill writes for `value`: fieldConstant's for a
/// finite value; for an infinity or NaN (the -inf of a causal mask), which
/// has none, a fixed element keyed by its bits, in both fields. The field
/// does not model exp(-inf) = 0: both programs must fill the same places
/// with the same value and compute the same from them.
FieldElement fieldFillConstant(double value,
                               llvm::ArrayRef<int64_t> extents = {},
                               mlir::Type roundingType = {});

/// w^x mod p for a residue x mod q, through a table of 8-bit windows (seven
/// multiplications).
uint64_t fieldExp(uint64_t exponent);

/// x^((p+1)/4) mod p. The power map is multiplicative, so sqrt(a * b) =
/// sqrt(a) * sqrt(b) for all a, b. For a quadratic residue the result squares
/// to x (it is the square root that is itself a residue); for a non-residue
/// it squares to -x.
uint64_t fieldSqrt(uint64_t x);

/// The key of the random function that stands for non-LAX op `function`
/// (e.g. tanh) under `seed`. Two programs compared with one seed see the same
/// functions; distinct ops get independent ones.
uint64_t randomFunctionKey(uint64_t seed, uint64_t function);

/// The id of the random function that stands for op `mnemonic` with
/// `constant`, when the op is max_scalar or min_scalar (else none): one
/// per op and constant, apart from
/// the unary ops' ids (1 to 32) and their ids mod q. max and min follow the
/// real order, which the field does not have; as functions about which the
/// verifier assumes nothing, a program passes only if it applies the same
/// bound to the same value (a total order of residues made
/// max(x, -4) the constant -4 for almost every x, and every program with
/// it equal).
std::optional<uint64_t> scalarFunctionId(llvm::StringRef mnemonic,
                                         double constant);

/// The id of the random function that stands for the binary max or min of
/// two tensors (`isMin` for min): apart from the unary ops' ids, the scalar
/// ops' and the ids mod q. As for max_scalar, the field's residues have no
/// order to select by: ordering them made max(x, y) equal to x for almost
/// every x whenever y was a residue near 0 (y = x / x, say), so that a
/// program that dropped the max passed.
uint64_t binaryFunctionId(bool isMin);

/// The key of the random function that gives the result of op `function`
/// (sqrt, tanh, ...) its residue mod q, under `seed`: independent of the
/// function mod p and of every other op's.
uint64_t exponentFunctionKey(uint64_t seed, uint64_t function);

/// splitmix64's finalizer: a bijective 64-bit mixer.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The operand of a random function of two residues that does not depend on
/// their order (max and min are symmetric): the smaller residue mixed, then
/// combined with the larger.
inline uint64_t symmetricPairResidue(uint64_t a, uint64_t b) {
  uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
  return mix64(lo + 0x9e3779b97f4a7c15ULL) ^ hi;
}

/// The keyed hash under every random function: 64 uniform bits.
inline uint64_t hashResidue(uint64_t key, uint64_t x) {
  uint64_t h = mix64(x ^ key);
  return mix64(h + (key | 1) * 0x9e3779b97f4a7c15ULL);
}

/// The random function with key `key` at residue `x`: a keyed hash mapped
/// uniformly onto [0, p). It depends on the residue mod p only: that is the
/// value both programs agree on when they compute the same thing.
inline uint64_t applyRandomFunction(uint64_t key, uint64_t x) {
  return static_cast<uint64_t>(
      (uint128_t(hashResidue(key, x)) * PrimeField::kModulus) >> 64);
}

/// The residue mod q of an op that has no algebraic meaning in Z_q (sqrt,
/// tanh, ...), at the residue `x` mod p of its operand: a keyed hash mapped
/// uniformly onto [0, q), an uninterpreted function. Reading only the
/// residue mod p makes every program that computes the same operand agree,
/// whether or not its operand had a residue mod q.
inline uint64_t applyExponentFunction(uint64_t key, uint64_t x) {
  return static_cast<uint64_t>(
      (uint128_t(hashResidue(key, x)) * ExponentField::kModulus) >> 64);
}

/// The bits fieldFillConstant keys a non-finite fill by.
constexpr uint64_t kFillKey = 0x66696c6c5f696e66ULL;

/// The residue mod p of a fill of -inf (fieldFillConstant): the causal
/// mask's value.
constexpr uint64_t kNegInfResidue =
    mix64(0xfff0000000000000ULL ^ kFillKey) % PrimeField::kModulus;

/// The rank of residue `p` in the order max uses: -inf's below all others,
/// 0 above all others, the others in between as integers.
///
/// -inf at the bottom keeps max(x, -inf) = x, which a row max over a
/// causal mask relies on. 0 at the top is what a ragged tile's padding
/// reads (docs/gpu.md): the GPU's zeros take part in a max there, where
/// they are wrong for a row of negatives, and would pass unseen as the
/// smallest residue; on top, a max that reads the padding returns 0, which
/// differs from the reference's max of its real elements but with
/// probability about (elements) / p.
constexpr uint64_t maxOrderRank(uint64_t p) {
  return p == 0 ? PrimeField::kModulus + 1 : p == kNegInfResidue ? 0 : p + 1;
}

/// True if `a` is the larger element in the total order max uses
/// (maxOrderRank), ties broken by the q-part. A total order makes max
/// associative, commutative and idempotent, so the max of tile maxima is the
/// max of all elements.
inline bool fieldGreater(uint64_t ap, uint64_t aq, uint64_t bp, uint64_t bq) {
  return ap != bp ? maxOrderRank(ap) > maxOrderRank(bp) : aq > bq;
}

/// A deterministic generator of random field elements (splitmix64), the same
/// sequence on every platform for a seed.
class FieldRandom {
public:
  explicit FieldRandom(uint64_t seed) : state(seed) {}

  uint64_t next() {
    state += 0x9e3779b97f4a7c15ULL;
    return mix64(state);
  }
  /// Uniform in [0, p), by rejection (p is within 2^-50 of 2^63).
  uint64_t nextResidue() {
    for (;;)
      if (uint64_t v = next() >> 1; v < PrimeField::kModulus)
        return v;
  }
  /// Uniform in [0, q).
  uint64_t nextExponent() {
    for (;;)
      if (uint64_t v = next() >> 2; v < ExponentField::kModulus)
        return v;
  }
  /// An input element: independent residues mod p and mod q, which by the
  /// Chinese remainder theorem is a uniform integer mod p * q seen in both
  /// fields.
  FieldElement nextElement() {
    uint64_t p = nextResidue();
    return {p, nextExponent()};
  }

private:
  uint64_t state;
};

/// The probability that one random test does not tell apart two programs
/// whose difference has degree at most `degree` (see docs/verification.md):
/// degree / p + degree / q, at most 1.
double falsePositiveProbabilityPerTest(uint64_t degree);

/// The number of independent tests that brings the false-positive
/// probability of two programs whose difference has degree at most `degree`
/// to `bound` or below; none when the bound is unreachable (a degree so large
/// that one test proves nothing, or a bound outside (0, 1]).
std::optional<unsigned> testsForFalsePositiveBound(double bound,
                                                   uint64_t degree);

} // namespace mlsopt::verify

#endif // MLSOPT_VERIFY_FINITEFIELD_H
