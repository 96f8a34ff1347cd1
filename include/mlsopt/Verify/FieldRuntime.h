//===- FieldRuntime.h - Scalar field arithmetic for JIT-compiled programs -===//
//
// The JIT-compiled finite-field program (FieldProgram.h) computes every
// scalar through these C functions, which the JIT resolves to this process.
// They are thin wrappers around FiniteField.h, the arithmetic the in-process
// evaluator uses, so the two verifiers cannot drift apart: only the loops
// around the arithmetic are generated.
//
// A field element travels as one 128-bit integer: its residue mod p in the
// low 64 bits, its q-part (a residue mod q or a marker of FiniteField.h) in
// the high 64 bits. Every function computes both parts the way the evaluator
// computes each plane.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_VERIFY_FIELDRUNTIME_H
#define MLSOPT_VERIFY_FIELDRUNTIME_H

#include "mlsopt/Verify/FiniteField.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <utility>

namespace mlsopt::verify {

inline uint128_t packFieldElement(uint64_t p, uint64_t q) {
  return (uint128_t(q) << 64) | p;
}
inline uint64_t residueOf(uint128_t x) { return static_cast<uint64_t>(x); }
inline uint64_t exponentOf(uint128_t x) {
  return static_cast<uint64_t>(x >> 64);
}

/// The state one run of a JIT-compiled field program shares with the
/// runtime: the keys of the random functions and what went wrong.
struct FieldRuntimeContext {
  /// The random function of thread::UnaryKind k has key functionKeys[k],
  /// the one that gives its result a residue mod q exponentKeys[k].
  static constexpr unsigned kMaxFunctions = 32;
  uint64_t functionKeys[kMaxFunctions] = {};
  uint64_t exponentKeys[kMaxFunctions] = {};
  /// The seed of those keys, for the random functions of max_scalar and
  /// min_scalar, keyed by op and constant (scalarFunctionId).
  uint64_t functionSeed = 0;
  /// Some division had a zero divisor mod p, or an exp read a q-part that
  /// a division by zero mod q produced.
  uint64_t divisionByZero = 0;
  /// An exp read a value without a residue mod q. FieldEvaluator::create
  /// rejects such programs before they run, so this stays 0 for them.
  uint64_t notLax = 0;
};

/// The name and address of every runtime function, for the JIT's symbol
/// table.
llvm::ArrayRef<std::pair<const char *, void *>> getFieldRuntimeSymbols();

} // namespace mlsopt::verify

extern "C" {
using mlsopt_field_t = mlsopt::verify::uint128_t;
using mlsopt_field_context_t = mlsopt::verify::FieldRuntimeContext;

mlsopt_field_t mlsopt_field_add(mlsopt_field_t a, mlsopt_field_t b);
mlsopt_field_t mlsopt_field_sub(mlsopt_field_t a, mlsopt_field_t b);
mlsopt_field_t mlsopt_field_mul(mlsopt_field_t a, mlsopt_field_t b);
/// acc + a * b, the step of a dot product.
mlsopt_field_t mlsopt_field_mul_add(mlsopt_field_t acc, mlsopt_field_t a,
                                    mlsopt_field_t b);
/// (top * 2^128 + low) mod p, without a q-part: the end of a dot product
/// summed in 192 bits.
mlsopt_field_t mlsopt_field_reduce_wide(uint64_t top, mlsopt_field_t low);
/// The same in both fields: (topP * 2^128 + lowP) mod p, and `marker` as the
/// q-part if it is not 0, else (topQ * 2^128 + lowQ) mod q.
mlsopt_field_t mlsopt_field_reduce_wide_both(uint64_t topP, mlsopt_field_t lowP,
                                             uint64_t topQ, mlsopt_field_t lowQ,
                                             uint64_t marker);
mlsopt_field_t mlsopt_field_neg(mlsopt_field_t a);
mlsopt_field_t mlsopt_field_square(mlsopt_field_t a);
/// a * b^-1; a zero divisor mod p sets divisionByZero, mod q it leaves a
/// marker that an exp reading it reports.
mlsopt_field_t mlsopt_field_div(mlsopt_field_context_t *context,
                                mlsopt_field_t a, mlsopt_field_t b);
/// w^(a mod q), without a q-part.
mlsopt_field_t mlsopt_field_exp(mlsopt_field_context_t *context,
                                mlsopt_field_t a);
/// a^((p+1)/4), with sqrt's random function of a mod p as its q-part.
mlsopt_field_t mlsopt_field_sqrt(mlsopt_field_context_t *context,
                                 mlsopt_field_t a);
/// The inverse of sqrt(a) in both fields; 0 mod p sets divisionByZero, 0
/// mod q leaves the division-by-zero marker.
mlsopt_field_t mlsopt_field_rsqrt(mlsopt_field_context_t *context,
                                  mlsopt_field_t a);
/// The random function that stands for thread::UnaryKind `function`, and
/// its independent one mod q, both of a mod p.
mlsopt_field_t mlsopt_field_random(mlsopt_field_context_t *context,
                                   int64_t function, mlsopt_field_t a);
/// `candidate` if it is greater than `running` in max's total order, else
/// `running`: the step of a max reduction.
mlsopt_field_t mlsopt_field_max(mlsopt_field_t running,
                                mlsopt_field_t candidate);
/// The symmetric random function `function` (binaryFunctionId) of `a` and
/// `b` mod p, and its independent one mod q: the binary max and min.
mlsopt_field_t mlsopt_field_random_pair(mlsopt_field_context_t *context,
                                        uint64_t function, mlsopt_field_t a,
                                        mlsopt_field_t b);
/// The random function scalarFunctionId `function` (max_scalar or
/// min_scalar with its constant) of a mod p, and its independent one mod q.
mlsopt_field_t mlsopt_field_random_scalar(mlsopt_field_context_t *context,
                                          uint64_t function, mlsopt_field_t a);
}

#endif // MLSOPT_VERIFY_FIELDRUNTIME_H
