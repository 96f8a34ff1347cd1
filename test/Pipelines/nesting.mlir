// Both pipelines hold module passes, so nested under another op they are
// refused with a message; adding their passes there would end the process
// with a fatal error.
// RUN: not mlsopt-opt %s --pass-pipeline='builtin.module(func.func(mlsopt-cpu-pipeline))' 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: error: 'mlsopt-cpu-pipeline' lowers a whole builtin.module and cannot be nested under 'func.func'
// CPU-NOT: LLVM ERROR
// RUN: not mlsopt-opt %s --pass-pipeline='builtin.module(func.func(mlsopt-gpu-pipeline{chip=sm_80}))' 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: error: 'mlsopt-gpu-pipeline' lowers a whole builtin.module and cannot be nested under 'func.func'
// GPU-NOT: LLVM ERROR

// Anchored on the module, or on any op (as the Python package runs
// pipelines), the same spelling runs.
// RUN: mlsopt-opt %s --pass-pipeline='builtin.module(mlsopt-cpu-pipeline)' | FileCheck %s --check-prefix=MODULE
// RUN: mlsopt-opt %s --pass-pipeline='any(mlsopt-cpu-pipeline)' | FileCheck %s --check-prefix=MODULE
// MODULE: llvm.func @f(
// MODULE: llvm.intr.exp

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kernel.exp %x : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
