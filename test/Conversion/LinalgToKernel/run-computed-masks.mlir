// REQUIRES: mlir-runner
// Selects on conditions the payload computes from loop indices and integers
// (a decode step's `key > past` with the position passed at run time, a
// sliding window of a run-time width, a padding mask `ids[j] == 0`, a
// parity of the column) compute the same numbers before and after
// --convert-linalg-to-kernel, which computes each condition as an i1 mask
// in a generic of its own, over the loops it varies along, and reads the
// select through kernel.where. A causal triangle stays kernel.triangle_fill.
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

// x = [[1 .. 6], [7 .. 12]], past = 2, w = 2, ids = [5, 0, 7, 0, 0, 3],
// pad = [0, 1, 0, 0, 0, 0].
// CHECK: {{\[\[}}1,   2,   3,   -inf,   -inf,   -inf],
// CHECK-NEXT: [7,   8,   9,   -inf,   -inf,   -inf]]
// CHECK: {{\[\[}}1,   -inf,   -inf,   -inf,   -inf,   -inf],
// CHECK-NEXT: [7,   8,   -inf,   -inf,   -inf,   -inf]]
// CHECK: {{\[\[}}1,   -10000,   3,   -10000,   -10000,   6],
// CHECK-NEXT: [7,   -10000,   9,   -10000,   -10000,   12]]
// CHECK: {{\[\[}}0,   2,   0,   4,   0,   6],
// CHECK-NEXT: [0,   8,   0,   10,   0,   12]]
// CHECK: {{\[\[}}1,   -inf,   -inf,   -inf,   -inf,   -inf],
// CHECK-NEXT: [7,   8,   -inf,   -inf,   -inf,   -inf]]
// CHECK: {{\[}}6,  24]
// CHECK: {{\[\[}}1,   -inf,   3,   -inf,   -inf,   -inf],
// CHECK-NEXT: [7,   -inf,   9,   -inf,   -inf,   -inf]]

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

// KERNEL-LABEL: func.func @decode
// KERNEL: %[[P:.*]] = tensor.from_elements %arg1 : tensor<i64>
// KERNEL: %[[M:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel"]} ins(%[[P]] : tensor<i64>) outs(%{{.*}} : tensor<6xi1>)
// KERNEL: arith.cmpi sgt
// KERNEL: linalg.yield %{{.*}} : i1
// KERNEL: %[[W:.*]] = kernel.where %[[M]], 0xFFF0000000000000, 0.000000e+00 : tensor<6xi1> to tensor<6xf32>
// KERNEL-NEXT: kernel.add %arg0, %[[W]] : tensor<2x6xf32>, tensor<6xf32>
// KERNEL-NEXT: return
func.func @decode(%x: tensor<2x6xf32>, %past: i64) -> tensor<2x6xf32> {
  %e = tensor.empty() : tensor<2x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x6xf32>) outs(%e : tensor<2x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %future = arith.cmpi sgt, %jj, %past : i64
    %y = arith.select %future, %ninf, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// Causal, and no key more than w - 1 behind its query: both loops.
// KERNEL-LABEL: func.func @window
// KERNEL: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<i32>) outs(%{{.*}} : tensor<2x6xi1>)
// KERNEL: kernel.where %{{.*}} : tensor<2x6xi1> to tensor<2x6xf32>
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @window(%x: tensor<2x6xf32>, %w: i32) -> tensor<2x6xf32> {
  %e = tensor.empty() : tensor<2x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x6xf32>) outs(%e : tensor<2x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %future = arith.cmpi sgt, %jj, %ii : i32
    %behind = arith.subi %ii, %jj : i32
    %old = arith.cmpi sge, %behind, %w : i32
    %drop = arith.ori %future, %old : i1
    %y = arith.select %drop, %ninf, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// masked_fill(ids == 0, -1e4) of token ids, read per column: the mask
// generic reads the ids, the scores' generic no longer does.
// KERNEL-LABEL: func.func @padding
// KERNEL: linalg.generic {{.*}} ins(%arg1 : tensor<6xi64>) outs(%{{.*}} : tensor<6xi1>)
// KERNEL: arith.cmpi eq
// KERNEL: linalg.yield
// KERNEL-NOT: linalg.
// KERNEL: kernel.where %{{.*}} : tensor<6xi1> to tensor<6xf32>
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @padding(%x: tensor<2x6xf32>, %ids: tensor<6xi64>) -> tensor<2x6xf32> {
  %e = tensor.empty() : tensor<2x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %ids : tensor<2x6xf32>, tensor<6xi64>) outs(%e : tensor<2x6xf32>) {
  ^bb0(%a: f32, %t: i64, %o: f32):
    %c0 = arith.constant 0 : i64
    %fill = arith.constant -1.0e4 : f32
    %pad = arith.cmpi eq, %t, %c0 : i64
    %y = arith.select %pad, %fill, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// Even columns zeroed: no triangle, so a mask of the column too.
// KERNEL-LABEL: func.func @parity
// KERNEL: linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}} : tensor<6xi1>)
// KERNEL: arith.remui
// KERNEL: linalg.yield
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @parity(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %e = tensor.empty() : tensor<2x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x6xf32>) outs(%e : tensor<2x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %j = linalg.index 1 : index
    %r = arith.remui %j, %c2 : index
    %even = arith.cmpi eq, %r, %c0 : index
    %y = arith.select %even, %zero, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// A causal mask is a triangle the import fills without a mask tensor.
// KERNEL-LABEL: func.func @causal
// KERNEL-NOT: linalg.
// KERNEL: kernel.triangle_fill %arg0 dims [0, 1] diagonal 1 value 0xFFF0000000000000
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @causal(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %e = tensor.empty() : tensor<2x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x6xf32>) outs(%e : tensor<2x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %future = arith.cmpi ugt, %j, %i : index
    %y = arith.select %future, %ninf, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// A masked sum over the keys up to the position: the reduction reads the
// mask too.
// KERNEL-LABEL: func.func @masked_sum
// KERNEL: linalg.generic {{.*}} ins(%{{.*}} : tensor<i64>) outs(%{{.*}} : tensor<6xi1>)
// KERNEL: linalg.yield
// KERNEL-NOT: linalg.
// KERNEL: kernel.reduce_sum
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @masked_sum(%x: tensor<2x6xf32>, %past: i64) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x6xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %keep = arith.cmpi sle, %jj, %past : i64
    %v = arith.select %keep, %a, %zero : f32
    %s = arith.addf %o, %v : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// A boolean input or'ed with the position's condition: the mask generic
// reads both.
// KERNEL-LABEL: func.func @mask_and_position
// KERNEL: linalg.generic {{.*}} ins(%arg1, %{{.*}} : tensor<6xi1>, tensor<i64>) outs(%{{.*}} : tensor<6xi1>)
// KERNEL: arith.ori
// KERNEL: linalg.yield
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @mask_and_position(%x: tensor<2x6xf32>, %m: tensor<6xi1>, %past: i64) -> tensor<2x6xf32> {
  %e = tensor.empty() : tensor<2x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x6xf32>, tensor<6xi1>) outs(%e : tensor<2x6xf32>) {
  ^bb0(%a: f32, %pad: i1, %o: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %future = arith.cmpi sgt, %jj, %past : i64
    %drop = arith.ori %future, %pad : i1
    %y = arith.select %drop, %ninf, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<2x6xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x6xf32> to memref<2x6xf32>
  %u = memref.cast %m : memref<2x6xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0]]> : tensor<2x6xf32>
  %past = arith.constant 2 : i64
  %w = arith.constant 2 : i32
  %ids = arith.constant dense<[5, 0, 7, 0, 0, 3]> : tensor<6xi64>
  %r0 = call @decode(%x, %past) : (tensor<2x6xf32>, i64) -> tensor<2x6xf32>
  call @print(%r0) : (tensor<2x6xf32>) -> ()
  %r1 = call @window(%x, %w) : (tensor<2x6xf32>, i32) -> tensor<2x6xf32>
  call @print(%r1) : (tensor<2x6xf32>) -> ()
  %r2 = call @padding(%x, %ids) : (tensor<2x6xf32>, tensor<6xi64>) -> tensor<2x6xf32>
  call @print(%r2) : (tensor<2x6xf32>) -> ()
  %r3 = call @parity(%x) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  call @print(%r3) : (tensor<2x6xf32>) -> ()
  %r4 = call @causal(%x) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  call @print(%r4) : (tensor<2x6xf32>) -> ()
  %r5 = call @masked_sum(%x, %past) : (tensor<2x6xf32>, i64) -> tensor<2xf32>
  %m5 = bufferization.to_buffer %r5 : tensor<2xf32> to memref<2xf32>
  %u5 = memref.cast %m5 : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u5) : (memref<*xf32>) -> ()
  %pad = arith.constant dense<[false, true, false, false, false, false]> : tensor<6xi1>
  %r6 = call @mask_and_position(%x, %pad, %past) : (tensor<2x6xf32>, tensor<6xi1>, i64) -> tensor<2x6xf32>
  call @print(%r6) : (tensor<2x6xf32>) -> ()
  return
}
