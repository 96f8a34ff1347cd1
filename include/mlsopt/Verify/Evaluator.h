//===- Evaluator.h - Tensor programs evaluated over finite fields -*- C++
//-*-===//
//
// The fast, in-process half of mlsopt's verifier: it runs a func.func made of
// kernel ops and custom kernels on tensors of field elements, following every
// block graph's schedule (grid, for-loop, tiles cut by imap and fmap, outputs
// assembled by omap) exactly as --convert-custom-kernel-to-loops does, so a
// wrong imap gives a different result. The search calls it in its inner loop;
// it allocates per tensor, never per element, and reuses its buffers across
// evaluations.
//
// The semantics of every op are in docs/verification.md.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_VERIFY_EVALUATOR_H
#define MLSOPT_VERIFY_EVALUATOR_H

#include "mlsopt/Verify/FiniteField.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ThreadPool.h"

#include <memory>
#include <vector>

namespace mlsopt::verify {

/// A dense row-major tensor of field elements, stored as two planes: the
/// residues mod p and the q-parts (residues mod q or markers). The q plane is
/// empty when nobody needs it (no exp downstream).
struct FieldTensor {
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<uint64_t> p;
  std::vector<uint64_t> q;

  FieldTensor() = default;
  /// A tensor of zeros of `shape`, with a q plane when `withExponents`.
  explicit FieldTensor(llvm::ArrayRef<int64_t> shape,
                       bool withExponents = true);

  int64_t getNumElements() const { return static_cast<int64_t>(p.size()); }
  bool hasExponents() const { return !q.empty(); }
  FieldElement get(int64_t i) const {
    return {p[i], hasExponents() ? q[i] : kNotLaxExponent};
  }
  /// Gives the tensor `newShape`, keeping the buffers' capacity; the contents
  /// are unspecified.
  void reshape(llvm::ArrayRef<int64_t> newShape, bool withExponents);
};

/// Gives `tensor` the shape `shape` and independent uniform elements from
/// `random`: residues mod p, then, when `withExponents`, residues mod q (a
/// uniform integer mod p * q seen in both fields). The residues mod p do not
/// depend on `withExponents`.
void fillRandom(FieldTensor &tensor, llvm::ArrayRef<int64_t> shape,
                FieldRandom &random, bool withExponents = true);

/// A tensor of `shape` filled by fillRandom.
FieldTensor drawRandomFieldTensor(llvm::ArrayRef<int64_t> shape,
                                  FieldRandom &random,
                                  bool withExponents = true);

/// Random tensors for every argument of `func`, in order, each from its own
/// generator seeded by `random`; q-parts for argument i when
/// `withExponents` is empty or withExponents[i] is set. Reuses the buffers
/// of `inputs`.
void fillRandomInputs(llvm::SmallVectorImpl<FieldTensor> &inputs,
                      mlir::func::FuncOp func, FieldRandom &random,
                      llvm::ArrayRef<bool> withExponents = {});

/// fillRandomInputs into fresh tensors.
llvm::SmallVector<FieldTensor>
drawRandomInputs(mlir::func::FuncOp func, FieldRandom &random,
                 llvm::ArrayRef<bool> withExponents = {});

struct FieldOptions {
  /// Seed of the random functions that stand for the non-LAX ops (tanh, erf,
  /// silu, ...) and give them and the roots (sqrt, rsqrt, rms_norm, rms)
  /// their residues mod q. Both programs of a comparison must use the same
  /// one.
  uint64_t functionSeed = 0;
  /// 0: what lies past the end of a ragged tile (docs/gpu.md) reads zeros,
  /// as on the GPU. Otherwise it reads residues drawn from this seed. A
  /// result equal to the reference's with random padding does not depend on
  /// the padding (but with probability about its degree / p), so a division
  /// by a zero of the GPU's padding cannot reach it: compareInField retries
  /// a test that divided by zero this way (docs/verification.md, "Division
  /// by zero"). The JIT engine ignores it.
  uint64_t paddingSeed = 0;
};

/// The paddingSeed of the retry of a test drawn from `seed` that divided by
/// zero.
inline uint64_t getPaddingSeed(uint64_t seed) {
  return mix64(seed ^ 0x2545f4914f6cdd1dULL);
}

/// What one evaluation produced.
struct FieldEvaluation {
  /// The function's results, in order.
  llvm::SmallVector<FieldTensor> results;
  /// Some division had a zero divisor (mod p, or mod q under an exp): the
  /// results are not the program's, so this test proves nothing either way.
  bool divisionByZero = false;
};

/// Evaluates one function over the field, many times; the function must not
/// change while its evaluator lives. An evaluator keeps buffers between
/// evaluations: use one per thread. Construction checks
/// that every op is supported and that the program is LAX where it must be
/// (every exp argument, and every rescale accumulator's maximum, has a value
/// mod q); evaluation then cannot fail on well-shaped inputs.
class FieldEvaluator {
public:
  /// Prepares `func`. Emits an error on the first op it cannot evaluate, or
  /// on an exp whose argument is not LAX, and fails.
  static mlir::FailureOr<FieldEvaluator> create(mlir::func::FuncOp func);

  FieldEvaluator(FieldEvaluator &&);
  FieldEvaluator &operator=(FieldEvaluator &&);
  ~FieldEvaluator();

  /// Runs the function on `inputs` (one tensor per argument, of its shape,
  /// with canonical residues; a q plane where needsInputExponents). Emits an
  /// error on the function and fails when the inputs do not match its
  /// signature.
  mlir::FailureOr<FieldEvaluation> evaluate(llvm::ArrayRef<FieldTensor> inputs,
                                            const FieldOptions &options);

  /// Shares later evaluations' work among `pool`'s threads (null: the
  /// calling thread alone): the blocks of a custom kernel whose stores cover
  /// disjoint tiles, and the rows of a large matmul. The field is exact and
  /// every element is computed as alone, so the results do not depend on
  /// the pool.
  void setThreadPool(llvm::ThreadPoolInterface *pool);

  mlir::func::FuncOp getFunction() const;

  /// Whether evaluate reads the q-parts of input `i` (some exp depends on
  /// it); inputs without them may omit their q plane.
  bool needsInputExponents(unsigned i) const;

  /// Whether evaluate computes the q-part of `value` (some exp reads it and
  /// it has one). Where it does not, only the residue mod p is observable.
  bool computesExponents(mlir::Value value) const;

  /// A bound on the degree of each result as a rational function of the
  /// inputs (numerator plus denominator degree), where the value of every
  /// exp, rsqrt (a square root is the inverse of one) and non-LAX op counts
  /// as a fresh variable; saturates at 2^62.
  llvm::ArrayRef<uint64_t> getResultDegrees() const;

  /// Whether some result may depend on a max (reduce_max or a max
  /// accumulator). The degree bound says nothing about max: a max is
  /// insensitive to the elements it does not pick, so two programs whose
  /// maxima range over different elements agree whenever the picked element
  /// is in both ranges (see docs/verification.md).
  bool hasMaxSelection() const;

  /// The counts a constant 1/n of the function may stand for
  /// (getReciprocalExtents), which its constants are read with.
  llvm::ArrayRef<int64_t> getConstantExtents() const;

  /// The narrow type whose roundings of 1/n its constants may be
  /// (getReciprocalRoundingType).
  mlir::Type getConstantRoundingType() const;

  /// A bound on the degree of the exponents (exp arguments and rescale
  /// differences) in this function.
  uint64_t getExponentDegree() const;

private:
  struct Impl;
  explicit FieldEvaluator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Evaluates `func` once: FieldEvaluator::create, then evaluate.
mlir::FailureOr<FieldEvaluation> evaluate(mlir::func::FuncOp func,
                                          llvm::ArrayRef<FieldTensor> inputs,
                                          const FieldOptions &options);

/// The degree bound that testsForFalsePositiveBound needs for a comparison
/// of `lhs` and `rhs`: the numerator of the difference of two rational
/// functions has degree at most the sum of their degrees, and two exponents
/// differ by a function of at most twice the larger exponent degree.
uint64_t getComparisonDegree(const FieldEvaluator &lhs,
                             const FieldEvaluator &rhs);

/// Both engines compute a matmul's dot products in blocks of this many rows
/// by as many columns: both blocks' k-vectors stay in cache while each is
/// reused that often (a 512 x 4096 by 4096 x 4096 product streamed the whole
/// rhs from memory once per row without).
inline constexpr int64_t kMatmulPairBlock = 16;

enum class FieldVerdict {
  /// Every test gave equal results.
  Equal,
  /// Some test gave different results (without a division by zero).
  Different,
  /// No difference was seen, but some test divided by zero: nothing proven.
  Inconclusive,
};

struct FieldComparison {
  FieldVerdict verdict = FieldVerdict::Equal;
  /// Tests run.
  unsigned tests = 0;
  /// For Different: the test, the result and the flat element index of the
  /// first difference, and both elements' residues mod p.
  unsigned test = 0;
  unsigned result = 0;
  int64_t index = 0;
  uint64_t lhsValue = 0;
  uint64_t rhsValue = 0;
};

/// Runs one function on given inputs: FieldEvaluator::evaluate, or the
/// JIT-compiled program of FieldJIT.h.
using FieldEvaluateFn = llvm::function_ref<mlir::FailureOr<FieldEvaluation>(
    llvm::ArrayRef<FieldTensor>, const FieldOptions &)>;

/// Runs `evaluateLhs` (the program of `lhs`) and `evaluateRhs` (of `rhs`) on
/// `tests` draws of random inputs from `seed`, with q-parts for input i when
/// withExponents[i], and compares every result element mod p. Both engines
/// draw the same inputs and random functions for a seed. Emits an error on
/// `lhs` and fails when the signatures' shapes differ or an evaluation fails.
/// With a `pool`, each test runs both programs at once, the lhs as a task of
/// the pool (a retry with random padding excepted); both functions must then
/// be safe to call concurrently. The verdict and the order of the
/// diagnostics do not depend on it.
mlir::FailureOr<FieldComparison>
compareInField(mlir::func::FuncOp lhs, mlir::func::FuncOp rhs,
               llvm::ArrayRef<bool> withExponents, FieldEvaluateFn evaluateLhs,
               FieldEvaluateFn evaluateRhs, unsigned tests, uint64_t seed,
               llvm::ThreadPoolInterface *pool = nullptr);

/// Runs `lhs` and `rhs` on `tests` draws of random inputs from `seed` and
/// compares every result element mod p. The functions must have the same
/// argument and result shapes; emits an error on `lhs` and fails otherwise,
/// or when an evaluation fails.
mlir::FailureOr<FieldComparison> compareInField(FieldEvaluator &lhs,
                                                FieldEvaluator &rhs,
                                                unsigned tests, uint64_t seed);

} // namespace mlsopt::verify

#endif // MLSOPT_VERIFY_EVALUATOR_H
