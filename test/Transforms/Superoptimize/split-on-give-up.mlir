// A subprogram whose search finds nothing faster than it after
// give-up-after seconds (20 by default; 1 here), or half its time if that
// is later, is searched in pieces with the time left. With max-block-ops=10, one
// block op short of this padded causal attention's one-kernel μGraph, the
// search of the whole attention (ten ops, weight five) finds nothing; kept
// whole, its ops were 8 launches. Cut into pieces of weight three at most,
// the scores' kernel and the softmax with the product by V are each found.
// RUN: mlsopt-opt %s --superoptimize="max-block-ops=10 timeout=16 give-up-after=1" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --superoptimize="max-block-ops=10 timeout=16 give-up-after=1 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// REMARK: remark: superoptimize: searching the subprogram of 10 kernel ops ({{.*}} us) in pieces: nothing faster was found in {{[0-9.]+}} s
// REMARK: remark: superoptimize: replaced {{[0-9]+}} kernel ops
// REMARK: @padded_causal launches {{[1-4]}} kernels
// CHECK-LABEL: func.func @padded_causal(
// CHECK: kernel.custom
// CHECK: return
// VERIFY: remark: @padded_causal is equivalent to @padded_causal_reference

func.func @padded_causal(%q: tensor<2x2x16x64xf32>, %k: tensor<2x2x64x16xf32>, %v: tensor<2x2x16x64xf32>, %mask: tensor<2x1x1x16xi1>) -> tensor<2x2x16x64xf32> {
  %s0 = kernel.matmul %q, %k : tensor<2x2x16x64xf32>, tensor<2x2x64x16xf32>
  %s1 = kernel.mul_scalar %s0, 0.125 : tensor<2x2x16x16xf32>
  %keep = kernel.where %mask, 0.0, 0xFFF0000000000000 : tensor<2x1x1x16xi1> to tensor<2x1x1x16xf32>
  %s2 = kernel.add %s1, %keep : tensor<2x2x16x16xf32>, tensor<2x1x1x16xf32>
  %s = kernel.triangle_fill %s2 dims [2, 3] diagonal 1 value 0xFFF0000000000000 : tensor<2x2x16x16xf32>
  %m = kernel.reduce_max %s dim 3 : tensor<2x2x16x16xf32>
  %d = kernel.sub %s, %m : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>
  %e = kernel.exp %d : tensor<2x2x16x16xf32>
  %l = kernel.reduce_sum %e dim 3 : tensor<2x2x16x16xf32>
  %p = kernel.div %e, %l : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>
  %o = kernel.matmul %p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x64xf32>
  return %o : tensor<2x2x16x64xf32>
}
