// Last dims without a factor of two: the tile is their largest divisor up
// to 512 rather than one element (27 blocks of one element each, and 4097 =
// 17 x 241 in 4097 blocks), and the shared memory a launch asks for is
// rounded up to 16 bytes, since the kernel moves 16 bytes per access: the
// 108-byte tile of 27 floats is read to byte 112.
// REQUIRES: ptxas
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlsopt-translate --emit-ptx %t.mlir -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// The default block graphs behind those launches:
// RUN: mlsopt-opt %s --convert-kernel-to-custom | FileCheck %s --check-prefix=GRAPH

// CHECK-LABEL: func.func @row_of_27
// CHECK: gpu.launch_func @mlsopt_kernels::@row_of_27_kernel0 blocks in (%c4, %c1, %c1) {{.*}} dynamic_shared_memory_size %c112_i32
// GRAPH-LABEL: func.func @row_of_27
// GRAPH: block.load %{{.*}} imap <x = 0> : tensor<4x27xf32> -> tensor<1x27xf32>
func.func @row_of_27(%x: tensor<4x27xf32>) -> tensor<4x27xf32> {
  %0 = kernel.exp %x : tensor<4x27xf32>
  return %0 : tensor<4x27xf32>
}

// CHECK-LABEL: func.func @row_of_4097
// CHECK: gpu.launch_func @mlsopt_kernels::@row_of_4097_kernel0 blocks in (%c17, %c2, %c1)
// GRAPH-LABEL: func.func @row_of_4097
// GRAPH: block.load %{{.*}} imap <x = 1, y = 0> : tensor<2x4097xf16> -> tensor<1x241xf16>
func.func @row_of_4097(%x: tensor<2x4097xf16>, %y: tensor<2x4097xf16>) -> tensor<2x4097xf16> {
  %0 = kernel.add %x, %y : tensor<2x4097xf16>, tensor<2x4097xf16>
  return %0 : tensor<2x4097xf16>
}
