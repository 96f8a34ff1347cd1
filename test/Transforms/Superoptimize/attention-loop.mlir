// Attention over a KV sequence that does not fit in shared memory whole,
// with enough query rows (1024 per head) for query tiles alone to fill the
// GPU: the search must walk the KV length with a for-loop that
// accumulates exp(Q K) V and the row sums of exp(Q K), and divide once
// after the loop (the FlashAttention schedule, found by the oracle pass:
// its loop values are subexpressions of the reference only under sum
// splitting and distributivity of division over sums). With few query
// rows the KV length is split across the grid instead
// (split-reduction.mlir). exp(Q K) is summed in f32 and rounded to f16 for
// the product with V, which runs on the f16 tensor cores, as the f16
// program multiplies its probabilities.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=90 keep-reference=true" -o %t 2>/dev/null
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// CHECK-LABEL: func.func @attention(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK: block.for_loop {{[0-9]+}} iterations accumulate (sum, sum)
// CHECK-DAG: block.load %in1 imap <{{.*}}> fmap 2
// CHECK-DAG: block.load %in2 imap <{{.*}}> fmap 1
// CHECK: block.matmul
// CHECK: thread.unary exp
// CHECK-NEXT: thread.convert %{{.*}} : f32 to f16
// CHECK-DAG: block.matmul %{{.*}} : tensor<{{.*}}xf16>, tensor<{{.*}}xf16> -> tensor<{{.*}}xf32>
// CHECK-DAG: block.reduce_sum %{{.*}} : tensor<{{.*}}xf32>
// CHECK: block.yield
// CHECK: thread.binary div
// CHECK: block.store
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @attention is equivalent to @attention_reference

func.func @attention(%q: tensor<2x1024x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> tensor<2x1024x64xf16> {
  %s = kernel.matmul %q, %k : tensor<2x1024x64xf16>, tensor<2x64x1024xf16>
  %e = kernel.exp %s : tensor<2x1024x1024xf16>
  %sum = kernel.reduce_sum %e dim 2 : tensor<2x1024x1024xf16>
  %p = kernel.div %e, %sum : tensor<2x1024x1024xf16>, tensor<2x1024x1xf16>
  %o = kernel.matmul %p, %v : tensor<2x1024x1024xf16>, tensor<2x1024x64xf16>
  return %o : tensor<2x1024x64xf16>
}
