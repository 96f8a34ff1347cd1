// The same input and options give the same program for any thread count.
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=30" -o %t.1 2>/dev/null
// RUN: mlsopt-opt %s --superoptimize="threads=2 timeout=30" -o %t.2 2>/dev/null
// RUN: mlsopt-opt %s --superoptimize="threads=4 timeout=30" -o %t.4 2>/dev/null
// RUN: diff %t.1 %t.2
// RUN: diff %t.1 %t.4
// RUN: FileCheck %s < %t.1
// CHECK-COUNT-2: kernel.custom

func.func @f(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %e = kernel.exp %x : tensor<64x256xf32>
  %m = kernel.mul %e, %y : tensor<64x256xf32>, tensor<64x256xf32>
  return %m : tensor<64x256xf32>
}

func.func @g(%x: tensor<64x256xf32>, %w: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %m = kernel.matmul %x, %w : tensor<64x256xf32>, tensor<256x128xf32>
  %s = kernel.silu %m : tensor<64x128xf32>
  return %s : tensor<64x128xf32>
}
