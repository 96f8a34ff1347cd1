// `timeout` bounds the whole pass, the search and the verification at full
// shapes together, within 10% plus one second (the process's start and the
// printing included). The nGPT update on 8 rows: its one-kernel μGraph has
// 8 thread blocks, which leave most SMs idle, so it never reaches the cost
// lower bound that would end the search early; its evaluation at full
// shapes is quick.
// RUN: %python %S/Inputs/limited.py --seconds 6.5 -- mlsopt-opt %s --superoptimize=timeout=5 -o /dev/null 2>%t.remarks
// RUN: FileCheck %s < %t.remarks
// CHECK: remark: superoptimize: {{.*}}searched for {{[0-9.]+}} s (timed out)
//
// A reference whose evaluation at full shapes would take much of the
// timeout is not evaluated (the pass predicts it from its elements and
// FLOPs): verification-budget.mlir bounds an 8192x8192 exp*mul, which took
// 31 s at timeout=5 before, generously, since the prediction is a rate and
// a busy machine runs slower than it.

func.func @ntrans(%x: tensor<8x1024xf16>, %y: tensor<8x1024xf16>, %a: tensor<8x1024xf16>) -> tensor<8x1024xf16> {
  %n = kernel.rms_norm %y {epsilon = 1.0e-06 : f64} : tensor<8x1024xf16>
  %d = kernel.sub %n, %x : tensor<8x1024xf16>, tensor<8x1024xf16>
  %m = kernel.mul %a, %d : tensor<8x1024xf16>, tensor<8x1024xf16>
  %s = kernel.add %x, %m : tensor<8x1024xf16>, tensor<8x1024xf16>
  %o = kernel.rms_norm %s {epsilon = 1.0e-06 : f64} : tensor<8x1024xf16>
  return %o : tensor<8x1024xf16>
}
