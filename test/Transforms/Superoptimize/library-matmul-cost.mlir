// A linear layer with a bias and a GELU, 64 rows over k = 4096. The
// library matmul runs as its default block graph: 64x64 output tiles, 16
// blocks, each walking all of k. The cost model charges it as that
// (17.64 us for the three ops), and the search finds one kernel of 128
// blocks with the bias and the GELU in its epilogue, the bias loaded once
// after the loop. Costed as an ideal library kernel that fills the GPU,
// the matmul kept its 16 blocks and the epilogue was a second kernel.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY

// REMARK: remark: superoptimize: replaced 3 kernel ops (17.64 us) by 1 kernels
// CHECK-LABEL: func.func @linear_bias_gelu(
// CHECK: kernel.custom(%arg0, %arg1, %{{.*}}) grid <2, 64, 1>
// CHECK: block.for_loop 4 iterations accumulate (sum)
// CHECK: block.matmul
// CHECK: block.yield
// CHECK-NEXT: }
// CHECK-NEXT: block.load %in2 imap <y = 1> : tensor<1x1024xf16> -> tensor<1x16xf32>
// CHECK: thread.binary add
// CHECK: thread.unary gelu
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @linear_bias_gelu is equivalent to @linear_bias_gelu_reference

func.func @linear_bias_gelu(%x: tensor<64x4096xf16>, %w: tensor<4096x1024xf16>, %b: tensor<1024xf16>) -> tensor<64x1024xf16> {
  %y0 = kernel.matmul %x, %w : tensor<64x4096xf16>, tensor<4096x1024xf16>
  %y = kernel.add %y0, %b : tensor<64x1024xf16>, tensor<1024xf16>
  %g = kernel.gelu %y : tensor<64x1024xf16>
  return %g : tensor<64x1024xf16>
}
