// RUN: mlsopt-opt %s --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// REQUIRES: mlir-runner

// Runs the lowered reductions and rms_norm on the CPU.
// The expected numbers come from numpy (expected_values.py in this
// directory); each pattern accepts the digits that rounding in the last place
// can change.

func.func @reductions(%x: tensor<3x4xf32>)
    -> (tensor<3x1xf32>, tensor<1x4xf32>, tensor<3x1xf32>) {
  %0 = kernel.reduce_sum %x dim 1 : tensor<3x4xf32>
  %1 = kernel.reduce_sum %x dim 0 : tensor<3x4xf32>
  %2 = kernel.reduce_max %x dim 1 : tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x1xf32>, tensor<1x4xf32>, tensor<3x1xf32>
}

// The reduced dim in the middle comes back by an expand_shape.
func.func @sum_middle(%y: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = kernel.reduce_sum %y dim 1 : tensor<2x3x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// f16 sums accumulate in f32 and round once.
func.func @reductions_f16(%h: tensor<4x8xf16>) -> (tensor<4x1xf16>, tensor<1x8xf16>) {
  %0 = kernel.reduce_sum %h dim 1 : tensor<4x8xf16>
  %1 = kernel.reduce_max %h dim 0 : tensor<4x8xf16>
  return %0, %1 : tensor<4x1xf16>, tensor<1x8xf16>
}

func.func @rms_norm_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kernel.rms_norm %x {epsilon = 1.000000e-06 : f64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A large epsilon, so that a dropped epsilon shows in the numbers.
func.func @rms_norm_f16(%h: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = kernel.rms_norm %h {epsilon = 2.500000e-01 : f64} : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// rms_norm over a dim other than the last: a column of the 3-d tensor, and
// the rows of an f16 matrix.
func.func @rms_norm_dims(%y: tensor<2x3x4xf32>, %h: tensor<4x8xf16>)
    -> (tensor<2x3x4xf32>, tensor<4x8xf16>) {
  %0 = kernel.rms_norm %y dim 1 {epsilon = 2.500000e-01 : f64} : tensor<2x3x4xf32>
  %1 = kernel.rms_norm %h dim 0 {epsilon = 2.500000e-01 : f64} : tensor<4x8xf16>
  return %0, %1 : tensor<2x3x4xf32>, tensor<4x8xf16>
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
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %p0 = arith.constant 0.25 : f32
  %p1 = arith.constant 1.0 : f32
  %p2 = arith.constant 0.5 : f32
  %x0 = call @input2d(%c3, %c4, %p0) : (index, index, f32) -> tensor<?x?xf32>
  %x = tensor.cast %x0 : tensor<?x?xf32> to tensor<3x4xf32>
  %y0 = call @input3d(%c2, %c3, %c4, %p2) : (index, index, index, f32) -> tensor<?x?x?xf32>
  %y = tensor.cast %y0 : tensor<?x?x?xf32> to tensor<2x3x4xf32>
  %w0 = call @input2d(%c4, %c8, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %w = tensor.cast %w0 : tensor<?x?xf32> to tensor<4x8xf32>
  %he = tensor.empty() : tensor<4x8xf16>
  %h = linalg.map { arith.truncf } ins(%w : tensor<4x8xf32>) outs(%he : tensor<4x8xf16>)

  %r:3 = call @reductions(%x) : (tensor<3x4xf32>)
      -> (tensor<3x1xf32>, tensor<1x4xf32>, tensor<3x1xf32>)
  %sum1 = tensor.cast %r#0 : tensor<3x1xf32> to tensor<?x?xf32>
  // reduce_sum dim 1:
  // CHECK: rank = 2 offset = 0 sizes = [3, 1] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{2\.7517[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{1\.254(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{-2\.2515[0-9]*}}]
  call @print(%sum1) : (tensor<?x?xf32>) -> ()
  %sum0 = tensor.cast %r#1 : tensor<1x4xf32> to tensor<?x?xf32>
  // reduce_sum dim 0:
  // CHECK: rank = 2 offset = 0 sizes = [1, 4] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{1\.3972[0-9]*}}, {{1\.0147[0-9]*}}, {{0\.14187[0-9]*}}, {{-0\.7995[0-9]*}}]
  call @print(%sum0) : (tensor<?x?xf32>) -> ()
  %max1 = tensor.cast %r#2 : tensor<3x1xf32> to tensor<?x?xf32>
  // reduce_max dim 1:
  // CHECK: rank = 2 offset = 0 sizes = [3, 1] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.995(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.9987[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.15101[0-9]*}}]
  call @print(%max1) : (tensor<?x?xf32>) -> ()

  %m = call @sum_middle(%y) : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %m0 = tensor.cast %m : tensor<2x1x4xf32> to tensor<?x?x?xf32>
  // reduce_sum dim 1 of 3-d:
  // CHECK: rank = 3 offset = 0 sizes = [2, 1, 4] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{2\.354[0-9]*}}, {{2\.5104[0-9]*}}, {{2\.456[0-9]*}}, {{2\.1974[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{1\.3402[0-9]*}}, {{0\.6751[0-9]*}}, {{-0\.04632[0-9]*}}, {{-0\.7639[0-9]*}}]
  call @print3d(%m0) : (tensor<?x?x?xf32>) -> ()

  %rh:2 = call @reductions_f16(%h) : (tensor<4x8xf16>) -> (tensor<4x1xf16>, tensor<1x8xf16>)
  %sh32e = tensor.empty() : tensor<4x1xf32>
  %sh32 = linalg.map { arith.extf } ins(%rh#0 : tensor<4x1xf16>) outs(%sh32e : tensor<4x1xf32>)
  %sh = tensor.cast %sh32 : tensor<4x1xf32> to tensor<?x?xf32>
  // reduce_sum f16:
  // CHECK: rank = 2 offset = 0 sizes = [4, 1] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{-0\.28833}}]
  // CHECK-NEXT: {{\[}}{{-0\.846191}}]
  // CHECK-NEXT: {{\[}}{{-0\.0500488}}]
  // CHECK-NEXT: {{\[}}{{0\.826172}}]
  call @print(%sh) : (tensor<?x?xf32>) -> ()
  %mh32e = tensor.empty() : tensor<1x8xf32>
  %mh32 = linalg.map { arith.extf } ins(%rh#1 : tensor<1x8xf16>) outs(%mh32e : tensor<1x8xf32>)
  %mh = tensor.cast %mh32 : tensor<1x8xf32> to tensor<?x?xf32>
  // reduce_max f16:
  // CHECK: rank = 2 offset = 0 sizes = [1, 8] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.841309}}, {{0\.990234}}, {{0\.660645}}, {{0\.817383}}, {{0\.995605}}, {{0\.845215}}, {{0\.989258}}, {{0\.870605}}]
  call @print(%mh) : (tensor<?x?xf32>) -> ()

  %n = call @rms_norm_f32(%w) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %n0 = tensor.cast %n : tensor<4x8xf32> to tensor<?x?xf32>
  // rms_norm f32:
  // CHECK: rank = 2 offset = 0 sizes = [4, 8] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{1\.1429[0-9]*}}, {{1\.345[0-9]*}}, {{0\.8972[0-9]*}}, {{0\.01574[0-9]*}}, {{-0\.8733[0-9]*}}, {{-1\.3403[0-9]*}}, {{-1\.1596[0-9]*}}, {{-0\.4184[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{1\.0419[0-9]*}}, {{0\.09198[0-9]*}}, {{-0\.9024[0-9]*}}, {{-1\.4607[0-9]*}}, {{-1\.3131[0-9]*}}, {{-0\.5308[0-9]*}}, {{0\.5079[0-9]*}}, {{1\.3012[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{-0\.7568[0-9]*}}, {{-1\.2975[0-9]*}}, {{-1\.2111[0-9]*}}, {{-0\.5394[0-9]*}}, {{0\.3929[0-9]*}}, {{1\.1354[0-9]*}}, {{1\.329[0-9]*}}, {{0\.8805[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{-1\.3702[0-9]*}}, {{-0\.664(0[0-9]*)?}}, {{0\.36309[0-9]*|0\.3631(0[0-9]*)?}}, {{1\.2147[0-9]*}}, {{1\.4793[0-9]*}}, {{1\.029(0[0-9]*)?}}, {{0\.08136[0-9]*|0\.08137[0-9]*}}, {{-0\.9055[0-9]*}}]
  call @print(%n0) : (tensor<?x?xf32>) -> ()

  %nh = call @rms_norm_f16(%h) : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %nh32e = tensor.empty() : tensor<4x8xf32>
  %nh32 = linalg.map { arith.extf } ins(%nh : tensor<4x8xf16>) outs(%nh32e : tensor<4x8xf32>)
  %nh0 = tensor.cast %nh32 : tensor<4x8xf32> to tensor<?x?xf32>
  // rms_norm f16:
  // CHECK: rank = 2 offset = 0 sizes = [4, 8] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.945312}}, {{1\.1123}}, {{0\.742188}}, {{0\.0130234}}, {{-0\.722656}}, {{-1\.1084}}, {{-0\.959473}}, {{-0\.346191}}]
  // CHECK-NEXT: {{\[}}{{0\.834473}}, {{0\.0736694}}, {{-0\.723145}}, {{-1\.16992}}, {{-1\.05176}}, {{-0\.425293}}, {{0\.406738}}, {{1\.04199}}]
  // CHECK-NEXT: {{\[}}{{-0\.628418}}, {{-1\.07715}}, {{-1\.00488}}, {{-0\.447998}}, {{0\.326172}}, {{0\.942383}}, {{1\.10352}}, {{0\.730957}}]
  // CHECK-NEXT: {{\[}}{{-1\.09961}}, {{-0\.532715}}, {{0\.29126}}, {{0\.975098}}, {{1\.1875}}, {{0\.825684}}, {{0\.0653076}}, {{-0\.727051}}]
  call @print(%nh0) : (tensor<?x?xf32>) -> ()

  %nd:2 = call @rms_norm_dims(%y, %h) : (tensor<2x3x4xf32>, tensor<4x8xf16>)
      -> (tensor<2x3x4xf32>, tensor<4x8xf16>)
  %nd1 = tensor.cast %nd#0 : tensor<2x3x4xf32> to tensor<?x?x?xf32>
  // rms_norm dim 1 of 3-d
  // CHECK: rank = 3 offset = 0 sizes = [2, 3, 4] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.50182[0-9]*}}, {{0\.7232[0-9]*}}, {{0\.9066[0-9]*}}, {{1\.0543[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.9793[0-9]*}}, {{1\.0156[0-9]*}}, {{1\.0034[0-9]*}}, {{0\.9394[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.9835[0-9]*}}, {{0\.8171[0-9]*}}, {{0\.6152[0-9]*}}, {{0\.3705[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{1\.1796[0-9]*}}, {{1\.106[0-9]*}}, {{0\.8732[0-9]*}}, {{0\.5162[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.6574(0[0-9]*)?}}, {{0\.357(0[0-9]*)?}}, {{-0\.02519[0-9]*|-0\.0252(0[0-9]*)?}}, {{-0\.4009[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{-0\.18253[0-9]*}}, {{-0\.565(0[0-9]*)?}}, {{-0\.9114[0-9]*}}, {{-1\.124[0-9]*}}]
  call @print3d(%nd1) : (tensor<?x?x?xf32>) -> ()
  %nd0e = tensor.empty() : tensor<4x8xf32>
  %nd032 = linalg.map { arith.extf } ins(%nd#1 : tensor<4x8xf16>) outs(%nd0e : tensor<4x8xf32>)
  %nd0 = tensor.cast %nd032 : tensor<4x8xf32> to tensor<?x?xf32>
  // rms_norm f16 dim 0
  // CHECK: rank = 2 offset = 0 sizes = [4, 8] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.917969}}, {{1\.12207}}, {{0\.808105}}, {{0\.0138855}}, {{-0\.711914}}, {{-1\.08789}}, {{-1\.01562}}, {{-0\.378174}}]
  // CHECK-NEXT: {{\[}}{{0\.760742}}, {{0\.0697021}}, {{-0\.73877}}, {{-1\.17188}}, {{-0\.973145}}, {{-0\.391357}}, {{0\.404297}}, {{1\.06934}}]
  // CHECK-NEXT: {{\[}}{{-0\.614746}}, {{-1\.09375}}, {{-1\.10254}}, {{-0\.481201}}, {{0\.32373}}, {{0\.931641}}, {{1\.17676}}, {{0\.804688}}]
  // CHECK-NEXT: {{\[}}{{-1\.00586}}, {{-0\.506348}}, {{0\.298828}}, {{0\.979492}}, {{1\.10254}}, {{0\.763184}}, {{0\.0651245}}, {{-0\.748047}}]
  call @print(%nd0) : (tensor<?x?xf32>) -> ()
  return
}
