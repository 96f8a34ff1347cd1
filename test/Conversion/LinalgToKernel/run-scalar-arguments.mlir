// REQUIRES: mlir-runner
// A function that takes scalars (`%alpha: f32`, a count `%n: i32`) and reads
// them in generics' payloads, directly or through scalar arithmetic above
// the ops (`1 / alpha`, `sitofp n`), or fills a tensor with one. The import
// moves the arithmetic into the payloads and reads each scalar argument as
// the 0-d tensor `tensor.from_elements`, one per argument, shared by its
// readers: `x * (1 / alpha) + beta` and `x / n` are kernel ops, the fill a
// broadcast of beta's tensor, and `x + splat(beta)` the add of that tensor.
// An index argument is the 0-d i64 tensor of its cast to i64
// (ScalarArguments.h), whose element the payload's cast to i64 reads
// directly: `x + sitofp(i)` is a kernel op too. The numbers are the same
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

// x = [-1, 0, 0.5, 2], alpha = 4, beta = 0.5, n = 2, i = 3:
// CHECK: {{\[\[}}0.25,   0.5,   0.625,   1{{\]\]}}
// CHECK: {{\[\[}}0.5,   0.5,   0.5,   0.5{{\]\]}}
// CHECK: {{\[\[}}-0.5,   0,   0.25,   1{{\]\]}}
// CHECK: {{\[\[}}2,   3,   3.5,   5{{\]\]}}
// CHECK: {{\[\[}}-0.5,   0.5,   1,   2.5{{\]\]}}

// KERNEL-LABEL: func.func @scalars
// KERNEL-DAG: %[[ALPHA:.*]] = tensor.from_elements %arg1 : tensor<f32>
// KERNEL-DAG: %[[BETA:.*]] = tensor.from_elements %arg2 : tensor<f32>
// KERNEL-DAG: %[[N:.*]] = tensor.from_elements %arg3 : tensor<i32>
// KERNEL-DAG: %[[II:.*]] = arith.index_cast %arg4 : index to i64
// KERNEL-DAG: %[[I:.*]] = tensor.from_elements %[[II]] : tensor<i64>
// KERNEL-NOT: tensor.from_elements
// KERNEL: kernel.div %{{.*}}, %[[ALPHA]] : tensor<f32>, tensor<f32>
// KERNEL: kernel.add %{{.*}}, %[[BETA]] : tensor<1x4xf32>, tensor<f32>
// KERNEL: linalg.broadcast ins(%[[BETA]] : tensor<f32>)
// KERNEL: kernel.int_to_float %[[N]] : tensor<i32> to tensor<f32>
// KERNEL: %[[IF:.*]] = kernel.int_to_float %[[I]] : tensor<i64> to tensor<f32>
// KERNEL: kernel.add %arg0, %[[IF]] : tensor<1x4xf32>, tensor<f32>
// KERNEL-NOT: tensor.splat
// KERNEL: kernel.add %arg0, %[[BETA]] : tensor<1x4xf32>, tensor<f32>
// KERNEL: return

func.func @scalars(%x: tensor<1x4xf32>, %alpha: f32, %beta: f32, %n: i32, %i: index) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %one = arith.constant 1.0 : f32
  %inv = arith.divf %one, %alpha : f32
  %nf = arith.sitofp %n : i32 to f32
  %ii = arith.index_cast %i : index to i64
  %if = arith.sitofp %ii : i64 to f32
  %e = tensor.empty() : tensor<1x4xf32>
  %r0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %inv : f32
    %a = arith.addf %m, %beta : f32
    linalg.yield %a : f32
  } -> tensor<1x4xf32>
  %r1 = linalg.fill ins(%beta : f32) outs(%e : tensor<1x4xf32>) -> tensor<1x4xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %nf : f32
    linalg.yield %d : f32
  } -> tensor<1x4xf32>
  %r3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = arith.addf %v, %if : f32
    linalg.yield %a : f32
  } -> tensor<1x4xf32>
  %sp = tensor.splat %beta : tensor<1x4xf32>
  %r4 = linalg.add ins(%x, %sp : tensor<1x4xf32>, tensor<1x4xf32>) outs(%e : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
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
  %alpha = arith.constant 4.0 : f32
  %beta = arith.constant 0.5 : f32
  %n = arith.constant 2 : i32
  %i = arith.constant 3 : index
  %r:5 = call @scalars(%x, %alpha, %beta, %n, %i) : (tensor<1x4xf32>, f32, f32, i32, index) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>)
  call @print(%r#0) : (tensor<1x4xf32>) -> ()
  call @print(%r#1) : (tensor<1x4xf32>) -> ()
  call @print(%r#2) : (tensor<1x4xf32>) -> ()
  call @print(%r#3) : (tensor<1x4xf32>) -> ()
  call @print(%r#4) : (tensor<1x4xf32>) -> ()
  return
}
