// RMSNorm with its learned gain, then a matmul (Mirage's RMSNorm + Linear
// tutorial): one kernel, found by the search's literal pass in a fraction
// of a second. The enumeration builds the product of the gain and the
// normalized rows as mul(g, rms_norm(x)), its operands in its own order,
// and the literal pass compares subterms of the program up to the order of
// commutative operands; comparing them as written, it found nothing and the
// second pass ran out its 60 s with two kernels.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=60" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: remark: superoptimize: replaced 3 kernel ops {{.*}} by 1 kernels {{.*}}(stopped at the cost lower bound)
// CHECK-LABEL: func.func @rmsnorm_gain_matmul(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK-DAG: block.rms_norm
// CHECK-DAG: block.matmul
// CHECK-NOT: kernel.
// CHECK: return

func.func @rmsnorm_gain_matmul(%x: tensor<4x2048xf16>, %g: tensor<1x2048xf16>, %w: tensor<2048x2048xf16>) -> tensor<4x2048xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-05 : f64} : tensor<4x2048xf16>
  %s = kernel.mul %n, %g : tensor<4x2048xf16>, tensor<1x2048xf16>
  %o = kernel.matmul %s, %w : tensor<4x2048xf16>, tensor<2048x2048xf16>
  return %o : tensor<4x2048xf16>
}
