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

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace llvm {
struct fltSemantics;
} // namespace llvm

namespace mlir {
class Operation;
} // namespace mlir

namespace mlsopt {

/// Largest n of a reciprocal 1/n that constants are read as.
constexpr int64_t kMaxReciprocalDenominator = int64_t(1) << 30;

/// `value` rounded to nearest (ties to even) in `semantics`, as a double.
double roundTo(double value, const llvm::fltSemantics &semantics);

/// Whether `value` is `exact` as a front end writes it: in f64, or rounded
/// to f32, f16 or bf16.
bool isRoundingOf(double value, double exact);

/// The n for which `value` is 1.0 / n computed in double and rounded to f64,
/// f32, f16 or bf16 (what a front end writes for 1/n), for 2 <= n <=
/// kMaxReciprocalDenominator; nullopt for any other value. Where a rounding
/// holds 1/n for several n (f16 past n = 2048, bf16 past n = 256), it is the
/// one of `extents` (getReciprocalExtents: the counts a mean of the program
/// may divide by) nearest 1 / value, or without one there, the n divisible
/// by the highest power of two (1/3072 rounded to f16 is also 1/3073's
/// rounding, and the mean is over 3072).
///
/// With `roundingType` (getReciprocalRoundingType of the program), only f64,
/// f32 and that type's own roundings count: an f32 program's 2^-12 is
/// 1/4096, not the f16 rounding of 1/4097, and its 0.333251953125 (1/3 in
/// f16) is no third.
std::optional<int64_t>
getRoundedReciprocal(double value, llvm::ArrayRef<int64_t> extents = {},
                     mlir::Type roundingType = {});

/// The extents of the static tensors that `root` and the ops in it define
/// (results and block arguments), and the products of every contiguous run
/// of their dims, sorted: what a constant 1/n may count.
llvm::SmallVector<int64_t> getReciprocalExtents(mlir::Operation *root);

/// The narrow float type whose roundings of 1/n the constants of a function
/// of type `type` may be (getRoundedReciprocal): f16 or bf16 where its
/// arguments and results hold that one of them, f32 (neither) where they
/// hold neither, and null (both) otherwise. It is read from the signature,
/// which a rewrite keeps: a searched program computes an f16 program's mean
/// in f32 with the f16 program's constants, which must read as they did.
mlir::Type getReciprocalRoundingType(mlir::FunctionType type);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_CONSTANTS_H
