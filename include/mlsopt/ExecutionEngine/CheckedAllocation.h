//===- CheckedAllocation.h - JIT allocations that fail cleanly --*- C++ -*-===//
//
// MLIR's LLVM lowering turns memref.alloc into a call of malloc whose result
// the code writes through unchecked: on a host out of memory (a process
// limit, or tensors that each fit but not together) a JIT-compiled call
// would crash its caller, the Python interpreter included. CPURunner and
// FieldJIT redirect their lowered modules' malloc and free to versions that
// remember what a call has allocated and, when malloc fails, free it and
// return to the caller, which reports an error.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_EXECUTIONENGINE_CHECKEDALLOCATION_H
#define MLSOPT_EXECUTIONENGINE_CHECKEDALLOCATION_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlsopt {

/// Makes the calls of malloc and free in `module` (lowered to the LLVM
/// dialect) call the checked versions, whose symbols
/// registerCheckedAllocations defines.
void redirectAllocations(mlir::ModuleOp module);

/// Defines the checked versions' symbols in `engine`, before its first
/// lookup.
void registerCheckedAllocations(mlir::ExecutionEngine &engine);

/// ExecutionEngine::invokePacked for a module that redirectAllocations
/// changed: where an allocation fails, the call stops there, what it had
/// allocated is freed, and the error says how many bytes it asked for.
llvm::Error invokePackedCheckingAllocations(mlir::ExecutionEngine &engine,
                                            llvm::StringRef name,
                                            llvm::MutableArrayRef<void *> args);

} // namespace mlsopt

#endif // MLSOPT_EXECUTIONENGINE_CHECKEDALLOCATION_H
