// A long search stays within a fixed memory budget. A softmax (with its row
// maximum) has millions of block graphs at 10 and 11 block ops; keeping
// them all for building programs of several kernels took the search past
// 5 GB in 20 s and 13 GB in 40 s. Each layout skeleton now keeps at most
// 2^14 of them per level, and the cache of levels at most 2^19, so the
// whole pass runs in under 2 GiB of address space (the cap below, RLIMIT_AS:
// exceeding it fails the allocation and the test).
// RUN: %python %S/Inputs/limited.py --seconds 60 --memory-mb 2048 -- mlsopt-opt %s --superoptimize="timeout=15 threads=2" 2>/dev/null | FileCheck %s

// CHECK-LABEL: func.func @softmax(
// CHECK: kernel.custom
// CHECK-NOT: kernel.{{reduce_max|exp|div}}
// CHECK: return

func.func @softmax(%x: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<8x4096xf16>
  %d = kernel.sub %x, %m : tensor<8x4096xf16>, tensor<8x1xf16>
  %e = kernel.exp %d : tensor<8x4096xf16>
  %s = kernel.reduce_sum %e dim 1 : tensor<8x4096xf16>
  %o = kernel.div %e, %s : tensor<8x4096xf16>, tensor<8x1xf16>
  return %o : tensor<8x4096xf16>
}
