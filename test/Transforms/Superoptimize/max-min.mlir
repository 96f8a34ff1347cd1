// torch.maximum and torch.minimum of two tensors are kernel.max and
// kernel.min: the search enumerates them (opaque functions of both operands
// in the abstract expressions, in either operand order), so the max of two
// projections of x, bounded by a per-column cap, is one kernel whose
// thread graph takes the max and the min in registers. The verifier
// compares them as symmetric random functions over the field. On the GPU
// they are max.NaN / min.NaN, NaN propagating as in torch.
// RUN: mlsopt-opt %s --superoptimize="timeout=5 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=5" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: mlsopt-opt %s --superoptimize="timeout=5" | sed s/f16/bf16/g | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// REMARK: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 1 kernels

// CHECK-LABEL: func.func @capped_max(
// CHECK: kernel.custom
// CHECK-COUNT-2: block.matmul
// CHECK: thread.graph
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = thread.binary max %[[A]], %[[B]] : f32
// CHECK-NEXT: thread.binary min %[[M]], %[[C]] : f32
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @capped_max is equivalent to @capped_max_reference
// PTX: max.NaN.{{f16|f32}}
// PTX: min.NaN.{{f16|f32}}
func.func @capped_max(%x: tensor<8x256xf16>, %w1: tensor<256x512xf16>, %w2: tensor<256x512xf16>, %cap: tensor<512xf16>) -> tensor<8x512xf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x256xf16>, tensor<256x512xf16>
  %b = kernel.matmul %x, %w2 : tensor<8x256xf16>, tensor<256x512xf16>
  %m = kernel.max %a, %b : tensor<8x512xf16>, tensor<8x512xf16>
  %c = kernel.min %m, %cap : tensor<8x512xf16>, tensor<512xf16>
  return %c : tensor<8x512xf16>
}
