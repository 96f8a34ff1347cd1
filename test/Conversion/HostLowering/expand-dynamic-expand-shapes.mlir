// RUN: mlsopt-opt %s --mlsopt-expand-dynamic-expand-shapes --split-input-file | FileCheck %s
// The whole CPU lowering of a dynamic expand, run: upstream's
// expand-strided-metadata segfaulted on it.
// RUN: mlsopt-opt %s --split-input-file --mlsopt-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// REQUIRES: mlir-runner
// RUN: sed -n 's#^// MAIN| ##p' %s \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=OUT

// One dim into two dynamic ones: the inner keeps the source's stride, the
// outer steps over the inner's size.
// CHECK-LABEL: func.func @two_dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?xf32, strided<[?], offset: ?>>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[BASE:.*]], %[[OFFSET:.*]], %[[SIZE:.*]], %[[STRIDE:.*]] = memref.extract_strided_metadata %[[X]]
// CHECK: %[[OUTER:.*]] = arith.muli %[[STRIDE]], %[[B]]
// CHECK-NOT: memref.expand_shape
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFFSET]]], sizes: [%[[A]], %[[B]]], strides: [%[[OUTER]], %[[STRIDE]]]
// LLVM-LABEL: llvm.func @two_dynamic
// LLVM-NOT: memref.
func.func @two_dynamic(%x: memref<?xf32, strided<[?], offset: ?>>, %a: index, %b: index) -> memref<?x?xf32, strided<[?, ?], offset: ?>> {
  %p = memref.expand_shape %x [[0, 1]] output_shape [%a, %b] : memref<?xf32, strided<[?], offset: ?>> into memref<?x?xf32, strided<[?, ?], offset: ?>>
  return %p : memref<?x?xf32, strided<[?, ?], offset: ?>>
}

// -----

// A contiguous source: its offset and strides are constants, and a static
// size between the dynamic ones folds into the strides. The second group,
// with no dynamic dim, is expanded alongside.
// CHECK-LABEL: func.func @mixed_groups
// CHECK-SAME: (%[[X:.*]]: memref<?x6xf32>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[MID:.*]] = arith.muli %[[B]], %c6
// CHECK: %[[OUTER:.*]] = arith.muli %[[MID]], %c4
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[A]], 4, %[[B]], 2, 3], strides: [%[[OUTER]], %[[MID]], 6, 3, 1]
func.func @mixed_groups(%x: memref<?x6xf32>, %a: index, %b: index) -> memref<?x4x?x2x3xf32> {
  %p = memref.expand_shape %x [[0, 1, 2], [3, 4]] output_shape [%a, 4, %b, 2, 3] : memref<?x6xf32> into memref<?x4x?x2x3xf32>
  return %p : memref<?x4x?x2x3xf32>
}

// -----

// One dynamic size per group is upstream's to lower.
// CHECK-LABEL: func.func @one_dynamic
// CHECK: memref.expand_shape
// CHECK-NOT: memref.reinterpret_cast
func.func @one_dynamic(%x: memref<?xf32>, %a: index) -> memref<?x4xf32> {
  %p = memref.expand_shape %x [[0, 1]] output_shape [%a, 4] : memref<?xf32> into memref<?x4xf32>
  return %p : memref<?x4xf32>
}

// -----

// A 12-element row read as 3x4 and as 4x3 through dynamic expands of one
// tensor; the elements are their flat indices.
// MAIN| func.func @split(%x: tensor<?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
// MAIN|   %p = tensor.expand_shape %x [[0, 1]] output_shape [%a, %b] : tensor<?xf32> into tensor<?x?xf32>
// MAIN|   return %p : tensor<?x?xf32>
// MAIN| }
// MAIN| func.func @main() {
// MAIN|   %c3 = arith.constant 3 : index
// MAIN|   %c4 = arith.constant 4 : index
// MAIN|   %row = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]> : tensor<12xf32>
// MAIN|   %x = tensor.cast %row : tensor<12xf32> to tensor<?xf32>
// MAIN|   %p = call @split(%x, %c3, %c4) : (tensor<?xf32>, index, index) -> tensor<?x?xf32>
// MAIN|   %q = call @split(%x, %c4, %c3) : (tensor<?xf32>, index, index) -> tensor<?x?xf32>
// MAIN|   %c1 = arith.constant 1 : index
// MAIN|   %c2 = arith.constant 2 : index
// MAIN|   %p12 = tensor.extract %p[%c1, %c2] : tensor<?x?xf32>
// MAIN|   %q21 = tensor.extract %q[%c2, %c1] : tensor<?x?xf32>
// MAIN|   vector.print %p12 : f32
// MAIN|   vector.print %q21 : f32
// MAIN|   return
// MAIN| }
// Row 1, column 2 of 3x4 is element 6; row 2, column 1 of 4x3 is 7.
// OUT: 6
// OUT-NEXT: 7
