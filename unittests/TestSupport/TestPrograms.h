//===- TestPrograms.h - MLIR programs several unit tests share --*- C++ -*-===//
//
// The μGraphs more than one test suite runs (the evaluator, the CPU runner),
// written once so that they cannot drift apart.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_UNITTESTS_TESTSUPPORT_TESTPROGRAMS_H
#define MLSOPT_UNITTESTS_TESTSUPPORT_TESTPROGRAMS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlsopt::test {

/// The custom kernel of test/Conversion/CustomKernelToLoops/run-schedule.mlir
/// as a function @`name`(X: 8x16, W: 16x8) -> 8x8: the matmul X W on a 2x2
/// grid with a 4-iteration loop over 4x4 tiles. `xImap` maps grid dims to
/// the dims of X's tiles (the right one is "x = 0"), `omap` places each
/// block's tile in the output (the right one is "x = 0, y = 1"), and
/// `epilogue`, unless empty, names a unary block op ("exp") applied to the
/// accumulated tile before it is stored.
std::string tiledMatmulKernel(llvm::StringRef name,
                              llvm::StringRef xImap = "x = 0",
                              llvm::StringRef omap = "x = 0, y = 1",
                              llvm::StringRef epilogue = "");

/// Programs that take exp of square roots, spelled every way the search and
/// front ends spell them, for the evaluator and the JIT to agree on; every
/// function's result is exp of something, so its residues mod p are a
/// function of residues mod q alone. Functions of one signature compare:
///
///   - (x: 4x8) -> 4x8, exp of RMSNorm with epsilon 0.25 over the last dim:
///     @exp_norm_op (kernel.rms_norm), @exp_norm_rsqrt (x * rsqrt(mean(x^2)
///     + eps)), @exp_norm_div (x / sqrt(...)), @exp_norm_block
///     (block.rms_norm in a custom kernel); @exp_norm_other_eps differs;
///   - (x: 4x8) -> 4x8 with epsilon 0: @exp_root_op, @exp_root_div and
///     @exp_root_acc (the row's root from an rms accumulator);
///   - (q: 2x4x8, k: 2x8x6) -> 2x4x6, QKNorm's scores:
///     @qk_norm (exp(rms_norm(Q) rms_norm(K over dim 1))), @qk_scaled (the
///     scales applied to Q K); @qk_other_eps differs;
///   - (x: 4x8) -> 4x8: @exp_tanh_squared (exp(tanh x)^2) and
///     @exp_tanh_doubled (exp(2 tanh x)); @exp_erf_doubled differs;
///     @exp_root_over_root (exp(sqrt(x) rsqrt(x))) and @exp_one (exp(1)).
llvm::StringRef rootsUnderExp();

} // namespace mlsopt::test

#endif // MLSOPT_UNITTESTS_TESTSUPPORT_TESTPROGRAMS_H
