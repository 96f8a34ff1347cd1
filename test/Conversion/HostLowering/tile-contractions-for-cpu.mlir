// RUN: mlsopt-opt %s --split-input-file --mlsopt-tile-contractions-for-cpu | FileCheck %s
// The CPU pipeline runs it: a kernel.matmul with ragged tiles in every dim
// gives exact integer products (small integers in f32).
// REQUIRES: mlir-runner
// RUN: sed -n 's#^// MAIN| ##p' %s \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=OUT

// Tiles of 32 rows, 256 columns and 256 terms, in the op's order, around
// a generic whose loops are M, K, N.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[RES:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @large
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c256
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c256
// CHECK: %[[A:.*]] = memref.subview %arg0[%[[I]], %[[K]]]
// CHECK: %[[B:.*]] = memref.subview %arg1[%[[K]], %[[J]]]
// CHECK: %[[C:.*]] = memref.subview %arg2[%[[I]], %[[J]]]
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[RES]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : {{.*}}) outs(%[[C]] : {{.*}})
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.matmul
func.func @large(%a: memref<64x300xf32>, %b: memref<300x600xf32>, %c: memref<64x600xf32>) {
  linalg.matmul ins(%a, %b : memref<64x300xf32>, memref<300x600xf32>) outs(%c : memref<64x600xf32>)
  return
}

// -----

// A block's tile fits: no loops, the loops only interchanged.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[RES:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @tile
// CHECK-NOT: scf.for
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[RES]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%arg0, %arg1 : {{.*}}) outs(%arg2 : {{.*}})
func.func @tile(%a: memref<16x64xf16>, %b: memref<64x32xf16>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x64xf16>, memref<64x32xf16>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// Batches stay outermost and untiled.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[RES:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @batched
// CHECK: scf.for %{{.*}} step %c32
// CHECK-NOT: scf.for
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[RES]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
func.func @batched(%a: memref<4x64x16xf32>, %b: memref<4x16x8xf32>, %c: memref<4x64x8xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<4x64x16xf32>, memref<4x16x8xf32>) outs(%c : memref<4x64x8xf32>)
  return
}

// -----

// Left alone: a rhs stored [N, K] (its rows are the terms, so K innermost
// already reads rows), a dynamic size, tensors, and two K dims (tiling the
// inner one put its tile loop outside the outer one: each element summed
// its terms in another order, and 14 of 15 elements of a 3x3x300 by
// 3x300x5 contraction moved in their last bits).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : memref<64x3x300xf32>, memref<3x300x600xf32>)
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs_nk = affine_map<(m, n, k) -> (n, k)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @left_alone(%a: memref<64x300xf32>, %bt: memref<600x300xf32>, %c: memref<64x600xf32>,
                      %d: memref<?x300xf32>, %b: memref<300x600xf32>, %e: memref<?x600xf32>,
                      %ta: tensor<64x300xf32>, %tb: tensor<300x600xf32>, %tc: tensor<64x600xf32>,
                      %a3: memref<64x3x300xf32>, %b3: memref<3x300x600xf32>) -> tensor<64x600xf32> {
  linalg.generic {indexing_maps = [#lhs, #rhs_nk, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : memref<64x300xf32>, memref<600x300xf32>) outs(%c : memref<64x600xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%d, %b : memref<?x300xf32>, memref<300x600xf32>) outs(%e : memref<?x600xf32>)
  %r = linalg.matmul ins(%ta, %tb : tensor<64x300xf32>, tensor<300x600xf32>) outs(%tc : tensor<64x600xf32>) -> tensor<64x600xf32>
  linalg.generic {indexing_maps = [affine_map<(m, n, k0, k1) -> (m, k0, k1)>, affine_map<(m, n, k0, k1) -> (k0, k1, n)>, affine_map<(m, n, k0, k1) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a3, %b3 : memref<64x3x300xf32>, memref<3x300x600xf32>) outs(%c : memref<64x600xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %r : tensor<64x600xf32>
}

// A[i, k] = (i + 2k) mod 7 and B[k, j] = (3k + j) mod 5; the products
// (numpy's A @ B) at the corners of tiles and inside one.
// OUT: 1801
// OUT-NEXT: 1795
// OUT-NEXT: 1795
// OUT-NEXT: 1818
// OUT-NEXT: 1795
// MAIN| #id = affine_map<(i, j) -> (i, j)>
// MAIN| func.func @product(%a: tensor<40x300xf32>, %b: tensor<300x270xf32>) -> tensor<40x270xf32> {
// MAIN|   %c = kernel.matmul %a, %b : tensor<40x300xf32>, tensor<300x270xf32>
// MAIN|   return %c : tensor<40x270xf32>
// MAIN| }
// MAIN| func.func @residues(%rows: index, %cols: index, %r: index, %c: index, %m: index, %empty: tensor<?x?xf32>) -> tensor<?x?xf32> {
// MAIN|   %t = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%empty : tensor<?x?xf32>) {
// MAIN|   ^bb0(%out: f32):
// MAIN|     %i = linalg.index 0 : index
// MAIN|     %j = linalg.index 1 : index
// MAIN|     %ri = arith.muli %i, %r : index
// MAIN|     %cj = arith.muli %j, %c : index
// MAIN|     %s = arith.addi %ri, %cj : index
// MAIN|     %v = arith.remui %s, %m : index
// MAIN|     %w = arith.index_cast %v : index to i32
// MAIN|     %f = arith.sitofp %w : i32 to f32
// MAIN|     linalg.yield %f : f32
// MAIN|   } -> tensor<?x?xf32>
// MAIN|   return %t : tensor<?x?xf32>
// MAIN| }
// MAIN| func.func @main() {
// MAIN|   %c0 = arith.constant 0 : index
// MAIN|   %c1 = arith.constant 1 : index
// MAIN|   %c2 = arith.constant 2 : index
// MAIN|   %c3 = arith.constant 3 : index
// MAIN|   %c5 = arith.constant 5 : index
// MAIN|   %c7 = arith.constant 7 : index
// MAIN|   %c17 = arith.constant 17 : index
// MAIN|   %c31 = arith.constant 31 : index
// MAIN|   %c32 = arith.constant 32 : index
// MAIN|   %c39 = arith.constant 39 : index
// MAIN|   %c40 = arith.constant 40 : index
// MAIN|   %c100 = arith.constant 100 : index
// MAIN|   %c255 = arith.constant 255 : index
// MAIN|   %c256 = arith.constant 256 : index
// MAIN|   %c269 = arith.constant 269 : index
// MAIN|   %c270 = arith.constant 270 : index
// MAIN|   %c300 = arith.constant 300 : index
// MAIN|   %ea = tensor.empty(%c40, %c300) : tensor<?x?xf32>
// MAIN|   %eb = tensor.empty(%c300, %c270) : tensor<?x?xf32>
// MAIN|   %da = call @residues(%c40, %c300, %c1, %c2, %c7, %ea) : (index, index, index, index, index, tensor<?x?xf32>) -> tensor<?x?xf32>
// MAIN|   %db = call @residues(%c300, %c270, %c3, %c1, %c5, %eb) : (index, index, index, index, index, tensor<?x?xf32>) -> tensor<?x?xf32>
// MAIN|   %a = tensor.cast %da : tensor<?x?xf32> to tensor<40x300xf32>
// MAIN|   %b = tensor.cast %db : tensor<?x?xf32> to tensor<300x270xf32>
// MAIN|   %p = call @product(%a, %b) : (tensor<40x300xf32>, tensor<300x270xf32>) -> tensor<40x270xf32>
// MAIN|   %p0 = tensor.extract %p[%c0, %c0] : tensor<40x270xf32>
// MAIN|   %p1 = tensor.extract %p[%c31, %c255] : tensor<40x270xf32>
// MAIN|   %p2 = tensor.extract %p[%c32, %c256] : tensor<40x270xf32>
// MAIN|   %p3 = tensor.extract %p[%c39, %c269] : tensor<40x270xf32>
// MAIN|   %p4 = tensor.extract %p[%c17, %c100] : tensor<40x270xf32>
// MAIN|   vector.print %p0 : f32
// MAIN|   vector.print %p1 : f32
// MAIN|   vector.print %p2 : f32
// MAIN|   vector.print %p3 : f32
// MAIN|   vector.print %p4 : f32
// MAIN|   return
// MAIN| }
