// Extents that 16 does not divide are also cut raggedly: a grid size that
// does not divide the extent cuts it into tiles that cover it, the last
// block's running past the end (see block.load). A ViT's attention over
// 197 tokens, a prime, had no cut of its query rows but 197 blocks of one
// row or one block of all, and stayed two kernels; with 4 tiles of 50
// query rows per head (the last holding 47) and 2 of 32 value columns it
// is one. Its numbers agree with the reference's (the search verified it,
// and --verify-equivalence does again), and its PTX assembles. Neither 197
// keys nor a 50-row tile fill whole tensor-core fragments: both matmuls
// run on padded fragments (conversion test padded-mma.mlir).
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// REMARK: remark: superoptimize: replaced 5 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @vit_attention(
// CHECK: kernel.custom{{.*}} grid <12, 4, 2>
// CHECK: block.load %in0 imap <x = 0, y = 1> : tensor<12x197x64xf16> -> tensor<1x50x64xf16>
// CHECK: block.store {{.*}} omap <x = 0, y = 1, z = 2> : tensor<1x50x32xf32> into tensor<12x197x64xf16>
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @vit_attention is equivalent to @vit_attention_reference
// PTX-COUNT-2: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @vit_attention(%q: tensor<12x197x64xf16>, %kt: tensor<12x64x197xf16>, %v: tensor<12x197x64xf16>) -> tensor<12x197x64xf16> {
  %s = kernel.matmul %q, %kt : tensor<12x197x64xf16>, tensor<12x64x197xf16>
  %e = kernel.exp %s : tensor<12x197x197xf16>
  %d = kernel.reduce_sum %e dim 2 : tensor<12x197x197xf16>
  %p = kernel.div %e, %d : tensor<12x197x197xf16>, tensor<12x197x1xf16>
  %o = kernel.matmul %p, %v : tensor<12x197x197xf16>, tensor<12x197x64xf16>
  return %o : tensor<12x197x64xf16>
}
