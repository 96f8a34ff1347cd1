// `timeout` is per function, and the subprograms it searches share it in
// proportion to their ops. Here a matmul and its exp on other inputs (two
// ops), Q's norm (one op), the attention with K's norm (seven ops, whose
// search runs to its deadline; QKNorm with a safe softmax normalized over
// 512 features, more than a head dim, so K's norm is searched with its
// matmul, partition-head-norm.mlir) and the division (one op). The two
// one-op subprograms are not searched (an elementwise op beside another
// kernel is left to join it) and take no share: the product gets 2/9 of
// the 10 s, and the attention what is left of the time, all of it once the
// product is done. Shared equally, the attention got under 5 s; with the
// one-op subprograms counted, the division after the attention held back
// 1/8 of it. The share is checked rather than the search's own time, which
// the checks of its winner take from, and more so on a loaded machine; so
// is the share whether or not the search found a winner in it (on a
// loaded machine, it may not).
// RUN: mlsopt-opt %s --superoptimize=timeout=10 -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: superoptimize: replaced 2 kernel ops {{.*}}; its share of the time 2.2 s
// CHECK: remark: superoptimize: kept the subprogram of 1 kernel ops, not searched
// CHECK: remark: superoptimize: {{replaced|kept the subprogram of}} 7 kernel ops {{.*}}; searched for {{[0-9.]+}} s (timed out){{.*}}; its share of the time {{9\.[0-9]|10\.0}} s
// CHECK: remark: superoptimize: kept the subprogram of 1 kernel ops, not searched

func.func @qknorm_safe(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %q: tensor<2x256x512xf16>, %k: tensor<2x512x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<64x64xf32>, tensor<2x256x64xf16>) {
  %ab = kernel.matmul %a, %b : tensor<64x64xf32>, tensor<64x64xf32>
  %eab = kernel.exp %ab : tensor<64x64xf32>
  %qn = kernel.rms_norm %q {epsilon = 1.0e-06 : f64} : tensor<2x256x512xf16>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x512x1024xf16>
  %s = kernel.matmul %qn, %kn : tensor<2x256x512xf16>, tensor<2x512x1024xf16>
  %m = kernel.reduce_max %s dim 2 : tensor<2x256x1024xf16>
  %d = kernel.sub %s, %m : tensor<2x256x1024xf16>, tensor<2x256x1xf16>
  %e = kernel.exp %d : tensor<2x256x1024xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x256x1024xf16>
  %ev = kernel.matmul %e, %v : tensor<2x256x1024xf16>, tensor<2x1024x64xf16>
  %o = kernel.div %ev, %l : tensor<2x256x64xf16>, tensor<2x256x1xf16>
  return %eab, %o : tensor<64x64xf32>, tensor<2x256x64xf16>
}
