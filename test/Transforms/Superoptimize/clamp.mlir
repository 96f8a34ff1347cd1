// Mirage's clamp(x, lo, hi) is max_scalar then min_scalar (as torch.clamp,
// NaN propagating). The search enumerates both with the program's constants
// (opaque functions of the value and the constant in the abstract
// expressions), so a clamp between a matmul and SiLU fuses into the
// matmul's kernel: its thread graph computes max, min and silu in
// registers. The verifier compares the selections in max's total order
// over the field. On the GPU max and min are max.NaN / min.NaN.
// RUN: mlsopt-opt %s --superoptimize="timeout=5 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=5" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: mlsopt-opt %s --superoptimize="timeout=5" | sed s/f16/bf16/g | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// REMARK-DAG: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 1 kernels
// REMARK-DAG: remark: superoptimize: replaced 6 kernel ops ({{.*}}) by 1 kernels

// CHECK-LABEL: func.func @clamped_silu(
// CHECK: kernel.custom
// CHECK: block.matmul
// CHECK: thread.graph
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT: %[[LO:.*]] = thread.max_scalar %[[X]], -1.500000e+00 : f32
// CHECK-NEXT: %[[HI:.*]] = thread.min_scalar %[[LO]], 2.000000e+00 : f32
// CHECK-NEXT: thread.unary silu %[[HI]] : f32
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @clamped_silu is equivalent to @clamped_silu_reference
// PTX: max.NaN.f32
// PTX: min.NaN.f32
func.func @clamped_silu(%x: tensor<8x256xf16>, %w: tensor<256x512xf16>) -> tensor<8x512xf16> {
  %0 = kernel.matmul %x, %w : tensor<8x256xf16>, tensor<256x512xf16>
  %1 = kernel.max_scalar %0, -1.5 : tensor<8x512xf16>
  %2 = kernel.min_scalar %1, 2.0 : tensor<8x512xf16>
  %3 = kernel.silu %2 : tensor<8x512xf16>
  return %3 : tensor<8x512xf16>
}

// The partition counts a clamp as one op (a min_scalar of a max_scalar read
// by nothing else counts nothing), as Mirage has it: a clamped gated MLP is
// six kernel ops and one subprogram at the default max-kernel-ops of 5,
// found as one kernel, where counting both cut it in two and left two
// kernels.
// CHECK-LABEL: func.func @clamped_gated_mlp(
// CHECK: kernel.custom
// CHECK-COUNT-2: block.matmul
// CHECK: thread.max_scalar
// CHECK: thread.min_scalar
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @clamped_gated_mlp is equivalent to @clamped_gated_mlp_reference
func.func @clamped_gated_mlp(%x: tensor<8x256xf16>, %w1: tensor<256x512xf16>, %w2: tensor<256x512xf16>) -> tensor<8x512xf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x256xf16>, tensor<256x512xf16>
  %lo = kernel.max_scalar %a, -8.0 : tensor<8x512xf16>
  %c = kernel.min_scalar %lo, 8.0 : tensor<8x512xf16>
  %g = kernel.silu %c : tensor<8x512xf16>
  %b = kernel.matmul %x, %w2 : tensor<8x256xf16>, tensor<256x512xf16>
  %o = kernel.mul %g, %b : tensor<8x512xf16>, tensor<8x512xf16>
  return %o : tensor<8x512xf16>
}
