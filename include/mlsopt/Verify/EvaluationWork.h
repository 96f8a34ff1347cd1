//===- EvaluationWork.h - What a field evaluation holds and does -*- C++
//-*-===//
//
// Sizes of one finite-field evaluation of a function at its full shapes,
// read off the IR before running it: the memory it holds and the field
// operations it takes. --verify-equivalence refuses checks past its limits
// with them, and --superoptimize foresees how long checking a μGraph takes.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_VERIFY_EVALUATIONWORK_H
#define MLSOPT_VERIFY_EVALUATIONWORK_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>

namespace mlsopt::verify {

/// The elements of every tensor `func` takes or computes: what its
/// finite-field evaluation holds in memory at most, since every value keeps
/// its buffer (a kernel.convert shares its operand's, and is not counted).
/// Saturates instead of overflowing on absurd shapes.
uint64_t countEvaluatedElements(mlir::func::FuncOp func);

/// About how many field operations one evaluation of `func` takes: the
/// elements each op reads and writes (a matmul's products besides; a block
/// op's tiles, not the kernel arguments they are cut from), times the blocks
/// of the custom kernel and the iterations of the for-loops around it.
/// Saturates.
uint64_t countEvaluationWork(mlir::func::FuncOp func);

} // namespace mlsopt::verify

#endif // MLSOPT_VERIFY_EVALUATIONWORK_H
