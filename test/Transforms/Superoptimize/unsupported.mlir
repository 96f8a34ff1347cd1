// What the search cannot take is left as it was, without an error: empty
// modules, declarations, ops of other dialects, functions without kernel
// ops, and existing custom kernels.
// RUN: mlsopt-opt %s --superoptimize=timeout=1 --split-input-file | FileCheck %s

// CHECK: module {
// CHECK-NEXT: }
module {
}

// -----

// CHECK-LABEL: func.func private @declared
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>

// -----

// CHECK-LABEL: func.func @other
// CHECK: arith.addf
func.func @other(%a: f32, %b: f32) -> f32 {
  %c = arith.addf %a, %b : f32
  return %c : f32
}

// -----

// An existing μGraph, linked to its reference, is what an earlier run
// produced: left alone.
// CHECK-LABEL: func.func @linked
// CHECK: kernel.exp
func.func @ref(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kernel.exp %x : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @linked(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %e = kernel.exp %x : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
