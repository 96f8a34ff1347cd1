// A safe softmax over rows of 131072 f16 elements (256 KiB, more than a
// block's shared memory on any target) becomes two kernels: the first
// walks each row with a for-loop whose `max` accumulator tracks the row
// maximum and whose `rescale by 0` accumulator sums exp(x - m_i) brought
// to it (online softmax); the second computes exp(x - max) / sum
// elementwise. Before, the statistics kernel could not loop over the dim
// the program outputs, and the result was four kernels.
//
// The maximum stays: exp(x) / sum(exp(x)) is equivalent under the axioms
// (the subtracted maximum cancels) and was what the search first found,
// but exp overflows f16 past 11, which the program's exp(x - max(x)) never
// does. Every exp of the program takes a value a maximum was subtracted
// from, so every exp the search builds must too.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=15" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: remark: superoptimize: replaced 5 kernel ops {{.*}} by 2 kernels
// CHECK-LABEL: func.func @softmax_long(
// CHECK: kernel.custom
// CHECK: block.for_loop {{[0-9]+}} iterations accumulate (max, rescale by 0)
// CHECK: block.reduce_max
// CHECK: thread.binary sub
// CHECK-NEXT: thread.unary exp
// CHECK: block.store
// CHECK: kernel.custom
// CHECK: thread.binary sub
// CHECK: thread.unary exp
// CHECK: thread.binary div
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
