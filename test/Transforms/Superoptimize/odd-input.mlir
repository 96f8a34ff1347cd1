// Input mlsopt does not compute on is left as it was or refused with an
// `error:` and exit code 1; never a crash.

// Linalg that the kernel dialect cannot hold (dynamic shapes, integer and
// f64 elements, zero-sized dims) stays linalg through import and search.
// RUN: mlsopt-opt %s --split-input-file --convert-linalg-to-kernel --superoptimize=timeout=2 2>/dev/null | FileCheck %s
// RUN: mlsopt-opt %s --split-input-file --convert-linalg-to-kernel --superoptimize=timeout=2 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT: linalg.matmul
func.func @dynamic(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>, %init: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x8xf32>) outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %m : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @integer
// CHECK-NEXT: linalg.matmul
func.func @integer(%a: tensor<4x16xi32>, %b: tensor<16x8xi32>, %init: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %m = linalg.matmul ins(%a, %b : tensor<4x16xi32>, tensor<16x8xi32>) outs(%init : tensor<4x8xi32>) -> tensor<4x8xi32>
  return %m : tensor<4x8xi32>
}

// -----

// CHECK-LABEL: func.func @f64
// CHECK-NEXT: linalg.matmul
func.func @f64(%a: tensor<4x16xf64>, %b: tensor<16x8xf64>, %init: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %m = linalg.matmul ins(%a, %b : tensor<4x16xf64>, tensor<16x8xf64>) outs(%init : tensor<4x8xf64>) -> tensor<4x8xf64>
  return %m : tensor<4x8xf64>
}

// -----

// CHECK-LABEL: func.func @zero
// CHECK-NEXT: linalg.matmul
func.func @zero(%a: tensor<0x16xf32>, %b: tensor<16x8xf32>, %init: tensor<0x8xf32>) -> tensor<0x8xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<0x16xf32>, tensor<16x8xf32>) outs(%init : tensor<0x8xf32>) -> tensor<0x8xf32>
  return %m : tensor<0x8xf32>
}

// -----

// NaN and infinite constants have no image in the finite field the result
// would be proved with: the subprogram is kept, with a remark.
// REMARK: remark: superoptimize: kept the subprogram of 2 kernel ops {{.*}}which the finite-field verifier cannot evaluate
// CHECK-LABEL: func.func @nan
// CHECK-NEXT: kernel.mul_scalar %{{.*}}, 0x7FF8000000000000
// CHECK-NEXT: kernel.exp
// CHECK-NOT: kernel.custom
func.func @nan(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = kernel.mul_scalar %x, 0x7FF8000000000000 : tensor<8x16xf32>
  %e = kernel.exp %a : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// -----

// REMARK: remark: superoptimize: kept the subprogram of 2 kernel ops {{.*}}which the finite-field verifier cannot evaluate
// CHECK-LABEL: func.func @inf
// CHECK-NEXT: kernel.mul_scalar %{{.*}}, 0x7FF0000000000000
// CHECK-NEXT: kernel.exp
func.func @inf(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = kernel.mul_scalar %x, 0x7FF0000000000000 : tensor<8x16xf32>
  %e = kernel.exp %a : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// -----

// An empty module.
// CHECK: module {
// CHECK-NEXT: }
module {
}

// Kernel ops on what mlsopt does not compute on are verifier errors.
// RUN: not mlsopt-opt %S/Inputs/odd-kernel-types.mlir --split-input-file --superoptimize=timeout=2 2>&1 | FileCheck %s --check-prefix=ERROR
// ERROR: error: tensor 'tensor<0x8xf32>' has a zero-sized dim; mlsopt computes on non-empty tensors
// ERROR: error: element type 'i32' is not supported; use f16, bf16 or f32
// ERROR: error: expected a statically shaped tensor, got 'tensor<?x8xf32>'
