// REQUIRES: mlir-runner
// The logistic function spelled out: through tanh, 0.5 * tanh(x / 2) + 0.5
// (XLA's expansion, as JAX programs reach linalg), and through exp as
// separate tensor ops, 1 / (1 + exp(-x)); silu as x times the tanh form.
// The import raises each to one kernel op (a gated MLP with a tanh sigmoid
// was cut into two kernels), and the numbers are the spelled-out ones
// except where those cancel: at -30 the tanh form computes 0.5 - 0.5 = 0,
// the raised sigmoid 9.4e-14 (and at -5 they are an ulp apart). A near miss, 0.5 * tanh(x) + 0.5, which is
// sigmoid(2x) of no value the program has, stays tanh.
// RUN: mlsopt-opt %s %lower_to_llvm \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// The second run tests the raise only if the programs were raised.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | FileCheck %s --check-prefix=KERNEL

// Inputs: -30 -5 -1 -0.5 0 0.5 1 5 9.5 30.
// sigmoid through tanh, through exp, silu through tanh, sigmoid(2x):
// CHECK: {{\[\[}}{{0|9.35762e-14}},   0.0066928{{[56]}},   0.268941,   0.377541,   0.5,   0.622459,   0.731059,   0.993307,   0.999925,   1{{\]\]}}
// CHECK: {{\[\[}}9.35762e-14,   0.00669285,   0.268941,   0.377541,   0.5,   0.622459,   0.731059,   0.993307,   0.999925,   1{{\]\]}}
// CHECK: {{\[\[}}{{-0|-2.80729e-12}},   -0.0334643,   -0.268941,   -0.18877,   0,   0.31123,   0.731059,   4.96654,   9.49929,   30{{\]\]}}
// CHECK: {{\[\[}}0,   4.53889e-05,   0.119203,   0.268941,   0.5,   0.731059,   0.880797,   0.999955,   1,   1{{\]\]}}

#id = affine_map<(i, j) -> (i, j)>

// KERNEL-LABEL: func.func @logistic
// KERNEL-SAME: (%[[X:.*]]: tensor<1x10xf32>)
// KERNEL-NOT: linalg.
// KERNEL: %[[A:.*]] = kernel.sigmoid %[[X]]
// KERNEL: %[[B:.*]] = kernel.sigmoid %[[X]]
// KERNEL: %[[C:.*]] = kernel.silu %[[X]]
// KERNEL: %[[H:.*]] = kernel.tanh %[[X]]
// KERNEL: %[[S:.*]] = kernel.mul_scalar %[[H]], 5.000000e-01
// KERNEL: %[[D:.*]] = kernel.add_scalar %[[S]], 5.000000e-01
// KERNEL: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @logistic(%x: tensor<1x10xf32>) -> (tensor<1x10xf32>, tensor<1x10xf32>, tensor<1x10xf32>, tensor<1x10xf32>) {
  %e = tensor.empty() : tensor<1x10xf32>
  %tanh_form = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x10xf32>) outs(%e : tensor<1x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %h = arith.constant 0.5 : f32
    %t0 = arith.mulf %a, %h : f32
    %t1 = math.tanh %t0 : f32
    %t2 = arith.mulf %t1, %h : f32
    %s = arith.addf %t2, %h : f32
    linalg.yield %s : f32
  } -> tensor<1x10xf32>
  // 1 / (1 + exp(-x)), one torch op per generic.
  %n = linalg.negf ins(%x : tensor<1x10xf32>) outs(%e : tensor<1x10xf32>) -> tensor<1x10xf32>
  %ex = linalg.exp ins(%n : tensor<1x10xf32>) outs(%e : tensor<1x10xf32>) -> tensor<1x10xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%ex : tensor<1x10xf32>) outs(%e : tensor<1x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.addf %a, %one : f32
    linalg.yield %r : f32
  } -> tensor<1x10xf32>
  %exp_form = linalg.reciprocal ins(%p : tensor<1x10xf32>) outs(%e : tensor<1x10xf32>) -> tensor<1x10xf32>
  %silu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x10xf32>) outs(%e : tensor<1x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %h = arith.constant 0.5 : f32
    %t0 = arith.mulf %a, %h : f32
    %t1 = math.tanh %t0 : f32
    %t2 = arith.mulf %h, %t1 : f32
    %s = arith.addf %h, %t2 : f32
    %r = arith.mulf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x10xf32>
  %near = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x10xf32>) outs(%e : tensor<1x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %h = arith.constant 0.5 : f32
    %t1 = math.tanh %a : f32
    %t2 = arith.mulf %t1, %h : f32
    %s = arith.addf %t2, %h : f32
    linalg.yield %s : f32
  } -> tensor<1x10xf32>
  return %tanh_form, %exp_form, %silu, %near : tensor<1x10xf32>, tensor<1x10xf32>, tensor<1x10xf32>, tensor<1x10xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<1x10xf32>) {
  %m = bufferization.to_buffer %t : tensor<1x10xf32> to memref<1x10xf32>
  %u = memref.cast %m : memref<1x10xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[-30.0, -5.0, -1.0, -0.5, 0.0, 0.5, 1.0, 5.0, 9.5, 30.0]]> : tensor<1x10xf32>
  %r:4 = call @logistic(%x) : (tensor<1x10xf32>) -> (tensor<1x10xf32>, tensor<1x10xf32>, tensor<1x10xf32>, tensor<1x10xf32>)
  call @print(%r#0) : (tensor<1x10xf32>) -> ()
  call @print(%r#1) : (tensor<1x10xf32>) -> ()
  call @print(%r#2) : (tensor<1x10xf32>) -> ()
  call @print(%r#3) : (tensor<1x10xf32>) -> ()
  return
}
