// REQUIRES: mlir-runner
// torch passes a scalar as a 0-d tensor, and torch-mlir's generics read it
// through a `tensor.extract` above the op: `x * alpha` with alpha a
// tensor<f32>, a tensor<1xf32> read at [0], and an element of a [2, 3]
// table at [1, 2]. The import reads each such tensor as an input of the
// generic through a constant map, so the first two are kernel ops (the
// search and the GPU take them); the table's element, at a non-zero index,
// stays a generic (a loop kernel on the GPU). The numbers are the same
// before and after the import.
// RUN: mlsopt-opt %s %lower_to_llvm \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | FileCheck %s --check-prefix=KERNEL

// x = [-1, 0, 0.5, 2], alpha = 3, beta = [0.5], table[1, 2] = -2:
// CHECK: {{\[\[}}-3,   0,   1.5,   6{{\]\]}}
// CHECK: {{\[\[}}-0.5,   0,   0.25,   1{{\]\]}}
// CHECK: {{\[\[}}2,   -0,   -1,   -4{{\]\]}}

// KERNEL-LABEL: func.func @scaled
// KERNEL-NOT: tensor.extract
// KERNEL: kernel.mul %{{.*}}, %arg1 : tensor<1x4xf32>, tensor<f32>
// KERNEL: kernel.mul %{{.*}}, %arg2 : tensor<1x4xf32>, tensor<1xf32>
// KERNEL: linalg.generic {indexing_maps = [#{{.*}}, #[[CONST:.*]], #{{.*}}]
// KERNEL-SAME: ins(%arg0, %arg3 : tensor<1x4xf32>, tensor<2x3xf32>)
// KERNEL: return

func.func @scaled(%x: tensor<1x4xf32>, %alpha: tensor<f32>, %beta: tensor<1xf32>, %table: tensor<2x3xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor.extract %alpha[] : tensor<f32>
  %b = tensor.extract %beta[%c0] : tensor<1xf32>
  %t = tensor.extract %table[%c1, %c2] : tensor<2x3xf32>
  %e = tensor.empty() : tensor<1x4xf32>
  %ra = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x4xf32>
  %rb = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x4xf32>
  %rt = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %t : f32
    linalg.yield %m : f32
  } -> tensor<1x4xf32>
  return %ra, %rb, %rt : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<1x4xf32>) {
  %m = bufferization.to_buffer %t : tensor<1x4xf32> to memref<1x4xf32>
  %u = memref.cast %m : memref<1x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[-1.0, 0.0, 0.5, 2.0]]> : tensor<1x4xf32>
  %alpha = arith.constant dense<3.0> : tensor<f32>
  %beta = arith.constant dense<[0.5]> : tensor<1xf32>
  %table = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, -2.0]]> : tensor<2x3xf32>
  %r:3 = call @scaled(%x, %alpha, %beta, %table) : (tensor<1x4xf32>, tensor<f32>, tensor<1xf32>, tensor<2x3xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>)
  call @print(%r#0) : (tensor<1x4xf32>) -> ()
  call @print(%r#1) : (tensor<1x4xf32>) -> ()
  call @print(%r#2) : (tensor<1x4xf32>) -> ()
  return
}
