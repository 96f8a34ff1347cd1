// Clusters are placed whole, so a join must not make two clusters each
// need the other first: a path that enters a third cluster at one op and
// leaves it at another orders that cluster between them, even where the
// two ops are unrelated. Judged by op edges alone, this function's clusters
// formed such a cycle; the reorder then left them where they were, after
// ops it had moved ahead, and the sub of %a read it before its definition
// ("operand #0 does not dominate this use"). No search runs at timeout=0,
// so the output is the partition's order.
// RUN: mlsopt-opt %s --superoptimize="timeout=0" 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: remark: superoptimize: kept the subprogram of 3 kernel ops
// REMARK-COUNT-2: remark: superoptimize: kept the subprogram of 5 kernel ops
// REMARK-NOT: remark
// CHECK-LABEL: func.func @f(
// CHECK: %[[A:.*]] = kernel.exp %arg0
// CHECK: %[[C:.*]] = kernel.neg %arg0
// CHECK: %[[RC:.*]] = kernel.reduce_sum %[[C]] dim 1
// CHECK: kernel.sub %[[A]], %[[RC]]
// CHECK: return

func.func @f(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %a = kernel.exp %x : tensor<8x64xf32>
  %b = kernel.sigmoid %x : tensor<8x64xf32>
  %c = kernel.neg %x : tensor<8x64xf32>
  %d = kernel.tanh %c : tensor<8x64xf32>
  %rc = kernel.reduce_sum %c dim 1 : tensor<8x64xf32>
  %e = kernel.sub %a, %rc : tensor<8x64xf32>, tensor<8x1xf32>
  %rb = kernel.reduce_sum %b dim 1 : tensor<8x64xf32>
  %f = kernel.sub %d, %rb : tensor<8x64xf32>, tensor<8x1xf32>
  %g = kernel.square %e : tensor<8x64xf32>
  %rf = kernel.reduce_sum %f dim 1 : tensor<8x64xf32>
  %h = kernel.sub %x, %rf : tensor<8x64xf32>, tensor<8x1xf32>
  %i = kernel.max %b, %g : tensor<8x64xf32>, tensor<8x64xf32>
  %j = kernel.max %i, %h : tensor<8x64xf32>, tensor<8x64xf32>
  return %j : tensor<8x64xf32>
}
