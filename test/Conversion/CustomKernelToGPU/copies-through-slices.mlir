// RUN: mlsopt-opt %s --convert-kernel-to-custom --fold-slices-into-loads --convert-custom-kernel-to-gpu=chip=sm_90 | FileCheck %s

// A copy kernel (of a transpose, a conversion or a slice) reads the tensor
// a static slice cuts, at the slice's indices, so the slice needs no
// kernel of its own: one launch per copy, none per slice.

// CHECK-LABEL: func.func @transposed_slice
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
// A conversion of a slice at an odd offset, then a reduction: two launches.
// CHECK-LABEL: func.func @converted_slice
// CHECK: gpu.launch_func @mlsopt_kernels::@converted_slice_kernel0 {{.*}} args(%arg0 : memref<8x64xf16>,
// CHECK: gpu.launch_func @mlsopt_kernels::@converted_slice_kernel1
// CHECK-NOT: gpu.launch_func
// CHECK: return
// A slice of a slice, returned and negated: one copy from %x into the
// result, and the negation reads %x through the window the two slices
// make.
// CHECK-LABEL: func.func @nested_slices
// CHECK: gpu.launch_func @mlsopt_kernels::@nested_slices_kernel0 {{.*}} args(%arg0 : memref<7x13xbf16>, %arg1 : memref<3x5xbf16>)
// CHECK: gpu.launch_func @mlsopt_kernels::@nested_slices_kernel1 {{.*}} args(%arg0 : memref<7x13xbf16>, %arg2 : memref<3x5xbf16>)
// CHECK-NOT: gpu.launch_func
// CHECK: return

// k^T of k sliced from a fused projection: result [i, j] is h[j, 64 + i].
// CHECK-LABEL: gpu.func @transposed_slice_kernel0(%arg0: memref<16x192xf16>, %arg1: memref<64x16xf16>)
// CHECK: %[[J:.*]] = arith.remui %{{.*}}, %c16 : index
// CHECK: %[[ROW:.*]] = arith.divui
// CHECK: %[[I:.*]] = arith.remui %[[ROW]], %c64 : index
// CHECK: %[[COL:.*]] = arith.addi %c64{{.*}}, %[[I]] : index
// CHECK: %[[V:.*]] = memref.load %arg0[%[[J]], %[[COL]]] : memref<16x192xf16>
// CHECK: memref.store %[[V]], %arg1[%[[I]], %[[J]]] : memref<64x16xf16>

// The conversion reads x[r, 3 + c].
// CHECK-LABEL: gpu.func @converted_slice_kernel0(%arg0: memref<8x64xf16>, %arg1: memref<8x40xf32>)
// CHECK: %[[C:.*]] = arith.remui %{{.*}}, %c40 : index
// CHECK: %[[R:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK: %[[AT:.*]] = arith.addi %c3{{.*}}, %[[C]] : index
// CHECK: memref.load %arg0[%[[R]], %[[AT]]] : memref<8x64xf16>
// CHECK: arith.extf

// The copy composes the two slices: x[1 + (1 + r), 1 + (5 + c)].
// CHECK-LABEL: gpu.func @nested_slices_kernel0(%arg0: memref<7x13xbf16>, %arg1: memref<3x5xbf16>)
// CHECK: %[[C:.*]] = arith.remui %{{.*}}, %c5{{.*}} : index
// CHECK: %[[R:.*]] = arith.remui %{{.*}}, %c3{{.*}} : index
// CHECK: %[[R1:.*]] = arith.addi %c1{{.*}}, %[[R]] : index
// CHECK: %[[C1:.*]] = arith.addi %c5{{.*}}, %[[C]] : index
// CHECK: %[[R2:.*]] = arith.addi %c1{{.*}}, %[[R1]] : index
// CHECK: %[[C2:.*]] = arith.addi %c1{{.*}}, %[[C1]] : index
// CHECK: memref.load %arg0[%[[R2]], %[[C2]]] : memref<7x13xbf16>

func.func @transposed_slice(%h: tensor<16x192xf16>) -> tensor<64x16xf16> {
  %k = tensor.extract_slice %h[0, 64] [16, 64] [1, 1] : tensor<16x192xf16> to tensor<16x64xf16>
  %kt = kernel.transpose %k [1, 0] : tensor<16x64xf16>
  return %kt : tensor<64x16xf16>
}

func.func @converted_slice(%x: tensor<8x64xf16>) -> tensor<8x1xf32> {
  %s = tensor.extract_slice %x[0, 3] [8, 40] [1, 1] : tensor<8x64xf16> to tensor<8x40xf16>
  %c = kernel.convert %s : tensor<8x40xf16> to tensor<8x40xf32>
  %r = kernel.reduce_sum %c dim 1 : tensor<8x40xf32>
  return %r : tensor<8x1xf32>
}

func.func @nested_slices(%x: tensor<7x13xbf16>) -> (tensor<3x5xbf16>, tensor<3x5xbf16>) {
  %s1 = tensor.extract_slice %x[1, 1] [5, 11] [1, 1] : tensor<7x13xbf16> to tensor<5x11xbf16>
  %s2 = tensor.extract_slice %s1[1, 5] [3, 5] [1, 1] : tensor<5x11xbf16> to tensor<3x5xbf16>
  %e = kernel.neg %s2 : tensor<3x5xbf16>
  return %s2, %e : tensor<3x5xbf16>, tensor<3x5xbf16>
}
