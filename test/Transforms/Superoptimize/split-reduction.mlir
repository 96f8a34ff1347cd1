// Flash-decoding, found by the search: attention for 16 query rows over a
// KV length of 8192. One kernel per query tile would walk all 8192 keys
// alone, each block drawing only its share of the L2's bandwidth, so the
// search splits the KV length across the grid instead: a first kernel's
// blocks each take one chunk of 256 keys and store their partial
// numerators exp(Q K) V and partial row sums side by side (one per chunk,
// along the last dim), and a small second kernel walks the 32 chunks,
// summing both, and divides. --verify-equivalence checks the result.
// The partial results are f32: an f16 program is computed in f32, and a
// partial numerator exp(Q K) V is no value the program rounds to f16.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=60 keep-reference=true" -o %t 2>/dev/null
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// CHECK-LABEL: func.func @decode(
// CHECK: %[[PARTIAL:.+]]:2 = kernel.custom(%arg0, %arg1, %arg2) grid <{{[0-9]+}}, 32, 1> {{.*}} -> (tensor<1x16x2048xf32>, tensor<1x16x32xf32>)
// CHECK-NOT: fmap
// CHECK: block.load %in1 imap <y = 2>
// CHECK: block.load %in2 imap <y = 1>
// CHECK: block.store {{.*}} omap <x = 1, y = 2> : tensor<1x4x64xf32> into tensor<1x16x2048xf32>
// CHECK: block.store {{.*}} omap <x = 1, y = 2> : tensor<1x4x1xf32> into tensor<1x16x32xf32>
// CHECK: kernel.custom(%[[PARTIAL]]#0, %[[PARTIAL]]#1)
// CHECK: block.for_loop 32 iterations accumulate (sum, sum)
// CHECK: block.load %in0 imap <{{.*}}> fmap 2 : tensor<1x16x2048xf32> -> tensor<1x{{[0-9]+}}x64xf32>
// CHECK: block.load %in1 imap <{{.*}}> fmap 2 : tensor<1x16x32xf32> -> tensor<1x{{[0-9]+}}x1xf32>
// CHECK: thread.binary div
// CHECK-NOT: kernel.custom
// CHECK: return
// VERIFY: remark: @decode is equivalent to @decode_reference

func.func @decode(%q: tensor<1x16x64xf16>, %k: tensor<1x64x8192xf16>, %v: tensor<1x8192x64xf16>) -> tensor<1x16x64xf16> {
  %s = kernel.matmul %q, %k : tensor<1x16x64xf16>, tensor<1x64x8192xf16>
  %e = kernel.exp %s : tensor<1x16x8192xf16>
  %sum = kernel.reduce_sum %e dim 2 : tensor<1x16x8192xf16>
  %p = kernel.div %e, %sum : tensor<1x16x8192xf16>, tensor<1x16x1xf16>
  %o = kernel.matmul %p, %v : tensor<1x16x8192xf16>, tensor<1x8192x64xf16>
  return %o : tensor<1x16x64xf16>
}
