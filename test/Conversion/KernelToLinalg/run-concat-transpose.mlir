// RUN: mlsopt-opt %s --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// REQUIRES: mlir-runner

// Runs the lowered concat and transpose on the CPU.
// The expected numbers come from numpy (expected_values.py in this
// directory); each pattern accepts the digits that rounding in the last place
// can change.

func.func @concat_rows(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<3x3xf32> {
  %0 = kernel.concat %a, %b dim 0 : tensor<2x3xf32>, tensor<1x3xf32>
  return %0 : tensor<3x3xf32>
}

func.func @concat_cols(%a: tensor<2x3xf32>, %c: tensor<2x2xf32>, %d: tensor<2x1xf32>)
    -> tensor<2x6xf32> {
  %0 = kernel.concat %a, %c, %d dim 1 : tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x1xf32>
  return %0 : tensor<2x6xf32>
}

// Result dim i is operand dim permutation[i].
func.func @transpose(%y: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = kernel.transpose %y [2, 0, 1] : tensor<2x3x4xf32>
  return %0 : tensor<4x2x3xf32>
}

func.func @transpose_f16(%a: tensor<2x3xf16>) -> tensor<3x2xf16> {
  %0 = kernel.transpose %a [1, 0] : tensor<2x3xf16>
  return %0 : tensor<3x2xf16>
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
  %p0 = arith.constant 0.25 : f32
  %p1 = arith.constant 1.0 : f32
  %p2 = arith.constant 2.0 : f32
  %p3 = arith.constant 3.0 : f32
  %a0 = call @input2d(%c2, %c3, %p0) : (index, index, f32) -> tensor<?x?xf32>
  %a = tensor.cast %a0 : tensor<?x?xf32> to tensor<2x3xf32>
  %b0 = call @input2d(%c1, %c3, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %b = tensor.cast %b0 : tensor<?x?xf32> to tensor<1x3xf32>
  %cc0 = call @input2d(%c2, %c2, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %cc = tensor.cast %cc0 : tensor<?x?xf32> to tensor<2x2xf32>
  %d0 = call @input2d(%c2, %c1, %p3) : (index, index, f32) -> tensor<?x?xf32>
  %d = tensor.cast %d0 : tensor<?x?xf32> to tensor<2x1xf32>
  %y0 = call @input3d(%c2, %c3, %c4, %p0) : (index, index, index, f32) -> tensor<?x?x?xf32>
  %y = tensor.cast %y0 : tensor<?x?x?xf32> to tensor<2x3x4xf32>

  %rows = call @concat_rows(%a, %b) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %rows0 = tensor.cast %rows : tensor<3x3xf32> to tensor<?x?xf32>
  // concat dim 0:
  // CHECK: rank = 2 offset = 0 sizes = [3, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.2474(0[0-9]*)?}}, {{0\.8191[0-9]*}}, {{0\.995(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.9987[0-9]*}}, {{0\.72538[0-9]*}}, {{0\.1014[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.8414[0-9]*}}, {{0\.9903[0-9]*}}, {{0\.6605[0-9]*}}]
  call @print(%rows0) : (tensor<?x?xf32>) -> ()
  %cols = call @concat_cols(%a, %cc, %d)
      : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x6xf32>
  %cols0 = tensor.cast %cols : tensor<2x6xf32> to tensor<?x?xf32>
  // concat dim 1:
  // CHECK: rank = 2 offset = 0 sizes = [2, 6] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.2474(0[0-9]*)?}}, {{0\.8191[0-9]*}}, {{0\.995(0[0-9]*)?}}, {{0\.90929[0-9]*|0\.9093(0[0-9]*)?}}, {{0\.4183[0-9]*}}, {{0\.1411[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.9987[0-9]*}}, {{0\.72538[0-9]*}}, {{0\.1014[0-9]*}}, {{-0\.22642[0-9]*}}, {{-0\.8066[0-9]*}}, {{-0\.9419[0-9]*}}]
  call @print(%cols0) : (tensor<?x?xf32>) -> ()

  %t = call @transpose(%y) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %t0 = tensor.cast %t : tensor<4x2x3xf32> to tensor<?x?x?xf32>
  // transpose [2, 0, 1]:
  // CHECK: rank = 3 offset = 0 sizes = [4, 2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.2474(0[0-9]*)?}}, {{0\.8191[0-9]*}}, {{0\.995(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.9987[0-9]*}}, {{0\.72538[0-9]*}}, {{0\.1014[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.5141[0-9]*}}, {{0\.9489[0-9]*}}, {{0\.9252[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.943(0[0-9]*)?}}, {{0\.4982[0-9]*}}, {{-0\.18729[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.7379[0-9]*}}, {{0\.9995[0-9]*}}, {{0\.778(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.80849[0-9]*|0\.8085(0[0-9]*)?}}, {{0\.2295[0-9]*}}, {{-0\.4603[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.90009[0-9]*|0\.9001(0[0-9]*)?}}, {{0\.9665[0-9]*|0\.9666[0-9]*}}, {{0\.5659[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.6064[0-9]*}}, {{-0\.05837[0-9]*}}, {{-0\.6949[0-9]*}}]
  call @print3d(%t0) : (tensor<?x?x?xf32>) -> ()

  %ahe = tensor.empty() : tensor<2x3xf16>
  %ah = linalg.map { arith.truncf } ins(%a : tensor<2x3xf32>) outs(%ahe : tensor<2x3xf16>)
  %th = call @transpose_f16(%ah) : (tensor<2x3xf16>) -> tensor<3x2xf16>
  %th32e = tensor.empty() : tensor<3x2xf32>
  %th32 = linalg.map { arith.extf } ins(%th : tensor<3x2xf16>) outs(%th32e : tensor<3x2xf32>)
  %th0 = tensor.cast %th32 : tensor<3x2xf32> to tensor<?x?xf32>
  // transpose f16:
  // CHECK: rank = 2 offset = 0 sizes = [3, 2] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.247437}}, {{0\.999023}}]
  // CHECK-NEXT: {{\[}}{{0\.819336}}, {{0\.725586}}]
  // CHECK-NEXT: {{\[}}{{0\.995117}}, {{0\.10144}}]
  call @print(%th0) : (tensor<?x?xf32>) -> ()
  return
}
