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

#include <cstddef>

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

/// Calls a packed entry point of a module that redirectAllocations changed.
/// Returns false where an allocation failed: the call stopped there, what it
/// had allocated is freed, and `failedBytes` is the size it asked for.
bool callWithCheckedAllocations(void (*entry)(void **), void **args,
                                size_t &failedBytes);

} // namespace mlsopt

#endif // MLSOPT_EXECUTIONENGINE_CHECKEDALLOCATION_H
