// The search ends as soon as its best program costs what any program must:
// one launch that reads the inputs and writes the result once. LoRA at a
// shape whose fused kernel fills the GPU reaches that bound, so the pass
// stops long before its timeout with the one-kernel μGraph.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=60" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: remark: superoptimize: replaced 4 kernel ops {{.*}} by 1 kernels {{.*}}(stopped at the cost lower bound)
// An exp of 2^24 f16 values costs within 1% of that bound as it is, and a
// program must save 1% to replace it: nothing is enumerated.
// REMARK: remark: superoptimize: kept the subprogram of 1 kernel ops (16.02 us); searched for 0.0 s (ended at once: the cost lower bound of any program is within 1% of the input's): 0 ops enumerated
// CHECK-LABEL: func.func @lora(
// CHECK-COUNT-1: kernel.custom
// CHECK-NOT: kernel.
// CHECK: return
// CHECK-LABEL: func.func @exp(
// CHECK-NEXT: kernel.exp

func.func @lora(%x: tensor<16x256xf16>, %w: tensor<256x4096xf16>, %a: tensor<256x16xf16>, %b: tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  %xw = kernel.matmul %x, %w : tensor<16x256xf16>, tensor<256x4096xf16>
  %xa = kernel.matmul %x, %a : tensor<16x256xf16>, tensor<256x16xf16>
  %xab = kernel.matmul %xa, %b : tensor<16x16xf16>, tensor<16x4096xf16>
  %o = kernel.add %xw, %xab : tensor<16x4096xf16>, tensor<16x4096xf16>
  return %o : tensor<16x4096xf16>
}

func.func @exp(%x: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %0 = kernel.exp %x : tensor<4096x4096xf16>
  return %0 : tensor<4096x4096xf16>
}
