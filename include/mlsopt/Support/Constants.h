//===- Constants.h - What float constants stand for -------------*- C++ -*-===//
//
// A float constant is a dyadic rational, so a front end cannot write 1/n for
// an n that is not a power of two: the mean over 96 elements multiplies by
// 1.0 / 96 rounded to the element type. The verifier, the search's normal
// form and the idiom raiser all read such a constant as the exact 1/n, so
// that a rewrite that computes the mean exactly (rms_norm, a mean
// accumulator) is equivalent to the program the front end wrote.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SUPPORT_CONSTANTS_H
#define MLSOPT_SUPPORT_CONSTANTS_H

#include <cstdint>
#include <optional>

namespace mlsopt {

/// Largest n of a reciprocal 1/n that constants are read as.
constexpr int64_t kMaxReciprocalDenominator = int64_t(1) << 30;

/// The n for which `value` is 1.0 / n computed in double and rounded to f64,
/// f32, f16 or bf16 (what a front end writes for 1/n), for 2 <= n <=
/// kMaxReciprocalDenominator; nullopt for any other value. Where a rounding
/// holds 1/n for several n (bf16 past n = 256), it is the n nearest
/// 1 / value.
std::optional<int64_t> getRoundedReciprocal(double value);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_CONSTANTS_H
