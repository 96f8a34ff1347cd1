// REQUIRES: mlir-runner
// Strided slices as torch-mlir writes torch's `x[..., ::2]`, `x[1::3]` and
// `x[..., 2:8:2]`, and GPT-J's rotation of interleaved pairs
// (`stack((-x[..., 1::2], x[..., ::2]), -1).flatten(-2)`), compute the same
// numbers before and after --convert-linalg-to-kernel, which reads each
// slice as a unit-stride window of the dim split into [n / stride, stride],
// and after the search, whose kernel loads those windows.
// RUN: mlsopt-opt %s %lower_to_llvm \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel \
// RUN: | mlsopt-opt --superoptimize="threads=1 timeout=10" --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// The runs test the conversion only if the programs were converted.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | FileCheck %s --check-prefix=KERNEL

#id = affine_map<(i, j) -> (i, j)>

// x[:, ::2] + 10 * x[:, 1::2]: the even and odd columns.
// KERNEL-LABEL: func.func @even_odd
// KERNEL-NOT: linalg.
// KERNEL: %[[P:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [2, 4, 2] : tensor<2x8xf32> into tensor<2x4x2xf32>
// KERNEL-DAG: tensor.extract_slice %[[P]][0, 0, 0] [2, 4, 1] [1, 1, 1]
// KERNEL-DAG: tensor.extract_slice %[[P]][0, 0, 1] [2, 4, 1] [1, 1, 1]
// KERNEL: return
func.func @even_odd(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %even = tensor.extract_slice %x[0, 0] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %odd = tensor.extract_slice %x[0, 1] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%even, %odd : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %ten = arith.constant 10.0 : f32
    %t = arith.mulf %b, %ten : f32
    %y = arith.addf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// x[1::3, 2:8:2] * 2: rows 1 and 4 of 6, columns 2, 4 and 6 of 8 (a stride
// on both dims, the second slice shorter than the dim).
// KERNEL-LABEL: func.func @rows_and_window
// KERNEL-NOT: linalg.
// KERNEL: %[[P:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1], [2, 3]] output_shape [2, 3, 4, 2] : tensor<6x8xf32> into tensor<2x3x4x2xf32>
// KERNEL: tensor.extract_slice %[[P]][0, 1, 1, 0] [2, 1, 3, 1] [1, 1, 1, 1]
// KERNEL: return
func.func @rows_and_window(%x: tensor<6x8xf32>) -> tensor<2x3xf32> {
  %s = tensor.extract_slice %x[1, 2] [2, 3] [3, 2] : tensor<6x8xf32> to tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// GPT-J's rotary embedding: x * cos + rotate_every_two(x) * sin. The
// rotation's pairs are the split dim again, and every op computes on that
// view: one collapse makes the result.
// KERNEL-LABEL: func.func @rotate_every_two
// KERNEL-NOT: linalg.
// KERNEL: kernel.concat %{{.*}}, %{{.*}} dim 2 : tensor<2x4x1xf32>, tensor<2x4x1xf32>
// KERNEL: kernel.add %{{.*}}, %{{.*}} : tensor<2x4x2xf32>, tensor<2x4x2xf32>
// KERNEL-NEXT: %[[R:.*]] = tensor.collapse_shape
// KERNEL-NEXT: return %[[R]]
func.func @rotate_every_two(%x: tensor<2x8xf32>, %cos: tensor<2x8xf32>, %sin: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %x1 = tensor.extract_slice %x[0, 0] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %x2 = tensor.extract_slice %x[0, 1] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x2 : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.negf %a : f32
    linalg.yield %c : f32
  } -> tensor<2x4xf32>
  %a1 = tensor.expand_shape %n [[0], [1, 2]] output_shape [2, 4, 1] : tensor<2x4xf32> into tensor<2x4x1xf32>
  %b1 = tensor.expand_shape %x1 [[0], [1, 2]] output_shape [2, 4, 1] : tensor<2x4xf32> into tensor<2x4x1xf32>
  %st = tensor.concat dim(2) %a1, %b1 : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x2xf32>
  %r = tensor.collapse_shape %st [[0], [1, 2]] : tensor<2x4x2xf32> into tensor<2x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %o = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %cos, %r, %sin : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) outs(%e2 : tensor<2x8xf32>) {
  ^bb0(%a: f32, %c: f32, %rr: f32, %s: f32, %oo: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.mulf %rr, %s : f32
    %y = arith.addf %p, %q : f32
    linalg.yield %y : f32
  } -> tensor<2x8xf32>
  return %o : tensor<2x8xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0]]> : tensor<2x8xf32>
  // CHECK: [21,   43,   65,   87]
  // CHECK-NEXT: [-21,   -43,   -65,   -87]
  %r0 = call @even_odd(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
  %p0 = tensor.cast %r0 : tensor<2x4xf32> to tensor<?x?xf32>
  call @print(%p0) : (tensor<?x?xf32>) -> ()
  %g = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0], [30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0], [40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0], [50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0]]> : tensor<6x8xf32>
  // CHECK: [24,   28,   32]
  // CHECK-NEXT: [84,   88,   92]
  %r1 = call @rows_and_window(%g) : (tensor<6x8xf32>) -> tensor<2x3xf32>
  %p1 = tensor.cast %r1 : tensor<2x3xf32> to tensor<?x?xf32>
  call @print(%p1) : (tensor<?x?xf32>) -> ()
  %cos = arith.constant dense<[[1.0, 1.0, 0.5, 0.5, 0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<2x8xf32>
  %sin = arith.constant dense<[[0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]]> : tensor<2x8xf32>
  // (x0, x1) -> (x0 c - x1 s, x1 c + x0 s), pair by pair.
  // CHECK: [1,   2,   -2.5,   5,   -6,   5,   -10,   37]
  // CHECK-NEXT: [3,   -4,   5,   -10,   7,   -16,   9,   -22]
  %r2 = call @rotate_every_two(%x, %cos, %sin) : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %p2 = tensor.cast %r2 : tensor<2x8xf32> to tensor<?x?xf32>
  call @print(%p2) : (tensor<?x?xf32>) -> ()
  return
}
