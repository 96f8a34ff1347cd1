// Contractions and reductions over one element. For the search, size-1
// dims are broadcasts: it cannot contract or reduce over one, and such
// subprograms were kept as they were (or not searched at all). The raising
// before the cut (--raise-kernel-idioms) makes a matmul over one element
// the outer product, a broadcast mul, and a reduction over one element its
// operand, both exact; the programs below are then one kernel each.
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// REMARK-DAG: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 1 kernels
// REMARK-DAG: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 1 kernels
// VERIFY-DAG: remark: @lora_rank_one is equivalent to @lora_rank_one_reference
// VERIFY-DAG: remark: @attention_one_key is equivalent to @attention_one_key_reference

// LoRA of rank 1: X W + (X A) B with A [k, 1], B [1, n] (four launches
// before; ranks 3 and 16 were one kernel already).
// CHECK-LABEL: func.func @lora_rank_one(
// CHECK-NEXT: kernel.custom
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
func.func @lora_rank_one(%x: tensor<3x1000xf32>, %w: tensor<1000x24xf32>, %a: tensor<1000x1xf32>, %b: tensor<1x24xf32>) -> tensor<3x24xf32> {
  %0 = kernel.matmul %x, %w : tensor<3x1000xf32>, tensor<1000x24xf32>
  %1 = kernel.matmul %x, %a : tensor<3x1000xf32>, tensor<1000x1xf32>
  %2 = kernel.matmul %1, %b : tensor<3x1xf32>, tensor<1x24xf32>
  %3 = kernel.add %0, %2 : tensor<3x24xf32>, tensor<3x24xf32>
  return %3 : tensor<3x24xf32>
}

// Attention over one key (the first step of a decode): the softmax's sum
// and the product with V are over one element (five launches before, no
// search).
// CHECK-LABEL: func.func @attention_one_key(
// CHECK-NEXT: kernel.custom
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
func.func @attention_one_key(%q: tensor<4x10x8xf16>, %k: tensor<4x8x1xf16>, %v: tensor<4x1x8xf16>) -> tensor<4x10x8xf16> {
  %s = kernel.matmul %q, %k : tensor<4x10x8xf16>, tensor<4x8x1xf16>
  %e = kernel.exp %s : tensor<4x10x1xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<4x10x1xf16>
  %ev = kernel.matmul %e, %v : tensor<4x10x1xf16>, tensor<4x1x8xf16>
  %o = kernel.div %ev, %l : tensor<4x10x8xf16>, tensor<4x10x1xf16>
  return %o : tensor<4x10x8xf16>
}
