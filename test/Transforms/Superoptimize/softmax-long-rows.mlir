// A safe softmax over rows of 131072 f16 elements (256 KiB, more than a
// block's shared memory on any target) becomes two kernels, flash-decoding
// style: the first splits each row into 32 chunks across the grid and
// stores each chunk's maximum m_c and its sum of exp(x - m_c); the second
// walks the 32 chunks with a `max` accumulator and a `rescale by 0` one,
// which brings every chunk's sum to the row's maximum, and then computes
// exp(x - max) / sum on the tile of x it loads after the loop. Before the
// chunks, the statistics kernel walked each whole row in one block (online
// softmax, 8 blocks), and before that the result was four kernels.
//
// The maximum stays: exp(x) / sum(exp(x)) is equivalent under the axioms
// (the subtracted maximum cancels) and was what the search first found,
// but exp overflows f16 past 11, which the program's exp(x - max(x)) never
// does. Every exp of the program takes a value a maximum was subtracted
// from, so every exp the search builds must too.
// RUN: mlsopt-opt %s --superoptimize="timeout=15" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: remark: superoptimize: replaced 5 kernel ops {{.*}} by 2 kernels
// CHECK-LABEL: func.func @softmax_long(
// CHECK: kernel.custom{{.*}} grid <{{[0-9]+}}, 32, 1>
// CHECK-SAME: -> (tensor<8x32xf32>, tensor<8x32xf32>)
// CHECK: block.for_loop 1 iterations accumulate (max, sum)
// CHECK: block.reduce_max
// CHECK: thread.binary sub
// CHECK-NEXT: thread.unary exp
// CHECK: block.reduce_sum
// CHECK: block.store
// CHECK: kernel.custom
// CHECK: block.for_loop 32 iterations accumulate (max, rescale by 0)
// CHECK: block.load %in0 {{.*}} : tensor<8x131072xf16>
// CHECK: thread.binary sub
// CHECK-NEXT: thread.unary exp
// CHECK-NEXT: thread.binary div
// CHECK: block.store
// CHECK-NOT: kernel.
// CHECK: return

func.func @softmax_long(%x: tensor<8x131072xf16>) -> tensor<8x131072xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<8x131072xf16>
  %d = kernel.sub %x, %m : tensor<8x131072xf16>, tensor<8x1xf16>
  %e = kernel.exp %d : tensor<8x131072xf16>
  %l = kernel.reduce_sum %e dim 1 : tensor<8x131072xf16>
  %o = kernel.div %e, %l : tensor<8x131072xf16>, tensor<8x1xf16>
  return %o : tensor<8x131072xf16>
}
