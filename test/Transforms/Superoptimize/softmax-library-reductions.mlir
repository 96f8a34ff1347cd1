// A safe softmax over rows of 8192 f16 elements, 8 rows. A kernel that
// gives each row to one block walks the row with one warp per reduction,
// which the latency term says is slower than the input (7 launches: each
// row reduction is a split pair).
//
// Before rows the program outputs could be split into chunks, the best the
// search found kept both reductions as library kernels and computed the
// elementwise ops between them in small kernels: 6 launches (12.26 us).
// Three things had been missing for that, and stay: a row max kept as a
// library kernel is costed with its f16 loads converting; after its
// sweeps, the literal pass weighs every program of as many kernels as the
// input has ops, with custom kernels of up to 5 block ops; and the closing
// fusion joins the division by a library row sum to the exp's kernel.
//
// Now the row class, 8192 long, has a chunk class (8 chunks of 1024)
// though the program outputs it, and the split-pair sweep finds
// flash-decoding's two kernels: each of 8 x 8 blocks stores its chunk's
// maximum and its sum of exp(x - m_c); the second kernel walks the 8
// chunks with max and rescale accumulators and computes exp(x - max) / sum
// on a tile of x loaded after its loop (4.09 us, 8.59 with latency).
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// REMARK: remark: superoptimize: replaced 5 kernel ops ({{.*}}) by 2 kernels

// CHECK-LABEL: func.func @softmax(
// CHECK-NOT: kernel.convert
// CHECK: %[[P:.*]]:2 = kernel.custom(%arg0) grid <8, 8, 1> {{.*}} -> (tensor<8x8xf32>, tensor<8x8xf32>)
// CHECK: accumulate (max, sum)
// CHECK: block.load %in0 {{.*}} : tensor<8x8192xf16> -> tensor<1x1024xf32>
// CHECK: thread.binary sub
// CHECK: thread.unary exp
// CHECK: kernel.custom(%arg0, %[[P]]#0, %[[P]]#1)
// CHECK: block.for_loop 8 iterations accumulate (max, rescale by 0)
// CHECK: thread.binary div
// CHECK: block.store {{.*}} into tensor<8x8192xf16>
// CHECK-NOT: kernel.
// CHECK: return

// VERIFY: remark: @softmax is equivalent to @softmax_reference

func.func @softmax(%x: tensor<8x8192xf16>) -> tensor<8x8192xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<8x8192xf16>
  %d = kernel.sub %x, %m : tensor<8x8192xf16>, tensor<8x1xf16>
  %e = kernel.exp %d : tensor<8x8192xf16>
  %s = kernel.reduce_sum %e dim 1 : tensor<8x8192xf16>
  %o = kernel.div %e, %s : tensor<8x8192xf16>, tensor<8x1xf16>
  return %o : tensor<8x8192xf16>
}
