//===- Passes.h - mlsopt's whole-program passes -----------------*- C++ -*-===//

#ifndef MLSOPT_TRANSFORMS_PASSES_H
#define MLSOPT_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlsopt {

#define GEN_PASS_DECL
#include "mlsopt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlsopt/Transforms/Passes.h.inc"

} // namespace mlsopt

#endif // MLSOPT_TRANSFORMS_PASSES_H
