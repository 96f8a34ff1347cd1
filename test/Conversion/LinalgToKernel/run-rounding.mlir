// REQUIRES: mlir-runner
// floor, ceil and torch.round (math.roundeven: ties to even) as torch-mlir
// writes them compute the same numbers before and after
// --convert-linalg-to-kernel, ties and negative values included, and so does
// a fake quantization, round(x * 4) clamped to [-8, 7] and scaled back.
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

// Inputs: -2.5 -1.5 -1.2 -0.5 -0.2 0 0.3 0.5 1.5 2.5 2.7 100.25.
// floor:
// CHECK: {{\[\[}}-3,   -2,   -2,   -1,   -1,   0,   0,   0,   1,   2,   2,   100{{\]\]}}
// ceil:
// CHECK: {{\[\[}}-2,   -1,   -1,   -0,   -0,   0,   1,   1,   2,   3,   3,   101{{\]\]}}
// round, ties to even:
// CHECK: {{\[\[}}-2,   -2,   -1,   -0,   -0,   0,   0,   0,   2,   2,   3,   100{{\]\]}}
// fake quantization (steps of 0.25 in [-2, 1.75]):
// CHECK: {{\[\[}}-2,   -1.5,   -1.25,   -0.5,   -0.25,   0,   0.25,   0.5,   1.5,   1.75,   1.75,   1.75{{\]\]}}

// KERNEL-LABEL: func.func @rounding
// KERNEL-NOT: linalg.
// KERNEL: %[[F:.*]] = kernel.floor %{{.*}} : tensor<1x12xf32>
// KERNEL: %[[C:.*]] = kernel.ceil %{{.*}} : tensor<1x12xf32>
// KERNEL: %[[R:.*]] = kernel.round %{{.*}} : tensor<1x12xf32>
// KERNEL: %[[S:.*]] = kernel.mul_scalar %{{.*}}, 4.000000e+00
// KERNEL: %[[Q:.*]] = kernel.round %[[S]]
// KERNEL: return %[[F]], %[[C]], %[[R]]

#id = affine_map<(i, j) -> (i, j)>
func.func @rounding(%x: tensor<1x12xf32>) -> (tensor<1x12xf32>, tensor<1x12xf32>, tensor<1x12xf32>, tensor<1x12xf32>) {
  %e = tensor.empty() : tensor<1x12xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x12xf32>) outs(%e : tensor<1x12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.floor %a : f32
    linalg.yield %r : f32
  } -> tensor<1x12xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x12xf32>) outs(%e : tensor<1x12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.ceil %a : f32
    linalg.yield %r : f32
  } -> tensor<1x12xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x12xf32>) outs(%e : tensor<1x12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.roundeven %a : f32
    linalg.yield %v : f32
  } -> tensor<1x12xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x12xf32>) outs(%e : tensor<1x12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %four = arith.constant 4.0 : f32
    %quarter = arith.constant 0.25 : f32
    %lo = arith.constant -8.0 : f32
    %hi = arith.constant 7.0 : f32
    %s = arith.mulf %a, %four : f32
    %v = math.roundeven %s : f32
    %l = arith.maximumf %v, %lo : f32
    %h = arith.minimumf %l, %hi : f32
    %d = arith.mulf %h, %quarter : f32
    linalg.yield %d : f32
  } -> tensor<1x12xf32>
  return %f, %c, %r, %q : tensor<1x12xf32>, tensor<1x12xf32>, tensor<1x12xf32>, tensor<1x12xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<1x12xf32>) {
  %m = bufferization.to_buffer %t : tensor<1x12xf32> to memref<1x12xf32>
  %u = memref.cast %m : memref<1x12xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[-2.5, -1.5, -1.2, -0.5, -0.2, 0.0, 0.3, 0.5, 1.5, 2.5, 2.7, 100.25]]> : tensor<1x12xf32>
  %r:4 = call @rounding(%x) : (tensor<1x12xf32>) -> (tensor<1x12xf32>, tensor<1x12xf32>, tensor<1x12xf32>, tensor<1x12xf32>)
  call @print(%r#0) : (tensor<1x12xf32>) -> ()
  call @print(%r#1) : (tensor<1x12xf32>) -> ()
  call @print(%r#2) : (tensor<1x12xf32>) -> ()
  call @print(%r#3) : (tensor<1x12xf32>) -> ()
  return
}
