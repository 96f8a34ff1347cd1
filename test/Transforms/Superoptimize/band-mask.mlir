// Attention with a sliding window of 32 keys and its causal edge, as two
// masks in a row (query i sees keys i-31..i). The band is one select per
// element, and the search counts the chained mask with the one below it:
// counted apart, the one-kernel schedule needs 12 block ops, one over the
// default max-block-ops, and the search kept the 9 kernels as written.
// RUN: mlsopt-opt %s --superoptimize="timeout=20 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// A band cut one key short is not equivalent, and the verifier says so:
// RUN: sed 's/\(block.triangle_fill.*\)diagonal 32/\1diagonal 31/' %t | not mlsopt-opt --verify-equivalence 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=WRONG
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 | FileCheck %s --check-prefix=HOST

// REMARK: remark: superoptimize: replaced 9 kernel ops {{.*}} by 1 kernels
// CHECK-LABEL: func.func @band(
// CHECK: kernel.custom
// CHECK: %[[CAUSAL:.*]] = block.triangle_fill %{{.*}} dims [1, 2] diagonal 1 value 0xFFF0000000000000
// CHECK: block.triangle_fill %[[CAUSAL]] dims [2, 1] diagonal 32 value 0xFFF0000000000000
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @band is equivalent to @band_reference
// WRONG: error: @band is not equivalent to @band_reference
// HOST-LABEL: func.func @band(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: return

func.func @band(%q: tensor<2x128x64xf32>, %kt: tensor<2x64x128xf32>, %v: tensor<2x128x64xf32>) -> tensor<2x128x64xf32> {
  %s = kernel.matmul %q, %kt : tensor<2x128x64xf32>, tensor<2x64x128xf32>
  %c = kernel.triangle_fill %s dims [1, 2] diagonal 1 value 0xFFF0000000000000 : tensor<2x128x128xf32>
  %w = kernel.triangle_fill %c dims [2, 1] diagonal 32 value 0xFFF0000000000000 : tensor<2x128x128xf32>
  %m = kernel.reduce_max %w dim 2 : tensor<2x128x128xf32>
  %d = kernel.sub %w, %m : tensor<2x128x128xf32>, tensor<2x128x1xf32>
  %e = kernel.exp %d : tensor<2x128x128xf32>
  %r = kernel.reduce_sum %e dim 2 : tensor<2x128x128xf32>
  %p = kernel.div %e, %r : tensor<2x128x128xf32>, tensor<2x128x1xf32>
  %o = kernel.matmul %p, %v : tensor<2x128x128xf32>, tensor<2x128x64xf32>
  return %o : tensor<2x128x64xf32>
}
