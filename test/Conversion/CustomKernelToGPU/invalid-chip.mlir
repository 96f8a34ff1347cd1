// An unknown chip is a diagnostic, never an abort in an upstream pass.
// RUN: not mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_75 2>&1 | FileCheck %s
// RUN: not mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_100 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not mlsopt-opt %s --mlsopt-gpu-pipeline=chip=banana 2>&1 | FileCheck %s --check-prefix=BANANA

// CHECK: invalid-chip.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unknown GPU chip 'sm_75'; use one of sm_80, sm_86, sm_89, sm_90
// PIPELINE: error: unknown GPU chip 'sm_100'; use one of sm_80, sm_86, sm_89, sm_90
// PIPELINE-NOT: LLVM ERROR
// BANANA: error: unknown GPU chip 'banana'
// A module lowered for one chip, run through the pipeline for another, is
// an error: its PTX would stay the first chip's. Lowering it again for the
// same chip leaves it as it is.
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | not mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 2>&1 | FileCheck %s --check-prefix=RELOWERED
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx | FileCheck %s --check-prefix=SAME
// RELOWERED: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: 'gpu.binary' is lowered for sm_90 already; lowering the module for sm_80 would leave its code for sm_90: lower the kernel-level program for sm_80 instead
// SAME: .target sm_90
module {
  func.func @f(%a: tensor<64xf16>) -> tensor<64xf16> {
    %e = kernel.exp %a : tensor<64xf16>
    return %e : tensor<64xf16>
  }
}
