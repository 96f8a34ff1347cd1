// A search ends once no layout skeleton has room left to beat its best
// program, even when that program costs more than the program-wide bound
// (one launch that reads the inputs and writes the results once). Each
// skeleton is bounded before its block graphs are enumerated: by the idle
// SMs of its largest grid, the inputs every block loads again, and one more
// launch unless its inputs can make the results (a kernel that grids the
// columns cannot finish a sum over them). Both programs below ran to their
// 60 s timeout before, with the same winner:
// - the nGPT update on 8 rows: its one kernel has 8 blocks, one per row;
// - a LayerNorm with gain and bias: each of its 64 blocks loads the gain
//   and the bias again through the L2 (its best is now also within 0.05 us
//   of the program-wide bound, which ends the search as well).
// The answer does not depend on the thread count.
// RUN: mlsopt-opt %s --superoptimize="timeout=20 threads=1" -o %t.1 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.1
// RUN: mlsopt-opt %s --superoptimize="timeout=20 threads=2" -o %t.2
// RUN: diff %t.1 %t.2

// REMARK: skeleton-bound.mlir:[[#@LINE+12]]:{{.*}} remark: superoptimize: replaced 5 kernel ops {{.*}} by 1 kernels {{.*}}; searched for {{[0-9.]+}} s:
// REMARK: skeleton-bound.mlir:[[#@LINE+30]]:{{.*}} remark: superoptimize: replaced 6 kernel ops {{.*}} by 1 kernels {{.*}}; searched for {{[0-9.]+}} s{{( \(stopped at the cost lower bound\))?}}:

// CHECK-LABEL: func.func @ntrans(
// CHECK: kernel.custom{{.*}} grid <8, 1, 1>
// CHECK-NOT: kernel.
// CHECK: return
func.func @ntrans(%x: tensor<8x1024xf16>, %y: tensor<8x1024xf16>, %a: tensor<8x1024xf16>) -> tensor<8x1024xf16> {
  %n = kernel.rms_norm %y {epsilon = 1.0e-06 : f64} : tensor<8x1024xf16>
  %d = kernel.sub %n, %x : tensor<8x1024xf16>, tensor<8x1024xf16>
  %m = kernel.mul %a, %d : tensor<8x1024xf16>, tensor<8x1024xf16>
  %s = kernel.add %x, %m : tensor<8x1024xf16>, tensor<8x1024xf16>
  %o = kernel.rms_norm %s {epsilon = 1.0e-06 : f64} : tensor<8x1024xf16>
  return %o : tensor<8x1024xf16>
}

// CHECK-LABEL: func.func @layernorm(
// CHECK: kernel.custom{{.*}} grid <64, 1, 1>
// CHECK-NOT: kernel.
// CHECK: return
func.func @layernorm(%x: tensor<64x1000xf32>, %g: tensor<1x1000xf32>, %b: tensor<1x1000xf32>) -> tensor<64x1000xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<64x1000xf32>
  %m = kernel.mul_scalar %s, 0.001 : tensor<64x1xf32>
  %c = kernel.sub %x, %m : tensor<64x1000xf32>, tensor<64x1xf32>
  %sq = kernel.square %c : tensor<64x1000xf32>
  %vs = kernel.reduce_sum %sq dim 1 : tensor<64x1000xf32>
  %v = kernel.mul_scalar %vs, 0.001 : tensor<64x1xf32>
  %ve = kernel.add_scalar %v, 1.0e-5 : tensor<64x1xf32>
  %r = kernel.rsqrt %ve : tensor<64x1xf32>
  %n = kernel.mul %c, %r : tensor<64x1000xf32>, tensor<64x1xf32>
  %ng = kernel.mul %n, %g : tensor<64x1000xf32>, tensor<1x1000xf32>
  %o = kernel.add %ng, %b : tensor<64x1000xf32>, tensor<1x1000xf32>
  return %o : tensor<64x1000xf32>
}

// The nGPT update on 16 rows of 1000: its one kernel (16 blocks) costs
// 2.07 us against the program-wide bound of 2.03, and 1000's divisors make
// many grids and loops to walk. A best program within 0.05 us of the bound
// ends the search; before, it ran to the timeout for those 40 ns.
// REMARK: skeleton-bound.mlir:[[#@LINE+10]]:{{.*}} remark: superoptimize: replaced 5 kernel ops {{.*}} by 1 kernels (2.07 us); searched for {{[0-9.]+}} s (stopped at the cost lower bound):
// CHECK-LABEL: func.func @ntrans_16x1000(
// CHECK: kernel.custom{{.*}} grid <16, 1, 1>
// CHECK-NOT: kernel.
// CHECK: return
func.func @ntrans_16x1000(%x: tensor<16x1000xf16>, %y: tensor<16x1000xf16>, %a: tensor<16x1000xf16>) -> tensor<16x1000xf16> {
  %n = kernel.rms_norm %y {epsilon = 1.0e-06 : f64} : tensor<16x1000xf16>
  %d = kernel.sub %n, %x : tensor<16x1000xf16>, tensor<16x1000xf16>
  %m = kernel.mul %a, %d : tensor<16x1000xf16>, tensor<16x1000xf16>
  %s = kernel.add %x, %m : tensor<16x1000xf16>, tensor<16x1000xf16>
  %o = kernel.rms_norm %s {epsilon = 1.0e-06 : f64} : tensor<16x1000xf16>
  return %o : tensor<16x1000xf16>
}
