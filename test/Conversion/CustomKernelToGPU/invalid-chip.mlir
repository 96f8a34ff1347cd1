// An unknown chip is a diagnostic, never an abort in an upstream pass.
// RUN: not mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_75 2>&1 | FileCheck %s
// RUN: not mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_100 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not mlsopt-opt %s --mlsopt-gpu-pipeline=chip=banana 2>&1 | FileCheck %s --check-prefix=BANANA

// CHECK: invalid-chip.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unknown GPU chip 'sm_75'; use one of sm_80, sm_86, sm_89, sm_90
// PIPELINE: error: unknown GPU chip 'sm_100'; use one of sm_80, sm_86, sm_89, sm_90
// PIPELINE-NOT: LLVM ERROR
// BANANA: error: unknown GPU chip 'banana'
module {
  func.func @f(%a: tensor<64xf16>) -> tensor<64xf16> {
    %e = kernel.exp %a : tensor<64xf16>
    return %e : tensor<64xf16>
  }
}
