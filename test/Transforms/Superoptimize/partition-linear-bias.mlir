// A bias added to a linear layer's product of an input counts nothing
// against max-kernel-ops where no reduction reads it: the search adds it to
// the product's tiles after the loop. A SwiGLU whose two layers have biases
// (six ops) was cut in two, two kernels (5.9 us); now one subprogram and
// one kernel (3.8 us), found at once. Before a LayerNorm the bias counts
// (partition-layernorm.mlir): there it would let the row reductions join
// the product, a search of a minute at 64 x 2048.
// RUN: mlsopt-opt %s --superoptimize="timeout=10" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// REMARK: partition-linear-bias.mlir:[[# @LINE + 13]]:{{.*}} remark: superoptimize: replaced 6 kernel ops {{.*}} by 1 kernels
// REMARK-NOT: remark: superoptimize: replaced
// CHECK-LABEL: func.func @swiglu_bias(
// CHECK-COUNT-1: kernel.custom
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return

func.func @swiglu_bias(%x: tensor<32x512xbf16>, %w1: tensor<512x1024xbf16>, %b1: tensor<1x1024xbf16>, %w2: tensor<512x1024xbf16>, %b2: tensor<1x1024xbf16>) -> tensor<32x1024xbf16> {
  %a = kernel.matmul %x, %w1 : tensor<32x512xbf16>, tensor<512x1024xbf16>
  %a1 = kernel.add %a, %b1 : tensor<32x1024xbf16>, tensor<1x1024xbf16>
  %b = kernel.matmul %x, %w2 : tensor<32x512xbf16>, tensor<512x1024xbf16>
  %bb = kernel.add %b, %b2 : tensor<32x1024xbf16>, tensor<1x1024xbf16>
  %s = kernel.silu %a1 : tensor<32x1024xbf16>
  %o = kernel.mul %s, %bb : tensor<32x1024xbf16>, tensor<32x1024xbf16>
  return %o : tensor<32x1024xbf16>
}
