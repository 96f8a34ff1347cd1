// REQUIRES: mlir-runner
// The kernels the GPU lowering writes without shared memory, run on the
// host: a loop kernel of an embedding's gather, a copy kernel of the
// transpose after it, a loop kernel of an argmax over the transposed rows
// (two results, ties to the first), one of a 1-D convolution whose input
// index is o + k, and copy kernels of a strided slice and a broadcast. --mlsopt-launches-to-host-loops runs each launch as
// loops over its grid and block, so these numbers check the indices each
// kernel computes; the program itself, on the CPU pipeline, prints the
// same ones.
// RUN: cat %s %S/Inputs/run-on-host-tensor-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --convert-kernel-to-custom \
// RUN:     --convert-custom-kernel-to-gpu=chip=sm_80 -o %t.gpu.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.mlir
// RUN: mlsopt-opt %t.gpu.mlir --mlsopt-launches-to-host-loops \
// RUN: | sed -e '/^module.*{$/d' -e '/^}$/d' > %t.host.mlir
// RUN: cat %t.host.mlir %S/Inputs/run-on-host-buffer-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s

// Six launches: the gather, the transpose, the argmax, the convolution,
// the strided slice and the broadcast.
// GPU-COUNT-6: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: gpu.func @gather_argmax_conv_kernel0

// The gathered rows [4, 0, 2] and [1, 1, 3], transposed to [b, d, s]:
// CHECK: {{\[\[\[}}0,   0.5,   -3],
// CHECK-NEXT: {{\[}}3,   -1,   0.25],
// CHECK-NEXT: {{\[}}3,   2,   1.5],
// CHECK-NEXT: {{\[}}-1.5,   3.5,   2]],
// CHECK-NEXT: {{\[\[}}1,   1,   2.5],
// CHECK-NEXT: {{\[}}4,   4,   2.5],
// CHECK-NEXT: {{\[}}-2,   -2,   -0.5],
// CHECK-NEXT: {{\[}}0,   0,   1]]]
// The argmax over s of each [b, d] row (the first of equal maxima):
// CHECK: {{\[\[}}1,   0,   0,   1],
// CHECK-NEXT: {{\[}}2,   0,   2,   2]]
// The convolution over d with weights [1, -2, 0.5], per [b, s]:
// CHECK: {{\[\[\[}}-4.5,   -3.75],
// CHECK-NEXT: {{\[}}3.5,   -3.25],
// CHECK-NEXT: {{\[}}-2.75,   -1.75]],
// CHECK-NEXT: {{\[\[}}-8,   8],
// CHECK-NEXT: {{\[}}-8,   8],
// CHECK-NEXT: {{\[}}-2.75,   4]]]
// The gathered rows' [:, 1:3, 1::2]:
// CHECK: {{\[\[\[}}-1,   3.5],
// CHECK-NEXT: {{\[}}0.25,   2]],
// CHECK-NEXT: {{\[\[}}4,   0],
// CHECK-NEXT: {{\[}}2.5,   1]]]
// The weights broadcast to two rows:
// CHECK: {{\[\[}}1,   -2,   0.5],
// CHECK-NEXT: {{\[}}1,   -2,   0.5]]

func.func @gather_argmax_conv(%ids: tensor<2x3xi64>, %table: tensor<5x4xf32>, %w: tensor<3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4xi64>, tensor<2x3x2xf32>, tensor<2x2x2xf32>, tensor<2x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<2x3x4xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(b, s, d) -> (b, s)>, affine_map<(b, s, d) -> (b, s, d)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<2x3xi64>) outs(%e : tensor<2x3x4xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %d = linalg.index 2 : index
    %v = tensor.extract %table[%row, %d] : tensor<5x4xf32>
    linalg.yield %v : f32
  } -> tensor<2x3x4xf32>
  %et = tensor.empty() : tensor<2x4x3xf32>
  %t = linalg.transpose ins(%rows : tensor<2x3x4xf32>) outs(%et : tensor<2x4x3xf32>) permutation = [0, 2, 1]
  %em = tensor.empty() : tensor<2x4xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%em : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ei = tensor.empty() : tensor<2x4xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%ei : tensor<2x4xi64>) -> tensor<2x4xi64>
  %best:2 = linalg.generic {indexing_maps = [affine_map<(b, d, s) -> (b, d, s)>, affine_map<(b, d, s) -> (b, d)>, affine_map<(b, d, s) -> (b, d)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t : tensor<2x4x3xf32>) outs(%m, %i : tensor<2x4xf32>, tensor<2x4xi64>) {
  ^bb0(%in: f32, %mx: f32, %at: i64):
    %s = linalg.index 2 : index
    %ss = arith.index_cast %s : index to i64
    %gt = arith.cmpf ogt, %in, %mx : f32
    %nm = arith.select %gt, %in, %mx : f32
    %na = arith.select %gt, %ss, %at : i64
    linalg.yield %nm, %na : f32, i64
  } -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %ec = tensor.empty() : tensor<2x3x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%ec : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %conv = linalg.generic {indexing_maps = [affine_map<(b, s, o, k) -> (b, s, o + k)>, affine_map<(b, s, o, k) -> (k)>, affine_map<(b, s, o, k) -> (b, s, o)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%rows, %w : tensor<2x3x4xf32>, tensor<3xf32>) outs(%z : tensor<2x3x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %p = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x2xf32>
  %sl = tensor.extract_slice %rows[0, 1, 1] [2, 2, 2] [1, 1, 2] : tensor<2x3x4xf32> to tensor<2x2x2xf32>
  %eb = tensor.empty() : tensor<2x3xf32>
  %bc = linalg.broadcast ins(%w : tensor<3xf32>) outs(%eb : tensor<2x3xf32>) dimensions = [0]
  return %t, %best#1, %conv, %sl, %bc : tensor<2x4x3xf32>, tensor<2x4xi64>, tensor<2x3x2xf32>, tensor<2x2x2xf32>, tensor<2x3xf32>
}
