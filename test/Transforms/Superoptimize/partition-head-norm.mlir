// The cut tries the edges out of a query or key normalization last: an
// rms_norm of an input over the dim its matmul contracts, at most a head
// dim wide, joins the attention's kernels after the search, since their
// tiles span the head dim. In QKNorm with a safe softmax (nine ops, seven
// counted), K's norm (the larger input) took the division's place in the
// attention's subprogram, and the split kernel that normalizes K's tiles
// was out of the search's reach: at bench/beyond/qknorm_safe.mlir's shapes
// the scores went through device memory (three launches, 14.5 us; at 1024 keys,
// one kernel at 4.88 us when a 5 s search timed out). Now the norms are
// subprograms of their own, the attention (seven ops) is found in well
// under a second, and both norms run on its tiles in the for-loop. Over
// 4096 keys the attention is split over them (flash-decoding: a second
// kernel combines the partial sums); over 1024, the search now reads all
// of K in each block, whose f32 norm would not fit shared memory. (A
// hidden-size norm before a matmul, whose for-loop splits the normalized
// dim, stays in the matmul's subprogram: epilogue-across-subprograms.mlir.)
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=30" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// REMARK: partition-head-norm.mlir:[[#@LINE+15]]:{{.*}} remark: superoptimize: kept the subprogram of 1 kernel ops
// REMARK: partition-head-norm.mlir:[[#@LINE+15]]:{{.*}} remark: superoptimize: kept the subprogram of 1 kernel ops
// REMARK: partition-head-norm.mlir:[[#@LINE+21]]:{{.*}} remark: superoptimize: replaced 7 kernel ops {{.*}} by 2 kernels
// REMARK: remark: superoptimize: fused across the cut: 2 launches fewer {{.*}} @qknorm_safe launches 2 kernels
// CHECK-LABEL: func.func @qknorm_safe(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom(
// CHECK: block.for_loop
// CHECK-DAG: block.rms_norm {{.*}} dim 1 {{.*}} : tensor<1x64x{{[0-9]+}}xf{{16|32}}>
// CHECK-DAG: block.rms_norm {{.*}} : tensor<1x{{[0-9]+}}x64xf{{16|32}}>
// CHECK: block.matmul
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return

func.func @qknorm_safe(%q: tensor<2x64x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x64x64xf16> {
  %qn = kernel.rms_norm %q {epsilon = 1.0e-06 : f64} : tensor<2x64x64xf16>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x64x4096xf16>
  %s = kernel.matmul %qn, %kn : tensor<2x64x64xf16>, tensor<2x64x4096xf16>
  %m = kernel.reduce_max %s dim 2 : tensor<2x64x4096xf16>
  %d = kernel.sub %s, %m : tensor<2x64x4096xf16>, tensor<2x64x1xf16>
  %e = kernel.exp %d : tensor<2x64x4096xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x64x4096xf16>
  %ev = kernel.matmul %e, %v : tensor<2x64x4096xf16>, tensor<2x4096x64xf16>
  %o = kernel.div %ev, %l : tensor<2x64x64xf16>, tensor<2x64x1xf16>
  return %o : tensor<2x64x64xf16>
}
