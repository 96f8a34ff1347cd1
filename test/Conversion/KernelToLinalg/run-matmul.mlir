// RUN: mlsopt-opt %s --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// REQUIRES: mlir-runner

// Runs the lowered matmuls on the CPU. The expected numbers come from numpy
// (expected_values.py in this directory); each pattern accepts the digits
// that rounding in the last place can change.

func.func @matmul_f32(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %c = kernel.matmul %a, %b : tensor<3x4xf32>, tensor<4x5xf32>
  return %c : tensor<3x5xf32>
}

// Products accumulate in f32 and round to f16 once.
func.func @matmul_f16(%a: tensor<3x4xf16>, %b: tensor<4x5xf16>) -> tensor<3x5xf16> {
  %c = kernel.matmul %a, %b : tensor<3x4xf16>, tensor<4x5xf16>
  return %c : tensor<3x5xf16>
}

// linalg.batch_matmul.
func.func @matmul_batch_f32(%a: tensor<2x2x3xf32>, %b: tensor<2x3x2xf32>) -> tensor<2x2x2xf32> {
  %c = kernel.matmul %a, %b : tensor<2x2x3xf32>, tensor<2x3x2xf32>
  return %c : tensor<2x2x2xf32>
}

// Rank 4: a linalg.generic, accumulating the f16 products in f32.
func.func @matmul_rank4_f16(%a: tensor<2x1x2x3xf16>, %b: tensor<2x1x3x2xf16>) -> tensor<2x1x2x2xf16> {
  %c = kernel.matmul %a, %b : tensor<2x1x2x3xf16>, tensor<2x1x3x2xf16>
  return %c : tensor<2x1x2x2xf16>
}

//===----------------------------------------------------------------------===//
// Inputs and printing
//===----------------------------------------------------------------------===//

#id2 = affine_map<(i, j) -> (i, j)>
#id3 = affine_map<(i, j, k) -> (i, j, k)>

// x[i, j] = sin(1.37 i + 0.71 j + phase), in f32: both signs, and a different
// phase makes each input different.
func.func @input2d(%rows: index, %cols: index, %phase: f32) -> tensor<?x?xf32> {
  %empty = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %x = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%empty : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %ci = arith.constant 1.37 : f32
    %cj = arith.constant 0.71 : f32
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %ji = arith.index_cast %j : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %fj = arith.sitofp %ji : i32 to f32
    %ti = arith.mulf %fi, %ci : f32
    %tj = arith.mulf %fj, %cj : f32
    %t = arith.addf %ti, %tj : f32
    %tp = arith.addf %t, %phase : f32
    %v = math.sin %tp : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}

// x[i, j, k] = sin(1.37 i + 0.71 j + 0.29 k + phase), in f32.
func.func @input3d(%d0: index, %d1: index, %d2: index, %phase: f32) -> tensor<?x?x?xf32> {
  %empty = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %x = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%empty : tensor<?x?x?xf32>) {
  ^bb0(%out: f32):
    %ci = arith.constant 1.37 : f32
    %cj = arith.constant 0.71 : f32
    %ck = arith.constant 0.29 : f32
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %ii = arith.index_cast %i : index to i32
    %ji = arith.index_cast %j : index to i32
    %ki = arith.index_cast %k : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %fj = arith.sitofp %ji : i32 to f32
    %fk = arith.sitofp %ki : i32 to f32
    %ti = arith.mulf %fi, %ci : f32
    %tj = arith.mulf %fj, %cj : f32
    %tk = arith.mulf %fk, %ck : f32
    %t = arith.addf %ti, %tj : f32
    %t2 = arith.addf %t, %tk : f32
    %tp = arith.addf %t2, %phase : f32
    %v = math.sin %tp : f32
    linalg.yield %v : f32
  } -> tensor<?x?x?xf32>
  return %x : tensor<?x?x?xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print3d(%t: tensor<?x?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?x?xf32> to memref<?x?x?xf32>
  %u = memref.cast %m : memref<?x?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %p0 = arith.constant 0.25 : f32
  %p1 = arith.constant 1.0 : f32

  %a0 = call @input2d(%c3, %c4, %p0) : (index, index, f32) -> tensor<?x?xf32>
  %a = tensor.cast %a0 : tensor<?x?xf32> to tensor<3x4xf32>
  %b0 = call @input2d(%c4, %c5, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %b = tensor.cast %b0 : tensor<?x?xf32> to tensor<4x5xf32>

  %mm = call @matmul_f32(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %mm0 = tensor.cast %mm : tensor<3x5xf32> to tensor<?x?xf32>
  // matmul_f32:
  // CHECK: rank = 2 offset = 0 sizes = [3, 5] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{-0\.4174[0-9]*}}, {{-0\.9739[0-9]*}}, {{-1\.0597[0-9]*}}, {{-0\.6334[0-9]*}}, {{0\.099(00[0-9]*)?|0\.09901[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{1\.816[0-9]*}}, {{1\.1912[0-9]*}}, {{-0\.00935[0-9]*|-0\.00936[0-9]*}}, {{-1\.205[0-9]*}}, {{-1\.818[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{1\.1418[0-9]*}}, {{1\.449(0[0-9]*)?}}, {{1\.056(0[0-9]*)?}}, {{0\.15259[0-9]*|0\.1526(0[0-9]*)?}}, {{-0\.8245[0-9]*}}]
  call @print(%mm0) : (tensor<?x?xf32>) -> ()

  %ahe = tensor.empty() : tensor<3x4xf16>
  %ah = linalg.map { arith.truncf } ins(%a : tensor<3x4xf32>) outs(%ahe : tensor<3x4xf16>)
  %bhe = tensor.empty() : tensor<4x5xf16>
  %bh = linalg.map { arith.truncf } ins(%b : tensor<4x5xf32>) outs(%bhe : tensor<4x5xf16>)
  %mh = call @matmul_f16(%ah, %bh) : (tensor<3x4xf16>, tensor<4x5xf16>) -> tensor<3x5xf16>
  %mh32e = tensor.empty() : tensor<3x5xf32>
  %mh32 = linalg.map { arith.extf } ins(%mh : tensor<3x5xf16>) outs(%mh32e : tensor<3x5xf32>)
  %mh0 = tensor.cast %mh32 : tensor<3x5xf32> to tensor<?x?xf32>
  // matmul_f16:
  // CHECK: rank = 2 offset = 0 sizes = [3, 5] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{-0\.417236}}, {{-0\.974121}}, {{-1\.05957}}, {{-0\.633789}}, {{0\.0986938}}]
  // CHECK-NEXT: {{\[}}{{1\.81641}}, {{1\.19141}}, {{-0\.00935364}}, {{-1\.20605}}, {{-1\.81934}}]
  // CHECK-NEXT: {{\[}}{{1\.1416}}, {{1\.44922}}, {{1\.05566}}, {{0\.15271}}, {{-0\.824707}}]
  call @print(%mh0) : (tensor<?x?xf32>) -> ()

  %x0 = call @input3d(%c2, %c2, %c3, %p0) : (index, index, index, f32) -> tensor<?x?x?xf32>
  %x = tensor.cast %x0 : tensor<?x?x?xf32> to tensor<2x2x3xf32>
  %y0 = call @input3d(%c2, %c3, %c2, %p1) : (index, index, index, f32) -> tensor<?x?x?xf32>
  %y = tensor.cast %y0 : tensor<?x?x?xf32> to tensor<2x3x2xf32>
  %mb = call @matmul_batch_f32(%x, %y) : (tensor<2x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  %mb0 = tensor.cast %mb : tensor<2x2x2xf32> to tensor<?x?x?xf32>
  // matmul_batch_f32:
  // CHECK: rank = 3 offset = 0 sizes = [2, 2, 2] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{1\.2048[0-9]*}}, {{1\.0139[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{2\.289[0-9]*}}, {{2\.0681[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.26621[0-9]*}}, {{-0\.403(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.3978[0-9]*}}, {{0\.03802[0-9]*|0\.03803[0-9]*}}]
  call @print3d(%mb0) : (tensor<?x?x?xf32>) -> ()

  // The rank-4 operands are the batch operands with a unit dim inserted.
  %xhe = tensor.empty() : tensor<2x2x3xf16>
  %xh = linalg.map { arith.truncf } ins(%x : tensor<2x2x3xf32>) outs(%xhe : tensor<2x2x3xf16>)
  %yhe = tensor.empty() : tensor<2x3x2xf16>
  %yh = linalg.map { arith.truncf } ins(%y : tensor<2x3x2xf32>) outs(%yhe : tensor<2x3x2xf16>)
  %x4 = tensor.expand_shape %xh [[0, 1], [2], [3]] output_shape [2, 1, 2, 3]
      : tensor<2x2x3xf16> into tensor<2x1x2x3xf16>
  %y4 = tensor.expand_shape %yh [[0, 1], [2], [3]] output_shape [2, 1, 3, 2]
      : tensor<2x3x2xf16> into tensor<2x1x3x2xf16>
  %m4 = call @matmul_rank4_f16(%x4, %y4) : (tensor<2x1x2x3xf16>, tensor<2x1x3x2xf16>) -> tensor<2x1x2x2xf16>
  %m3 = tensor.collapse_shape %m4 [[0, 1], [2], [3]] : tensor<2x1x2x2xf16> into tensor<2x2x2xf16>
  %m32e = tensor.empty() : tensor<2x2x2xf32>
  %m32 = linalg.map { arith.extf } ins(%m3 : tensor<2x2x2xf16>) outs(%m32e : tensor<2x2x2xf32>)
  %m30 = tensor.cast %m32 : tensor<2x2x2xf32> to tensor<?x?x?xf32>
  // matmul_rank4_f16:
  // CHECK: rank = 3 offset = 0 sizes = [2, 2, 2] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{1\.20508}}, {{1\.01367}}]
  // CHECK-NEXT: {{\[}}{{2\.28906}}, {{2\.06836}}]
  // CHECK-NEXT: {{\[}}{{0\.266113}}, {{-0\.403076}}]
  // CHECK-NEXT: {{\[}}{{0\.397949}}, {{0\.0380859}}]
  call @print3d(%m30) : (tensor<?x?x?xf32>) -> ()
  return
}
