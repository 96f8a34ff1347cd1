// The remark after the fusions gives the launches the GPU pipeline makes,
// as the cost model counts them: the sum over rows of 65536, kept as a
// kernel op, is a split reduction there, two launches (its partial sums,
// then their sum). Counted as kernel ops, the remark said 2 launches for 3.
// (max-kernel-ops=1 leaves the exp to join the matmul's kernel after the
// search, which is what the remark reports.)
// RUN: mlsopt-opt %s --superoptimize="timeout=5 max-kernel-ops=1" -o %t 2>&1 | FileCheck %s
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 | FileCheck %s --check-prefix=GPU
// CHECK: remark: superoptimize: fused across the cut: 1 launches fewer{{.*}}; @f launches 3 kernels ({{.*}}), 4 before
// GPU-LABEL: func.func @f(
// GPU-COUNT-3: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return

func.func @f(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>, %r: tensor<3x65536xf32>) -> (tensor<64x64xf32>, tensor<3x1xf32>) {
  %m = kernel.matmul %x, %w : tensor<64x64xf32>, tensor<64x64xf32>
  %e = kernel.exp %m : tensor<64x64xf32>
  %s = kernel.reduce_sum %r dim 1 : tensor<3x65536xf32>
  return %e, %s : tensor<64x64xf32>, tensor<3x1xf32>
}
