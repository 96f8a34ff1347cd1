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

} // namespace mlsopt::test

#endif // MLSOPT_UNITTESTS_TESTSUPPORT_TESTPROGRAMS_H
