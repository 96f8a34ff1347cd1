// `timeout` bounds the whole pass, the search and the verification at full
// shapes together, within 10% plus one second (the process's start and the
// printing included). A safe attention over a long KV length: its best
// program splits the KV length over blocks and combines the chunks in a
// second launch, so it never reaches the one-launch lower bound that would
// end the search early, and programs of two kernels are many; its
// evaluation at full shapes is quick.
// RUN: %python %S/Inputs/limited.py --seconds 6.5 -- mlsopt-opt %s --superoptimize=timeout=5 -o /dev/null 2>%t.remarks
// RUN: FileCheck %s < %t.remarks
// CHECK: remark: superoptimize: {{.*}}searched for {{[0-9.]+}} s (timed out)
//
// A reference whose evaluation at full shapes would take much of the
// timeout is not evaluated (the pass predicts it from its elements and
// FLOPs): verification-budget.mlir bounds an 8192x8192 exp*mul, which took
// 31 s at timeout=5 before, generously, since the prediction is a rate and
// a busy machine runs slower than it.

func.func @attention(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %s = kernel.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %m = kernel.reduce_max %s dim 2 : tensor<2x256x4096xf16>
  %d = kernel.sub %s, %m : tensor<2x256x4096xf16>, tensor<2x256x1xf16>
  %e = kernel.exp %d : tensor<2x256x4096xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %ev = kernel.matmul %e, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  %o = kernel.div %ev, %l : tensor<2x256x64xf16>, tensor<2x256x1xf16>
  return %o : tensor<2x256x64xf16>
}
