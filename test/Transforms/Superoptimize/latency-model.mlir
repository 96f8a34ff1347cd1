// latency-model=true ranks with the cost model's latency term
// (docs/cost-model.md, "Latency"). RMSNorm + MatMul of 16 rows by a
// 4096x6144 weight: the roofline alone picks one kernel that normalizes the
// 16 rows in each of its blocks; with latency, the unfused reference is
// estimated at twice its roofline (its default block graphs walk long
// rows), and the search sums the rows' squares, and takes the rsqrt of
// their mean, in a kernel of its own; the matmul, over 2 x 192 blocks (8
// rows, 64-byte rows of the weight), loads its rows' scales after its loop
// and scales its tiles by them (rows scale the product as they scale x). (On an
// H200 the one-kernel program took 70 us and the unfused one 46 us:
// docs/benchmarks.md.)
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=20 keep-reference=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROOFLINE
// RUN: mlsopt-opt %s --superoptimize="latency-model=true timeout=20 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// ROOFLINE: remark: superoptimize: replaced 2 kernel ops (14.67 us) by 1 kernels
// REMARK: remark: superoptimize: replaced 2 kernel ops (29.82 us) by 2 kernels

// CHECK-LABEL: func.func @rmsnorm(
// CHECK: kernel.custom
// CHECK-NOT: block.matmul
// CHECK: block.reduce_sum
// CHECK: thread.unary rsqrt
// CHECK: block.store {{.*}} into tensor<16x1xf32>
// CHECK: kernel.custom
// CHECK: block.matmul
// CHECK: block.yield
// CHECK-NEXT: }
// CHECK-NEXT: block.load %in2 imap <x = 0> : tensor<16x1xf32> -> tensor<8x1xf32>
// CHECK: thread.binary mul
// CHECK: {{^    }}return
// VERIFY: remark: @rmsnorm is equivalent to @rmsnorm_reference
func.func @rmsnorm(%x: tensor<16x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<16x6144xf16> {
  %0 = kernel.square %x : tensor<16x4096xf16>
  %1 = kernel.reduce_sum %0 dim 1 : tensor<16x4096xf16>
  %2 = kernel.mul_scalar %1, 2.44140625E-4 : tensor<16x1xf16>
  %3 = kernel.add_scalar %2, 1.0132789611816406E-6 : tensor<16x1xf16>
  %4 = kernel.rsqrt %3 : tensor<16x1xf16>
  %5 = kernel.mul %x, %4 : tensor<16x4096xf16>, tensor<16x1xf16>
  %6 = kernel.matmul %5, %w : tensor<16x4096xf16>, tensor<4096x6144xf16>
  return %6 : tensor<16x6144xf16>
}
