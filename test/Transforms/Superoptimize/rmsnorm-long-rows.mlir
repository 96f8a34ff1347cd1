// An rms_norm whose row fits no block of the target (65536 f16 values:
// the row, its result and their f32 accumulator overflow sm_90's 232448
// bytes) is searched as the ops it stands for, which the GPU pipeline
// would otherwise launch one by one (9 launches). Kept as one op, its
// search passed no candidate in the whole timeout. The row, which the
// program outputs and sums over, is split into 32 chunks: the first kernel
// sums the squares of a chunk, the second sums a row's 32 partial sums
// with a for-loop and scales the tile of x it loads after the loop by the
// rsqrt of their mean (2 kernels; 4 before the row could be split, one of
// which stored x * x in f32).
// RUN: mlsopt-opt %s --superoptimize="timeout=5 threads=1 keep-reference=true" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.mlir
// RUN: mlsopt-opt %t.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// A row that fits (4096) stays one op, searched as such.
// RUN: sed 's/65536/4096/g' %s | mlsopt-opt --superoptimize="timeout=5 threads=1" 2>&1 >/dev/null | FileCheck %s --check-prefix=SHORT

// REMARK: remark: superoptimize: replaced 8 kernel ops (19.35 us) by 2 kernels
// CHECK-LABEL: func.func @long_rows(
// CHECK: %[[P:.*]] = kernel.custom(%arg0) grid <3, 32, 1> {{.*}} -> tensor<3x32xf32>
// CHECK: thread.unary square
// CHECK: block.reduce_sum
// CHECK: kernel.custom(%arg0, %[[P]])
// CHECK: block.for_loop 32 iterations accumulate (sum)
// CHECK: thread.unary rsqrt
// CHECK: block.store {{.*}} into tensor<3x65536xf16>
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @long_rows is equivalent to @long_rows_reference
// SHORT: remark: superoptimize: kept the subprogram of 1 kernel ops

func.func @long_rows(%x: tensor<3x65536xf16>) -> tensor<3x65536xf16> {
  %0 = kernel.rms_norm %x {epsilon = 1.0e-5 : f64} : tensor<3x65536xf16>
  return %0 : tensor<3x65536xf16>
}
