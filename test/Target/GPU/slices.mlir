// Kernels read the slices they take in place (--fold-slices-into-loads in
// the GPU pipeline): the halves of a fused gate-up product, in f16 and
// bf16, are two kernels and no copy kernel, and their tiles move in 16-byte
// cp.async copies, offset by the window. A window whose rows start at an
// odd element (3 f16 values in) moves element by element.
// REQUIRES: ptxas
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: FileCheck %s < %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 -o %t.sm_80.mlir
// RUN: FileCheck %s < %t.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_80.mlir -o %t.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin

// CHECK-LABEL: func.func @gate_up
// CHECK-NOT: extract_slice
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @gate_up(%h: tensor<8x5632xf16>) -> tensor<8x2816xf16> {
  %g = tensor.extract_slice %h[0, 0] [8, 2816] [1, 1] : tensor<8x5632xf16> to tensor<8x2816xf16>
  %u = tensor.extract_slice %h[0, 2816] [8, 2816] [1, 1] : tensor<8x5632xf16> to tensor<8x2816xf16>
  %s = kernel.silu %g : tensor<8x2816xf16>
  %m = kernel.mul %s, %u : tensor<8x2816xf16>, tensor<8x2816xf16>
  return %m : tensor<8x2816xf16>
}

// CHECK-LABEL: func.func @gate_up_bf16
// CHECK-NOT: extract_slice
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @gate_up_bf16(%h: tensor<4x256xbf16>) -> tensor<4x128xbf16> {
  %g = tensor.extract_slice %h[0, 0] [4, 128] [1, 1] : tensor<4x256xbf16> to tensor<4x128xbf16>
  %u = tensor.extract_slice %h[0, 128] [4, 128] [1, 1] : tensor<4x256xbf16> to tensor<4x128xbf16>
  %s = kernel.silu %g : tensor<4x128xbf16>
  %m = kernel.mul %s, %u : tensor<4x128xbf16>, tensor<4x128xbf16>
  return %m : tensor<4x128xbf16>
}

// CHECK-LABEL: func.func @odd_start
// CHECK-NOT: extract_slice
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @odd_start(%h: tensor<8x64xf16>) -> tensor<8x32xf16> {
  %c = tensor.extract_slice %h[0, 3] [8, 32] [1, 1] : tensor<8x64xf16> to tensor<8x32xf16>
  %r = kernel.relu %c : tensor<8x32xf16>
  return %r : tensor<8x32xf16>
}

// A view of a slice is the slice of a view: the matmul reads the second
// half of each row of x, viewed as 16 rows, in place.
// CHECK-LABEL: func.func @collapsed_slice
// CHECK-NOT: extract_slice
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @collapsed_slice(%x: tensor<2x8x32xf16>, %w: tensor<16x8xf16>) -> tensor<16x8xf16> {
  %s = tensor.extract_slice %x[0, 0, 16] [2, 8, 16] [1, 1, 1] : tensor<2x8x32xf16> to tensor<2x8x16xf16>
  %c = tensor.collapse_shape %s [[0, 1], [2]] : tensor<2x8x16xf16> into tensor<16x16xf16>
  %o = kernel.matmul %c, %w : tensor<16x16xf16>, tensor<16x8xf16>
  return %o : tensor<16x8xf16>
}

// The gate-up product's second kernel copies 16 bytes at a time, those of
// the up half 2816 f16 values (5632 bytes) into each row; the odd window's
// kernel loads single f16 values from 3 values in and copies none.
// PTX-LABEL: .entry gate_up_kernel1(
// PTX: cp.async.cg.shared.global {{.*}}, 16;
// PTX: cp.async.cg.shared.global {{.*}}+5632], 16;
// PTX-LABEL: .entry odd_start_kernel0(
// PTX-NOT: cp.async.cg
// PTX: ld.global.b16 {{.*}}+6];
// PTX-NOT: cp.async.cg
// PTX: ret;
