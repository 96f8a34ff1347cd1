// A cuda-path without libdevice is an error, not a silent fall back on
// another toolkit (or on none, whose unresolved math calls ptxas rejects).
// RUN: not mlsopt-opt %s --mlsopt-gpu-pipeline="cuda-path=%t.missing" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mlsopt-opt %s --pass-pipeline="builtin.module(mlsopt-gpu-pipeline{cuda-path=%t.missing})" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: mlsopt-gpu-pipeline: cuda-path '{{.*}}.missing' has no nvvm/libdevice/libdevice.10.bc; give the root of a CUDA toolkit

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kernel.exp %x : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
