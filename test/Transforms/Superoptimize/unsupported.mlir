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

// -----

// Kernel ops in a loop are left as they are, with a remark that says so
// (subprograms are cut from a function's top-level ops).
// RUN: mlsopt-opt %s --superoptimize=timeout=1 --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOP
// LOOP: remark: superoptimize: 2 kernel ops inside 'scf.for' are not searched
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK-NEXT: kernel.matmul
// CHECK-NEXT: kernel.tanh
func.func @loop(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> (tensor<8x8xf32>) {
    %m = kernel.matmul %h, %w : tensor<8x8xf32>, tensor<8x8xf32>
    %t = kernel.tanh %m : tensor<8x8xf32>
    scf.yield %t : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
