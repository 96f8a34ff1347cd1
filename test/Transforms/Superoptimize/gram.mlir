// A Gram matrix X^T X, 64x64 over k = 4096. The library matmul would run
// as its default block graph, a split-k pair (one 64x64 output tile is too
// few blocks), and the cost model charges it as such: two launches and the
// f32 partial sums' round trip. The search finds one kernel of 128 blocks,
// each multiplying a column strip of X, transposed as loaded, by another
// over the whole of k, and reads X in place: no copy for the transpose.
// (Strips this narrow read X in rows of 4 and 32 bytes; the L2's share of
// each SM bounds every such grid alike, as each block reads 4096 rows.)
// Before, with the library matmul costed as an ideal kernel, the search
// kept it, and the program launched the split pair. Before the search,
// the program is three launches: the transpose, then the pair.
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// With the latency veto (the default) the one kernel loses: each of its 128 blocks walks
// all of k, which the latency term says is slower than the split pair, the
// transpose fused into the pair's first kernel (both split 4096 into 128
// chunks of 32; the second sums the f32 partials).
// RUN: mlsopt-opt %s --superoptimize="timeout=10" 2>&1 | FileCheck %s --check-prefix=VETO
// VETO: remark: superoptimize: kept the subprogram of 1 kernel ops (5.09 us); searched for
// VETO-NOT: kernel.transpose
// VETO: kernel.custom(%arg0) grid <1, 1, 128> {{.*}} -> tensor<64x8192xf32>
// VETO: kernel.custom(%0) grid <64, 1, 1> {{.*}} -> tensor<64x64xf16>

// REMARK: remark: superoptimize: replaced 1 kernel ops (5.09 us) by 1 kernels
// REMARK: @gram launches 1 kernels ({{.*}}), 3 before
// CHECK-LABEL: func.func @gram(
// CHECK-NOT: kernel.transpose
// CHECK: kernel.custom(%arg0) grid <32, 4, 1> block <128, 1, 1> : (tensor<4096x64xf16>) -> tensor<64x64xf16>
// CHECK: %[[L:.*]] = block.load %in0 imap <x = 1> : tensor<4096x64xf16> -> tensor<4096x2xf16>
// CHECK-NEXT: %[[T:.*]] = block.transpose %[[L]] [1, 0]
// CHECK-NEXT: %[[R:.*]] = block.load %in0 imap <y = 1> : tensor<4096x64xf16> -> tensor<4096x16xf16>
// CHECK-NEXT: block.matmul %[[T]], %[[R]]
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @gram is equivalent to @gram_reference

func.func @gram(%x: tensor<4096x64xf16>) -> tensor<64x64xf16> {
  %t = kernel.transpose %x [1, 0] : tensor<4096x64xf16>
  %g = kernel.matmul %t, %x : tensor<64x4096xf16>, tensor<4096x64xf16>
  return %g : tensor<64x64xf16>
}
