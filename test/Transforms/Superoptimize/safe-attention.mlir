// Attention with a safe softmax, as front ends emit it (torch's softmax
// subtracts the row maximum): S = Q K, P = exp(S - max_j S) / sum_j
// exp(S - max_j S), O = P V, seven kernel ops. The maximum and its
// subtraction count nothing against max-kernel-ops, so the default limit of
// five keeps the whole attention in one subprogram (cut, the scores made a
// device-memory round trip: four kernels). With 64 query rows and 4096
// keys the search finds flash-decoding with the safe softmax: the first
// kernel splits the keys into 16 chunks and stores each chunk's maximum m_c
// beside exp(S - m_c) V and the sum of exp(S - m_c); the second walks the
// chunks with a max accumulator and rescales both partial results by it
// (sum_c x_c exp(m_c - M)), then divides. The scores (64 x 4096) never
// reach device memory, and no exp takes a value that was not reduced by a
// maximum.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=20 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// The search runs to its timeout; its remark says when it found the
// answer.
// REMARK: remark: superoptimize: replaced 7 kernel ops {{.*}} by 2 kernels {{.*}} (timed out){{.*}}; the best found after {{[0-9]+\.[0-9]}} s
// CHECK-LABEL: func.func @safe_attention(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: %[[P:.*]]:3 = kernel.custom(%arg0, %arg1, %arg2) grid <{{[0-9]+}}, {{[0-9]+}}, 16>
// CHECK-SAME: -> (tensor<2x64x16xf32>, tensor<2x64x1024xf32>, tensor<2x64x16xf32>)
// CHECK: block.reduce_max
// CHECK: thread.binary sub
// CHECK: thread.unary exp
// CHECK: block.matmul
// CHECK: block.reduce_sum
// CHECK: kernel.custom(%[[P]]#0, %[[P]]#1, %[[P]]#2)
// CHECK: block.for_loop 16 iterations accumulate (max, rescale by 0, rescale by 0)
// CHECK: thread.binary div
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: remark: @safe_attention is equivalent to @safe_attention_reference

// With the scale (Q K) / 8, as torch's scaled_dot_product_attention
// decomposes: raising moves the scale to Q, the cut leaves it alone (it
// would otherwise take the division's place), the search finds the same
// two kernels for the other seven ops, and the scale then runs on the Q
// tiles of the first.
// REMARK: remark: superoptimize: kept the subprogram of 1 kernel ops
// REMARK: remark: superoptimize: replaced 7 kernel ops {{.*}} by 2 kernels
// REMARK: remark: superoptimize: fused across the cut: 1 launches fewer{{.*}} @scaled_safe_attention launches 2 kernels
// CHECK-LABEL: func.func @scaled_safe_attention(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: %[[P:.*]]:3 = kernel.custom(%arg0, %arg1, %arg2) grid <{{[0-9]+}}, {{[0-9]+}}, 16>
// CHECK: thread.mul_scalar {{.*}}, 1.250000e-01
// CHECK: block.reduce_max
// CHECK: kernel.custom(%[[P]]#0, %[[P]]#1, %[[P]]#2)
// CHECK: block.for_loop 16 iterations accumulate (max, rescale by 0, rescale by 0)
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: remark: @scaled_safe_attention is equivalent to @scaled_safe_attention_reference

func.func @safe_attention(%q: tensor<2x64x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x64x64xf16> {
  %s = kernel.matmul %q, %k : tensor<2x64x64xf16>, tensor<2x64x4096xf16>
  %m = kernel.reduce_max %s dim 2 : tensor<2x64x4096xf16>
  %d = kernel.sub %s, %m : tensor<2x64x4096xf16>, tensor<2x64x1xf16>
  %e = kernel.exp %d : tensor<2x64x4096xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x64x4096xf16>
  %ev = kernel.matmul %e, %v : tensor<2x64x4096xf16>, tensor<2x4096x64xf16>
  %o = kernel.div %ev, %l : tensor<2x64x64xf16>, tensor<2x64x1xf16>
  return %o : tensor<2x64x64xf16>
}

func.func @scaled_safe_attention(%q: tensor<2x64x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x64x64xf16> {
  %s0 = kernel.matmul %q, %k : tensor<2x64x64xf16>, tensor<2x64x4096xf16>
  %s = kernel.mul_scalar %s0, 0.125 : tensor<2x64x4096xf16>
  %m = kernel.reduce_max %s dim 2 : tensor<2x64x4096xf16>
  %d = kernel.sub %s, %m : tensor<2x64x4096xf16>, tensor<2x64x1xf16>
  %e = kernel.exp %d : tensor<2x64x4096xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x64x4096xf16>
  %ev = kernel.matmul %e, %v : tensor<2x64x4096xf16>, tensor<2x4096x64xf16>
  %o = kernel.div %ev, %l : tensor<2x64x64xf16>, tensor<2x64x1xf16>
  return %o : tensor<2x64x64xf16>
}
