//===- Passes.h - mlsopt's whole-program passes -----------------*- C++ -*-===//

#ifndef MLSOPT_TRANSFORMS_PASSES_H
#define MLSOPT_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlsopt {

/// How --verify-equivalence runs the finite-field programs.
enum class VerifyEngine {
  /// Lowered to LLVM and JIT-compiled by mlir::ExecutionEngine.
  JIT,
  /// Interpreted by the in-process evaluator of lib/Verify.
  Evaluator,
};

#define GEN_PASS_DECL
#include "mlsopt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlsopt/Transforms/Passes.h.inc"

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_PASSES_H
