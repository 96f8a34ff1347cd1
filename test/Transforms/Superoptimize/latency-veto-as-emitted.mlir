// The latency veto judges a candidate as it will be emitted, its block
// elementwise ops as thread graphs, which the latency term counts one step
// per element more. At these LoRA shapes the roofline's best kernel (2.93
// us) accumulates X, W and A B in f32 tiles over one iteration and converts
// the three of them for its matmuls: 23.4 us with latency as block ops,
// 31.0 us as the thread graphs emitted, past the input's 25.7. It was kept
// before; now it is refused, and the kernel kept computes X W + (X A) B for
// 8 columns in each of 128 blocks (3.83 us, 6.33 with latency).
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// REMARK: remark: superoptimize: replaced 4 kernel ops (12.33 us) by 1 kernels (3.83 us)
// REMARK-SAME: refused as slower than the input with the latency term
// CHECK-LABEL: func.func @lora_r8(
// CHECK: kernel.custom({{.*}}) grid <128, 1, 1>
// CHECK: block.matmul {{.*}} : tensor<32x1024xf16>, tensor<1024x8xf16> -> tensor<32x8xf32>
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @lora_r8 is equivalent to @lora_r8_reference

func.func @lora_r8(%x: tensor<32x1024xf16>, %w: tensor<1024x1024xf16>, %a: tensor<1024x8xf16>, %b: tensor<8x1024xf16>) -> tensor<32x1024xf16> {
  %xw = kernel.matmul %x, %w : tensor<32x1024xf16>, tensor<1024x1024xf16>
  %xa = kernel.matmul %x, %a : tensor<32x1024xf16>, tensor<1024x8xf16>
  %xab = kernel.matmul %xa, %b : tensor<32x8xf16>, tensor<8x1024xf16>
  %o = kernel.add %xw, %xab : tensor<32x1024xf16>, tensor<32x1024xf16>
  return %o : tensor<32x1024xf16>
}
