// A Gram matrix X^T X: the search keeps the matmul (a library kernel at the
// cost bound) and leaves the transpose out of the subprogram. The matmul's
// default block graph is a split-k pair (one 64x64 output tile, k = 4096),
// so the transpose moves into its first kernel, which loads each chunk of X
// once, as stored, and multiplies its permuted tile by it: two launches and
// no copy of X.
// Before, the transpose stayed a copy kernel: it tied, to the byte, with an
// ideal library matmul, where what runs is the split pair. The partial
// sums stay f32 (tiles converted as loaded; 128 chunks of 32 rows fit
// shared memory in f32), and the second kernel rounds once.
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// REMARK: remark: superoptimize: kept the subprogram of 1 kernel ops
// CHECK-LABEL: func.func @gram(
// CHECK-NOT: kernel.transpose
// CHECK: %[[P:.*]] = kernel.custom(%arg0) grid <1, 1, 128> block <128, 1, 1> : (tensor<4096x64xf16>) -> tensor<64x8192xf32>
// CHECK: %[[T:.*]] = block.load %in0 imap <z = 0> : tensor<4096x64xf16> -> tensor<32x64xf32>
// CHECK-NEXT: %[[TT:.*]] = block.transpose %[[T]] [1, 0]
// CHECK-NEXT: block.matmul %[[TT]], %[[T]]
// CHECK: kernel.custom(%[[P]]) grid <64, 1, 1>
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @gram is equivalent to @gram_reference

func.func @gram(%x: tensor<4096x64xf16>) -> tensor<64x64xf16> {
  %t = kernel.transpose %x [1, 0] : tensor<4096x64xf16>
  %g = kernel.matmul %t, %x : tensor<64x4096xf16>, tensor<4096x64xf16>
  return %g : tensor<64x64xf16>
}
