// A safe softmax over rows of 32768 f16 elements, computed in f32 as f16
// programs are: a row (128 KiB) fits a block's shared memory on sm_90
// (227 KiB) once the plan reuses the loaded
// row for the elementwise results (SharedMemoryPlan), so one kernel per
// row computes max, exp, sum and the division without a second pass over
// device memory.
//
// The exps it builds subtract the maximum. Before exp arguments had to
// subtract one (AbstractExpr::subtractsMax), the search took
// exp(x - m) / exp(m) for the numerator: equivalent after the division by
// the sum, but exp(m) overflows f16 for any row maximum past 11.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=8" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: remark: superoptimize: replaced 5 kernel ops {{.*}} by 1 kernels
// CHECK-LABEL: func.func @softmax_row(
// CHECK: kernel.custom
// CHECK: block.for_loop 1 iterations accumulate (sum) : tensor<1x32768xf32>
// CHECK: %[[ROW:.*]] = block.load
// CHECK: %[[MAX:.*]] = block.reduce_max %[[ROW]] dim 1
// CHECK: thread.graph(%[[ROW]], %[[MAX]])
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = thread.binary sub %[[X]], %[[M]]
// CHECK-NEXT: %[[E:.*]] = thread.unary exp %[[D]]
// CHECK-NEXT: thread.yield %[[E]]
// CHECK: block.reduce_sum
// CHECK: thread.binary div
// CHECK: block.store
// CHECK-NOT: kernel.
// CHECK: return

func.func @softmax_row(%x: tensor<8x32768xf16>) -> tensor<8x32768xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<8x32768xf16>
  %d = kernel.sub %x, %m : tensor<8x32768xf16>, tensor<8x1xf16>
  %e = kernel.exp %d : tensor<8x32768xf16>
  %l = kernel.reduce_sum %e dim 1 : tensor<8x32768xf16>
  %o = kernel.div %e, %l : tensor<8x32768xf16>, tensor<8x1xf16>
  return %o : tensor<8x32768xf16>
}
