// REQUIRES: mlir-runner
// A contraction whose payload scales each product by a constant (alpha * A B
// written in one generic, an einsum with its scale folded in) computes the
// same numbers before and after --convert-linalg-to-kernel, which makes it a
// matmul, a mul_scalar and, for an init that is not zeros, an add. Small
// integers and power-of-two scales keep every sum exact on both sides.
// RUN: mlsopt-opt %s %lower_to_llvm \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// The second run tests the conversion only if the programs were converted.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | FileCheck %s --check-prefix=KERNEL

// x = [[1, 2, 3], [4, 5, 6]], w = [[1, 0], [0, 1], [1, 1]]: x w = [[4, 5], [10, 11]].
// 2 x w, on zeros:
// CHECK: {{\[\[}}8,   10],
// CHECK-NEXT: [20,   22]]
// bias + x (0.5 w), bias = [[100, 200], [300, 400]]:
// CHECK: {{\[\[}}102,   202.5],
// CHECK-NEXT: [305,   405.5]]
// x w w (each product times w again, no constant): linalg on both sides.
// CHECK: {{\[\[}}4,   5],
// CHECK-NEXT: [10,   11]]

// KERNEL-LABEL: func.func @scaled(
// KERNEL-NOT: linalg.
// KERNEL: %[[M:.*]] = kernel.matmul
// KERNEL: %[[S:.*]] = kernel.mul_scalar %[[M]], 2.000000e+00
// KERNEL: return %[[S]]
// KERNEL-LABEL: func.func @scaled_onto_bias(
// KERNEL-SAME: %[[BIAS:[a-zA-Z0-9_]+]]: tensor<2x2xf32>)
// KERNEL-NOT: linalg.
// KERNEL: %[[M:.*]] = kernel.matmul
// KERNEL: %[[S:.*]] = kernel.mul_scalar %[[M]], 5.000000e-01
// KERNEL: %[[A:.*]] = kernel.add %[[BIAS]], %[[S]]
// KERNEL: return %[[A]]
// KERNEL-LABEL: func.func @no_constant(
// KERNEL-NOT: kernel.
// KERNEL: linalg.generic

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

func.func @scaled(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %m2 = arith.mulf %m, %two : f32
    %r = arith.addf %o, %m2 : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func @scaled_onto_bias(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %bias: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%bias : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %hq = arith.mulf %half, %q : f32
    %m = arith.mulf %p, %hq : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func @no_constant(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %m2 = arith.mulf %m, %q : f32
    %r = arith.addf %o, %m2 : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<2x2xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x2xf32> to memref<2x2xf32>
  %u = memref.cast %m : memref<2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %w = arith.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %bias = arith.constant dense<[[100.0, 200.0], [300.0, 400.0]]> : tensor<2x2xf32>
  %s = call @scaled(%x, %w) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  call @print(%s) : (tensor<2x2xf32>) -> ()
  %b = call @scaled_onto_bias(%x, %w, %bias) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  call @print(%b) : (tensor<2x2xf32>) -> ()
  %n = call @no_constant(%x, %w) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  call @print(%n) : (tensor<2x2xf32>) -> ()
  return
}
