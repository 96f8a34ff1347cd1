//===- FieldJIT.h - Finite-field programs through the ExecutionEngine -*- C++ -*-===//
//
// The JIT half of mlsopt's verifier: the finite-field programs of some
// functions (FieldProgram.h), lowered to LLVM and compiled once by
// mlir::ExecutionEngine, then run on FieldTensors as often as needed. It
// computes what FieldEvaluator computes (docs/verification.md), through
// generated loops instead of an interpreter; the --verify-equivalence pass
// uses it by default, the search uses the evaluator.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_VERIFY_FIELDJIT_H
#define MLSOPT_VERIFY_FIELDJIT_H

#include "mlsopt/Verify/Evaluator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <memory>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlsopt::verify {

class FieldJIT {
public:
  /// Builds, lowers and JIT-compiles the field programs of `functions`.
  /// Emits an error and fails where FieldEvaluator::create does (unsupported
  /// ops, programs that are not LAX where exp needs it), or when lowering or
  /// compilation fails.
  static mlir::FailureOr<std::unique_ptr<FieldJIT>>
  create(llvm::ArrayRef<mlir::func::FuncOp> functions);

  ~FieldJIT();

  /// Runs function `function` (an index into the list given to create) on
  /// `inputs`, with the random functions of `options`. Inputs without a q
  /// plane get the not-LAX marker as q-part, which is right for inputs no
  /// exp reads (FieldEvaluator::needsInputExponents). Emits an error on the
  /// function and fails when the inputs do not match its signature or the
  /// program takes exp of a value without a residue mod q.
  mlir::FailureOr<FieldEvaluation>
  evaluate(unsigned function, llvm::ArrayRef<FieldTensor> inputs,
           const FieldOptions &options);

private:
  struct Signature {
    mlir::func::FuncOp func;
    llvm::SmallVector<llvm::SmallVector<int64_t, 4>> inputs;
    llvm::SmallVector<llvm::SmallVector<int64_t, 4>> results;
  };
  FieldJIT() = default;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  llvm::SmallVector<Signature> signatures;
};

} // namespace mlsopt::verify

#endif // MLSOPT_VERIFY_FIELDJIT_H
