// Rows longer than shared memory holds whose length is odd: GPT-2's
// vocabulary of 50257 = 29 x 1733 columns on sm_80, where a row of f32 is
// 201 KB. The enumeration's abstract expressions stand for any for-loop by
// a representative iteration count that divides the extent (29 here; 2
// does not, and sum(2, sum(25128, x)) is no part of sum(50257, x), so no
// loop or split over the row was ever kept), and the loop may take any of
// the extent's divisors (29 iterations of 1733, not 50257 of one element).
// Before, both programs stayed as their kernel ops. And a split reduction
// over an extent no small count divides takes a larger count that does.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --split-input-file --superoptimize="latency-veto=false timeout=5 target=sm_80 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlsopt-opt %t --split-input-file --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// The row statistics split over 29 chunks of 1733 (flash-decoding), which
// a second kernel combines with max and rescale accumulators.
// REMARK: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 2 kernels
// CHECK-LABEL: func.func @log_sum_exp_stats(
// CHECK: kernel.custom{{.*}} grid <{{[0-9]+}}, 29, 1>
// CHECK: block.load %in0 {{.*}} : tensor<4x50257xf16> -> tensor<{{[0-9]+}}x1733xf32>
// CHECK: kernel.custom
// CHECK: block.for_loop 29 iterations accumulate (max, rescale by 0)
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @log_sum_exp_stats is equivalent to @log_sum_exp_stats_reference
func.func @log_sum_exp_stats(%x: tensor<4x50257xf16>) -> tensor<4x1xf16> {
  %0 = kernel.reduce_max %x dim 1 : tensor<4x50257xf16>
  %1 = kernel.sub %x, %0 : tensor<4x50257xf16>, tensor<4x1xf16>
  %2 = kernel.exp %1 : tensor<4x50257xf16>
  %3 = kernel.reduce_sum %2 dim 1 : tensor<4x50257xf16>
  return %3 : tensor<4x1xf16>
}

// -----

// The whole softmax: the row statistics split as above, then a kernel over
// ragged tiles of the columns that combines the 29 chunks and computes
// exp(x - max) / sum on the tile it loads after its loop.
// REMARK: remark: superoptimize: replaced 5 kernel ops ({{.*}}) by 2 kernels
// CHECK-LABEL: func.func @softmax_vocab(
// CHECK: kernel.custom{{.*}} grid <{{[0-9]+}}, 29, 1>
// CHECK: block.load %in0 {{.*}} : tensor<4x50257xf16> -> tensor<{{[0-9]+}}x1733xf32>
// CHECK: kernel.custom
// CHECK: block.for_loop 29 iterations accumulate (max, rescale by 0)
// CHECK: block.load %in0 {{.*}} : tensor<4x50257xf16> -> tensor<{{[0-9]+}}x{{[0-9]+}}xf32>
// CHECK: thread.unary exp
// CHECK: thread.binary div
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @softmax_vocab is equivalent to @softmax_vocab_reference
func.func @softmax_vocab(%x: tensor<4x50257xf16>) -> tensor<4x50257xf16> {
  %0 = kernel.reduce_max %x dim 1 : tensor<4x50257xf16>
  %1 = kernel.sub %x, %0 : tensor<4x50257xf16>, tensor<4x1xf16>
  %2 = kernel.exp %1 : tensor<4x50257xf16>
  %3 = kernel.reduce_sum %2 dim 1 : tensor<4x50257xf16>
  %4 = kernel.div %2, %3 : tensor<4x50257xf16>, tensor<4x1xf16>
  return %4 : tensor<4x50257xf16>
}

// -----

// A prime row length has no cut but one element per iteration: 131071
// iterations, milliseconds on a GPU though the roofline ranks them cheap.
// Such a loop is not tried, and the program stays as it is (a max of
// ragged tiles would need other fills than zeros: docs/reliability.md).
// REMARK: remark: superoptimize: kept the subprogram of 5 kernel ops
// CHECK-LABEL: func.func @softmax_prime(
// CHECK-NOT: block.for_loop 131071 iterations
// CHECK: kernel.reduce_max
func.func @softmax_prime(%x: tensor<8x131071xf16>) -> tensor<8x131071xf16> {
  %0 = kernel.reduce_max %x dim 1 : tensor<8x131071xf16>
  %1 = kernel.sub %x, %0 : tensor<8x131071xf16>, tensor<8x1xf16>
  %2 = kernel.exp %1 : tensor<8x131071xf16>
  %3 = kernel.reduce_sum %2 dim 1 : tensor<8x131071xf16>
  %4 = kernel.div %2, %3 : tensor<8x131071xf16>, tensor<8x1xf16>
  return %4 : tensor<8x131071xf16>
}

// -----

// Grouped-query attention over 4097 = 17 x 241 cached keys: no chunk count
// up to the wanted 16 divides 4097, so the keys are split into the next
// count that does, 17 chunks of 241 (flash-decoding), which a second kernel
// sums. Before, one kernel walked all keys in every block (8.25 us against
// 6.28 at sm_90).
// REMARK: remark: superoptimize: replaced 5 kernel ops ({{.*}}) by 2 kernels
// CHECK-LABEL: func.func @gqa_4097_keys(
// CHECK: kernel.custom{{.*}} grid <2, {{[0-9]+}}, 17>
// CHECK: -> (tensor<2x256x1088xf32>, tensor<2x256x17xf32>)
// CHECK: kernel.custom
// CHECK: block.for_loop 17 iterations accumulate (sum, sum)
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @gqa_4097_keys is equivalent to @gqa_4097_keys_reference
func.func @gqa_4097_keys(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4097xf16>, %v: tensor<2x4097x64xf16>) -> tensor<2x256x64xf16> {
  %0 = kernel.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4097xf16>
  %1 = kernel.exp %0 : tensor<2x256x4097xf16>
  %2 = kernel.reduce_sum %1 dim 2 : tensor<2x256x4097xf16>
  %3 = kernel.div %1, %2 : tensor<2x256x4097xf16>, tensor<2x256x1xf16>
  %4 = kernel.matmul %3, %v : tensor<2x256x4097xf16>, tensor<2x4097x64xf16>
  return %4 : tensor<2x256x64xf16>
}
