// RUN: mlsopt-opt %s --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// REQUIRES: mlir-runner

// Runs the lowered elementwise ops on the CPU, broadcasting included.
// The expected numbers come from numpy (expected_values.py in this
// directory); each pattern accepts the digits that rounding in the last place
// can change.

// A missing leading dim: the vector is added to every row.
func.func @add_vector(%a: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kernel.add %a, %v : tensor<2x3xf32>, tensor<3xf32>
  return %0 : tensor<2x3xf32>
}

// Both operands stretch: a column minus a row.
func.func @sub_outer(%c: tensor<2x1xf32>, %r: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = kernel.sub %c, %r : tensor<2x1xf32>, tensor<1x3xf32>
  return %0 : tensor<2x3xf32>
}

// Each row divided by its own scalar.
func.func @div_column(%a: tensor<2x3xf32>, %c: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %0 = kernel.div %a, %c : tensor<2x3xf32>, tensor<2x1xf32>
  return %0 : tensor<2x3xf32>
}

func.func @activations(%a: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kernel.exp %a : tensor<2x3xf32>
  %1 = kernel.silu %a : tensor<2x3xf32>
  %2 = kernel.gelu %a : tensor<2x3xf32>
  %3 = kernel.sigmoid %a : tensor<2x3xf32>
  %4 = kernel.tanh %a : tensor<2x3xf32>
  %5 = kernel.erf %a : tensor<2x3xf32>
  %6 = kernel.relu %a : tensor<2x3xf32>
  %7 = kernel.neg %a : tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// s = a * a + 0.5 is positive, for the ops that need it.
func.func @positive(%a: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %sq = kernel.square %a : tensor<2x3xf32>
  %s = kernel.add_scalar %sq, 5.000000e-01 : tensor<2x3xf32>
  %0 = kernel.rsqrt %s : tensor<2x3xf32>
  %1 = kernel.sqrt %s : tensor<2x3xf32>
  %2 = kernel.log %s : tensor<2x3xf32>
  %3 = kernel.mul_scalar %s, -2.500000e+00 : tensor<2x3xf32>
  return %0, %1, %2, %3
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// f16: every op computes in f32 and rounds to f16 once.
func.func @silu_scale_f16(%a: tensor<2x3xf16>, %c: tensor<2x1xf16>) -> tensor<2x3xf16> {
  %s = kernel.silu %a : tensor<2x3xf16>
  %0 = kernel.mul %s, %c : tensor<2x3xf16>, tensor<2x1xf16>
  return %0 : tensor<2x3xf16>
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
  %p0 = arith.constant 0.25 : f32
  %p1 = arith.constant 1.0 : f32
  %p2 = arith.constant 2.0 : f32
  %a0 = call @input2d(%c2, %c3, %p0) : (index, index, f32) -> tensor<?x?xf32>
  %a = tensor.cast %a0 : tensor<?x?xf32> to tensor<2x3xf32>
  %r0 = call @input2d(%c1, %c3, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %r = tensor.cast %r0 : tensor<?x?xf32> to tensor<1x3xf32>
  %v = tensor.collapse_shape %r [[0, 1]] : tensor<1x3xf32> into tensor<3xf32>
  %c0 = call @input2d(%c2, %c1, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %c = tensor.cast %c0 : tensor<?x?xf32> to tensor<2x1xf32>

  %add = call @add_vector(%a, %v) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %add0 = tensor.cast %add : tensor<2x3xf32> to tensor<?x?xf32>
  // add_vector:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{1\.0888[0-9]*}}, {{1\.8095[0-9]*}}, {{1\.6556[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{1\.8402[0-9]*}}, {{1\.7157[0-9]*}}, {{0\.76199[0-9]*|0\.762(00[0-9]*)?}}]
  call @print(%add0) : (tensor<?x?xf32>) -> ()
  %sub = call @sub_outer(%c, %r) : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %sub0 = tensor.cast %sub : tensor<2x3xf32> to tensor<?x?xf32>
  // sub_outer:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.06782[0-9]*}}, {{-0\.08102[0-9]*|-0\.08103[0-9]*}}, {{0\.24871[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{-1\.067[0-9]*}}, {{-1\.2167[0-9]*}}, {{-0\.887(0[0-9]*)?}}]
  call @print(%sub0) : (tensor<?x?xf32>) -> ()
  %div = call @div_column(%a, %c) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %div0 = tensor.cast %div : tensor<2x3xf32> to tensor<?x?xf32>
  // div_column:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.272(0[0-9]*)?}}, {{0\.9009[0-9]*}}, {{1\.0943[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{-4\.411[0-9]*}}, {{-3\.2036[0-9]*}}, {{-0\.4479[0-9]*}}]
  call @print(%div0) : (tensor<?x?xf32>) -> ()

  %act:8 = call @activations(%a) : (tensor<2x3xf32>)
      -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
          tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  %exp = tensor.cast %act#0 : tensor<2x3xf32> to tensor<?x?xf32>
  // exp:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{1\.28(0[0-9]*)?}}, {{2\.2686[0-9]*}}, {{2\.7049[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{2\.7149[0-9]*|2\.715(0[0-9]*)?}}, {{2\.0655[0-9]*}}, {{1\.1067[0-9]*}}]
  call @print(%exp) : (tensor<?x?xf32>) -> ()
  %silu = tensor.cast %act#1 : tensor<2x3xf32> to tensor<?x?xf32>
  // silu:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.13892[0-9]*}}, {{0\.5685[0-9]*}}, {{0\.72649[0-9]*|0\.7265(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.7299[0-9]*}}, {{0\.4887[0-9]*}}, {{0\.05327[0-9]*|0\.05328[0-9]*}}]
  call @print(%silu) : (tensor<?x?xf32>) -> ()
  %gelu = tensor.cast %act#2 : tensor<2x3xf32> to tensor<?x?xf32>
  // gelu:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.14787[0-9]*}}, {{0\.6501[0-9]*}}, {{0\.836(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.84(00[0-9]*)?}}, {{0\.5555[0-9]*}}, {{0\.0548(0[0-9]*)?}}]
  call @print(%gelu) : (tensor<?x?xf32>) -> ()
  %sigmoid = tensor.cast %act#3 : tensor<2x3xf32> to tensor<?x?xf32>
  // sigmoid:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.5615[0-9]*}}, {{0\.694(0[0-9]*)?}}, {{0\.73(00[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.7308[0-9]*}}, {{0\.6737[0-9]*}}, {{0\.5253[0-9]*}}]
  call @print(%sigmoid) : (tensor<?x?xf32>) -> ()
  %tanh = tensor.cast %act#4 : tensor<2x3xf32> to tensor<?x?xf32>
  // tanh:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.2424[0-9]*}}, {{0\.6746[0-9]*}}, {{0\.7595[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.761(0[0-9]*)?}}, {{0\.6202[0-9]*}}, {{0\.101(0[0-9]*)?}}]
  call @print(%tanh) : (tensor<?x?xf32>) -> ()
  %erf = tensor.cast %act#5 : tensor<2x3xf32> to tensor<?x?xf32>
  // erf:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.27357[0-9]*}}, {{0\.7533[0-9]*}}, {{0\.8406[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.84219[0-9]*|0\.8422(0[0-9]*)?}}, {{0\.695(0[0-9]*)?}}, {{0\.11404[0-9]*}}]
  call @print(%erf) : (tensor<?x?xf32>) -> ()
  %relu = tensor.cast %act#6 : tensor<2x3xf32> to tensor<?x?xf32>
  // relu:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.2474(0[0-9]*)?}}, {{0\.8191[0-9]*}}, {{0\.995(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.9987[0-9]*}}, {{0\.72538[0-9]*}}, {{0\.1014[0-9]*}}]
  call @print(%relu) : (tensor<?x?xf32>) -> ()
  %neg = tensor.cast %act#7 : tensor<2x3xf32> to tensor<?x?xf32>
  // neg:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{-0\.2474(0[0-9]*)?}}, {{-0\.8191[0-9]*}}, {{-0\.995(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{-0\.9987[0-9]*}}, {{-0\.72538[0-9]*}}, {{-0\.1014[0-9]*}}]
  call @print(%neg) : (tensor<?x?xf32>) -> ()

  %pos:4 = call @positive(%a) : (tensor<2x3xf32>)
      -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  %rsqrt = tensor.cast %pos#0 : tensor<2x3xf32> to tensor<?x?xf32>
  // rsqrt:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{1\.3348[0-9]*}}, {{0\.924(0[0-9]*)?}}, {{0\.8191[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{0\.8171[0-9]*}}, {{0\.9871[0-9]*}}, {{1\.399[0-9]*}}]
  call @print(%rsqrt) : (tensor<?x?xf32>) -> ()
  %sqrt = tensor.cast %pos#1 : tensor<2x3xf32> to tensor<?x?xf32>
  // sqrt:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.7491[0-9]*}}, {{1\.0821[0-9]*}}, {{1\.2207[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{1\.2237[0-9]*}}, {{1\.013(0[0-9]*)?}}, {{0\.7143[0-9]*}}]
  call @print(%sqrt) : (tensor<?x?xf32>) -> ()
  %log = tensor.cast %pos#2 : tensor<2x3xf32> to tensor<?x?xf32>
  // log:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{-0\.5776[0-9]*}}, {{0\.1579[0-9]*}}, {{0\.3989(0[0-9]*)?}}]
  // CHECK-NEXT: {{\[}}{{0\.4038[0-9]*}}, {{0\.02584[0-9]*}}, {{-0\.67278[0-9]*}}]
  call @print(%log) : (tensor<?x?xf32>) -> ()
  %scaled = tensor.cast %pos#3 : tensor<2x3xf32> to tensor<?x?xf32>
  // mul_scalar:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{-1\.403(0[0-9]*)?}}, {{-2\.927[0-9]*}}, {{-3\.7254[0-9]*}}]
  // CHECK-NEXT: {{\[}}{{-3\.7439[0-9]*}}, {{-2\.5654[0-9]*}}, {{-1\.2757[0-9]*}}]
  call @print(%scaled) : (tensor<?x?xf32>) -> ()

  %ahe = tensor.empty() : tensor<2x3xf16>
  %ah = linalg.map { arith.truncf } ins(%a : tensor<2x3xf32>) outs(%ahe : tensor<2x3xf16>)
  %che = tensor.empty() : tensor<2x1xf16>
  %ch = linalg.map { arith.truncf } ins(%c : tensor<2x1xf32>) outs(%che : tensor<2x1xf16>)
  %h = call @silu_scale_f16(%ah, %ch) : (tensor<2x3xf16>, tensor<2x1xf16>) -> tensor<2x3xf16>
  %h32e = tensor.empty() : tensor<2x3xf32>
  %h32 = linalg.map { arith.extf } ins(%h : tensor<2x3xf16>) outs(%h32e : tensor<2x3xf32>)
  %h0 = tensor.cast %h32 : tensor<2x3xf32> to tensor<?x?xf32>
  // silu_scale_f16:
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = {{.*}} data =
  // CHECK-NEXT: {{\[}}{{0\.126343}}, {{0\.51709}}, {{0\.660645}}]
  // CHECK-NEXT: {{\[}}{{-0\.165283}}, {{-0\.110718}}, {{-0\.0120621}}]
  call @print(%h0) : (tensor<?x?xf32>) -> ()
  return
}
