//===- FieldProgram.h - Tensor programs as finite-field loop nests -*- C++ -*-===//
//
// The JIT half of mlsopt's verifier builds, for a func.func of kernel ops and
// custom kernels, the finite-field program of docs/verification.md as MLIR:
// scf loops over memrefs of field elements (i128: the residue mod p in the
// low word, the q-part in the high word), one loop nest per op, custom
// kernels as loops over their grid and for-loop that cut tiles by imap and
// fmap and write them back by omap, exactly as the in-process evaluator and
// --convert-custom-kernel-to-loops do. Every scalar is a call to the runtime
// of FieldRuntime.h, which shares its arithmetic with the evaluator.
//
// FieldJIT.h lowers the program to LLVM and runs it.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_VERIFY_FIELDPROGRAM_H
#define MLSOPT_VERIFY_FIELDPROGRAM_H

#include "mlsopt/Verify/Evaluator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlsopt::verify {

/// The name of the field program of function `function`.
std::string getFieldProgramName(llvm::StringRef function);

/// Adds to `module` the field program of `func`:
///
///   func.func @__mlsopt_field_<name>(%context: !llvm.ptr,
///       %input0: memref<...xi128>, ..., %result0: memref<...xi128>, ...)
///
/// with the C interface, which reads the inputs and writes every result,
/// plus the declarations of the runtime functions it calls. `analysis` is
/// the FieldEvaluator of `func`, which has checked that the program is LAX
/// where it must be; matmuls whose q-parts it does not compute (no exp reads
/// them) compute mod p alone, like the evaluator. An op the builder does not
/// know is an error on it.
mlir::LogicalResult buildFieldProgram(mlir::ModuleOp module,
                                      mlir::func::FuncOp func,
                                      const FieldEvaluator &analysis);

} // namespace mlsopt::verify

#endif // MLSOPT_VERIFY_FIELDPROGRAM_H
