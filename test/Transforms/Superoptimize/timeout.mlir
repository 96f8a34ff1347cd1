// `timeout` bounds the whole pass, the search and the verification at full
// shapes together, within 10% plus one second (the process's start and the
// printing included). RMSNorm + MatMul at a size whose search does not end
// before the timeout, and whose evaluation at full shapes is quick:
// RUN: %python %S/Inputs/limited.py --seconds 6.5 -- mlsopt-opt %s --superoptimize=timeout=5 -o /dev/null 2>%t.remarks
// RUN: FileCheck %s < %t.remarks
// CHECK: remark: superoptimize: {{.*}}searched for {{[0-9.]+}} s (timed out)
//
// Not covered: a reference whose evaluation at full shapes alone takes
// longer than the timeout (the bundled example at 8x4096x6144 on a busy
// machine, or an 8192x8192 exp*mul) overruns it, because that evaluation
// runs before the search and is not interruptible (docs/reliability.md).

func.func @rmsnorm_matmul(%x: tensor<8x1024xf16>, %w: tensor<1024x2048xf16>) -> tensor<8x2048xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x1024xf16>
  %o = kernel.matmul %n, %w : tensor<8x1024xf16>, tensor<1024x2048xf16>
  return %o : tensor<8x2048xf16>
}
