// The ends of score chains (ScoreChains.h): a scale or a causal fill built
// from indices after the masks stays in the search problem, and the chain
// ends where it begins. The best μGraph of each is found in 0.1 to 0.2 s;
// the searches run to the timeout looking for a faster one.
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=5" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=5 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// A scale after the fill (`where(m, s, finfo.min) * 0.125`) stays in the
// problem after the chain: the search scales the folded add's tiles, and
// the chain is put back before the scale. The scale counted against
// max-kernel-ops, which cut the product by V off (2 launches).
// REMARK: :[[@LINE+25]]:{{.*}} remark: superoptimize: replaced 10 kernel ops {{.*}} by 1 kernels
// REMARK: @scale_after_fill launches 1 kernels
// CHECK-LABEL: func.func @scale_after_fill(
// CHECK-NEXT: kernel.custom(%arg0, %arg1, %arg2, %arg3)
// CHECK: thread.graph(
// CHECK-NEXT: ^bb0(%[[M:.*]]: i1, %[[S:.*]]: f32):
// CHECK-NEXT: %[[K:.*]] = thread.where %[[M]], 0.000000e+00, 0xFFF0000000000000
// CHECK-NEXT: %[[F:.*]] = thread.where %[[M]], 0xFFF0000000000000, -3.4028234663852886E+38
// CHECK-NEXT: %[[X:.*]] = thread.binary add %[[S]], %[[K]]
// CHECK-NEXT: %[[Y:.*]] = thread.binary max %[[X]], %[[F]]
// CHECK-NEXT: thread.mul_scalar %[[Y]], 1.250000e-01
// CHECK-NOT: kernel.
// CHECK: return
func.func @scale_after_fill(%q: tensor<2x2x16x32xf32>, %k: tensor<2x2x32x33xf32>, %v: tensor<2x2x33x32xf32>, %mask: tensor<1x1x16x33xi1>) -> tensor<2x2x16x32xf32> {
  %s0 = kernel.matmul %q, %k : tensor<2x2x16x32xf32>, tensor<2x2x32x33xf32>
  %keep = kernel.where %mask, 0.0, 0xFFF0000000000000 : tensor<1x1x16x33xi1> to tensor<1x1x16x33xf32>
  %kept = kernel.add %s0, %keep : tensor<2x2x16x33xf32>, tensor<1x1x16x33xf32>
  %fill = kernel.where %mask, 0xFFF0000000000000, -3.4028234663852886E+38 : tensor<1x1x16x33xi1> to tensor<1x1x16x33xf32>
  %s1 = kernel.max %kept, %fill : tensor<2x2x16x33xf32>, tensor<1x1x16x33xf32>
  %s = kernel.mul_scalar %s1, 0.125 : tensor<2x2x16x33xf32>
  %m = kernel.reduce_max %s dim 3 : tensor<2x2x16x33xf32>
  %d = kernel.sub %s, %m : tensor<2x2x16x33xf32>, tensor<2x2x16x1xf32>
  %e = kernel.exp %d : tensor<2x2x16x33xf32>
  %l = kernel.reduce_sum %e dim 3 : tensor<2x2x16x33xf32>
  %p = kernel.div %e, %l : tensor<2x2x16x33xf32>, tensor<2x2x16x1xf32>
  %o = kernel.matmul %p, %v : tensor<2x2x16x33xf32>, tensor<2x2x33x32xf32>
  return %o : tensor<2x2x16x32xf32>
}

// VERIFY: remark: @scale_after_fill is equivalent to @scale_after_fill_reference

// A padding fill, then a causal fill built from indices (a triangle fill)
// before the softmax, with no more keys than the head dim (the
// probabilities divided before their product by V). The chain ends at the
// triangle fill (it was no chain, and the attention 2 launches), and the
// fill of masked scores counts nothing in a block graph
// (BlockGraph::getNumBlockOps): one select in the generated code. Counted,
// the one-kernel graph was one block op past the default, and the search
// kept the whole attention (8 launches).
// REMARK: :[[@LINE+21]]:{{.*}} remark: superoptimize: replaced 11 kernel ops {{.*}} by 1 kernels
// REMARK: @padded_causal launches 1 kernels
// CHECK-LABEL: func.func @padded_causal(
// CHECK-NEXT: kernel.custom(%arg0, %arg1, %arg2, %arg3)
// CHECK: thread.binary max
// CHECK: block.triangle_fill
// CHECK-NOT: kernel.
// CHECK: return
func.func @padded_causal(%q: tensor<2x2x16x64xf32>, %k: tensor<2x2x64x16xf32>, %v: tensor<2x2x16x64xf32>, %mask: tensor<2x1x1x16xi1>) -> tensor<2x2x16x64xf32> {
  %s0 = kernel.matmul %q, %k : tensor<2x2x16x64xf32>, tensor<2x2x64x16xf32>
  %s1 = kernel.mul_scalar %s0, 0.125 : tensor<2x2x16x16xf32>
  %keep = kernel.where %mask, 0.0, 0xFFF0000000000000 : tensor<2x1x1x16xi1> to tensor<2x1x1x16xf32>
  %kept = kernel.add %s1, %keep : tensor<2x2x16x16xf32>, tensor<2x1x1x16xf32>
  %fill = kernel.where %mask, 0xFFF0000000000000, -1.0e4 : tensor<2x1x1x16xi1> to tensor<2x1x1x16xf32>
  %s2 = kernel.max %kept, %fill : tensor<2x2x16x16xf32>, tensor<2x1x1x16xf32>
  %s = kernel.triangle_fill %s2 dims [2, 3] diagonal 1 value 0xFFF0000000000000 : tensor<2x2x16x16xf32>
  %m = kernel.reduce_max %s dim 3 : tensor<2x2x16x16xf32>
  %d = kernel.sub %s, %m : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>
  %e = kernel.exp %d : tensor<2x2x16x16xf32>
  %l = kernel.reduce_sum %e dim 3 : tensor<2x2x16x16xf32>
  %p = kernel.div %e, %l : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>
  %o = kernel.matmul %p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x64xf32>
  return %o : tensor<2x2x16x64xf32>
}

// VERIFY: remark: @padded_causal is equivalent to @padded_causal_reference
