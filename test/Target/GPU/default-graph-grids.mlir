// Default block graphs of ops with more dims than the grid, on sm_80
// (166912 bytes of shared memory per block). Each failed before: its tiles
// kept whole dims the grid could have split, or its shared memory was
// estimated without the second buffers of the loads a loop prefetches.
// REQUIRES: ptxas
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlsopt-translate --emit-ptx %t.mlir -o %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// Batch dims take the grid dims n and m leave free: 5 x 2 blocks of one
// 64x64 product each, not 2 blocks of five (whose double-buffered tiles
// needed 204800 bytes).
// CHECK-LABEL: func.func @batched_pairs
// CHECK: gpu.launch_func @mlsopt_kernels::@batched_pairs_kernel0 blocks in (%c5, %c1, %c2)
func.func @batched_pairs(%a: tensor<5x2x64x64xf16>, %b: tensor<5x2x64x64xf16>) -> tensor<5x2x64x64xf16> {
  %0 = kernel.matmul %a, %b : tensor<5x2x64x64xf16>, tensor<5x2x64x64xf16>
  return %0 : tensor<5x2x64x64xf16>
}

// [batch, heads, m, n]: x takes the 128 batches, as n needs no split.
// CHECK-LABEL: func.func @batch_and_heads
// CHECK: gpu.launch_func @mlsopt_kernels::@batch_and_heads_kernel0 blocks in (%c128, %c2, %c16)
func.func @batch_and_heads(%a: tensor<128x16x128x64xf16>, %b: tensor<128x16x64x64xf16>) -> tensor<128x16x128x64xf16> {
  %0 = kernel.matmul %a, %b : tensor<128x16x128x64xf16>, tensor<128x16x64x64xf16>
  return %0 : tensor<128x16x128x64xf16>
}

// Four dims to split and three grid dims: the 38 rows go on the grid and a
// dim of 2 stays in the tile.
// CHECK-LABEL: func.func @rank_four_elementwise
// CHECK: gpu.launch_func @mlsopt_kernels::@rank_four_elementwise_kernel0 blocks in (%c2, %c2, %c38)
func.func @rank_four_elementwise(%a: tensor<38x2x2x1024xf32>) -> tensor<38x2x2x1024xf32> {
  %0 = kernel.exp %a : tensor<38x2x2x1024xf32>
  return %0 : tensor<38x2x2x1024xf32>
}

// A batch past grid z's 65535 blocks goes on x, which n leaves free.
// CHECK-LABEL: func.func @long_batch
// CHECK: gpu.launch_func @mlsopt_kernels::@long_batch_kernel0 blocks in (%c70000, %c1, %c1)
func.func @long_batch(%a: tensor<70000x16x16xf16>, %b: tensor<70000x16x16xf16>) -> tensor<70000x16x16xf16> {
  %0 = kernel.matmul %a, %b : tensor<70000x16x16xf16>, tensor<70000x16x16xf16>
  return %0 : tensor<70000x16x16xf16>
}
