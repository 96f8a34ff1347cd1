// A log-softmax over a vocabulary of 32000 (LLaMA-2's), 4 rows: the row is
// split into 25 chunks of 1280 though the program outputs it (rows of 8192
// or more, docs/search.md "Split reductions"). The first kernel stores each
// chunk's maximum and its sum of exp(x - m_c); the second combines the 25
// chunks with max and rescale accumulators and computes x - max - log(sum)
// on the tile it loads after its loop. Before, 7 launches (14.68 us): each
// kernel that gave a row to one block was refused by the latency term.
// RUN: mlsopt-opt %s --superoptimize="timeout=8 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// REMARK: remark: superoptimize: replaced 6 kernel ops ({{.*}}) by 2 kernels
// CHECK-LABEL: func.func @log_softmax(
// CHECK: %[[P:.*]]:2 = kernel.custom(%arg0) grid <{{[0-9]+}}, 25, 1> {{.*}} -> (tensor<4x25xf32>, tensor<4x25xf32>)
// CHECK: accumulate (max, sum)
// CHECK: block.load %in0 {{.*}} : tensor<4x32000xf16> -> tensor<{{[0-9]+}}x1280xf32>
// CHECK: block.reduce_max
// CHECK: thread.unary exp
// CHECK: block.reduce_sum
// CHECK: kernel.custom(%arg0, %[[P]]#0, %[[P]]#1)
// CHECK: block.for_loop 25 iterations accumulate (max, rescale by 0)
// CHECK: thread.unary log
// CHECK: block.store {{.*}} into tensor<4x32000xf16>
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @log_softmax is equivalent to @log_softmax_reference

func.func @log_softmax(%x: tensor<4x32000xf16>) -> tensor<4x32000xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<4x32000xf16>
  %d = kernel.sub %x, %m : tensor<4x32000xf16>, tensor<4x1xf16>
  %e = kernel.exp %d : tensor<4x32000xf16>
  %s = kernel.reduce_sum %e dim 1 : tensor<4x32000xf16>
  %l = kernel.log %s : tensor<4x1xf16>
  %o = kernel.sub %d, %l : tensor<4x32000xf16>, tensor<4x1xf16>
  return %o : tensor<4x32000xf16>
}
