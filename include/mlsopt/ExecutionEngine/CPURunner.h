//===- CPURunner.h - Run lowered μGraphs in-process -------------*- C++ -*-===//
//
// The library form of `mlsopt-opt --mlsopt-cpu-pipeline | mlir-runner`: lower
// a module for the CPU, JIT-compile it with mlir::ExecutionEngine and call its
// functions on host buffers. Tests, the equivalence checker and the Python
// package run programs this way without spawning tools.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_EXECUTIONENGINE_CPURUNNER_H
#define MLSOPT_EXECUTIONENGINE_CPURUNNER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlsopt {

/// A dense row-major f32 tensor in host memory. Functions on f16 or bf16
/// tensors take and return these too: see CPURunner::create.
struct HostTensor {
  llvm::SmallVector<int64_t> shape;
  std::vector<float> data;

  static HostTensor zeros(llvm::ArrayRef<int64_t> shape);
};

class CPURunner {
public:
  ~CPURunner();

  /// Lowers a copy of `module` with the CPU pipeline and JIT-compiles it, so
  /// that each of `functions` can be run. Functions must take and return
  /// statically shaped f16, bf16 or f32 tensors, and may take boolean (i1)
  /// masks, passed as f32 buffers that are true where nonzero, and
  /// integers, passed as f32 buffers of their values; they may return those
  /// too (an argmax's indices), as f32 buffers of their values, exact up to
  /// 2^24 in magnitude (0 and 1 for a mask). Host buffers are f32
  /// whatever the function's types: inputs of an f16 or bf16 function are
  /// rounded to its type (to nearest even) before it runs, and its results
  /// widened back, so it computes in the precision it will have on a GPU.
  /// Reports problems as diagnostics on the module and returns failure.
  static llvm::FailureOr<std::unique_ptr<CPURunner>>
  create(mlir::ModuleOp module, llvm::ArrayRef<llvm::StringRef> functions);

  /// Runs `function` on `inputs` (shapes must match its signature) and
  /// returns its results. Fails on a signature mismatch, and where the host
  /// runs out of memory during the call (what it allocated is freed), saying
  /// why in `error` if given.
  llvm::FailureOr<llvm::SmallVector<HostTensor>>
  run(llvm::StringRef function, llvm::ArrayRef<HostTensor> inputs,
      std::string *error = nullptr) const;

private:
  struct Signature {
    llvm::SmallVector<llvm::SmallVector<int64_t>> inputs, results;
  };
  CPURunner() = default;

  std::unique_ptr<mlir::ExecutionEngine> engine;
  llvm::StringMap<Signature> signatures;
};

} // namespace mlsopt

#endif // MLSOPT_EXECUTIONENGINE_CPURUNNER_H
