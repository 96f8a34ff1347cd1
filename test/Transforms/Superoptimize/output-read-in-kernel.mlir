// A program whose outputs are exp(x) and its row sums: one kernel stores
// both, the exp tile it computed and the sums an epilogue op took of it.
// Before, the block enumeration stored only the epilogue values no other
// op read, so exp(x) had to come from a kernel of its own: two launches.
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// REMARK: remark: superoptimize: replaced 2 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @exp_and_row_sums(
// CHECK: %[[K:.*]]:2 = kernel.custom(%arg0) {{.*}} -> (tensor<512x1024xf16>, tensor<512x1xf16>)
// CHECK: %[[E:.*]] = block.for_loop 1 iterations accumulate (sum)
// CHECK: thread.unary exp
// CHECK: %[[S:.*]] = block.reduce_sum %[[E]] dim 1
// CHECK: block.store %[[E]], %out0
// CHECK: block.store %[[S]], %out1
// CHECK-NOT: kernel.
// CHECK: return %[[K]]#0, %[[K]]#1
// VERIFY: remark: @exp_and_row_sums is equivalent to @exp_and_row_sums_reference

func.func @exp_and_row_sums(%x: tensor<512x1024xf16>) -> (tensor<512x1024xf16>, tensor<512x1xf16>) {
  %e = kernel.exp %x : tensor<512x1024xf16>
  %s = kernel.reduce_sum %e dim 1 : tensor<512x1024xf16>
  return %e, %s : tensor<512x1024xf16>, tensor<512x1xf16>
}

// A stored value that later ops read, m1 = 0.9 m + g, where the program
// has the scaled operand first: the enumeration puts the lower-numbered
// value (the input g) first in a commutative op, so the kernel computes
// g + 0.9 m, and the output was looked up by its exact expression. Outputs
// now match up to the order of commutative operands, and the search finds
// the one kernel; before, it found two (which the fusion after it merges).
// REMARK: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @momentum_then_update(
// CHECK: %[[K:.*]]:2 = kernel.custom
// CHECK-COUNT-4: block.load
// CHECK-NOT: block.load
// CHECK-COUNT-2: block.store
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @momentum_then_update is equivalent to @momentum_then_update_reference

func.func @momentum_then_update(%p: tensor<256x1024xf32>, %g: tensor<256x1024xf32>, %m: tensor<256x1024xf32>, %d: tensor<256x1024xf32>) -> (tensor<256x1024xf32>, tensor<256x1024xf32>) {
  %m0 = kernel.mul_scalar %m, 9.000000e-01 : tensor<256x1024xf32>
  %m1 = kernel.add %m0, %g : tensor<256x1024xf32>, tensor<256x1024xf32>
  %u = kernel.div %m1, %d : tensor<256x1024xf32>, tensor<256x1024xf32>
  %p1 = kernel.sub %p, %u : tensor<256x1024xf32>, tensor<256x1024xf32>
  return %p1, %m1 : tensor<256x1024xf32>, tensor<256x1024xf32>
}

// The stored value equals the output only by the axioms: the kernel the
// search finds computes v * b + s * b as (v + s) * b, one product fewer.
// Past the literal pass, outputs are matched as the kernel level matches
// them, and the one kernel stores it; before, the search found two.
// REMARK: remark: superoptimize: replaced 5 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @factored_output(
// CHECK: %[[K:.*]]:2 = kernel.custom
// CHECK-COUNT-3: block.load
// CHECK-NOT: block.load
// CHECK-COUNT-2: block.store
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @factored_output is equivalent to @factored_output_reference

func.func @factored_output(%v: tensor<1024x4096xf32>, %s: tensor<1024x4096xf32>, %b: tensor<1024x4096xf32>) -> (tensor<1024x4096xf32>, tensor<1024x4096xf32>) {
  %0 = kernel.mul %v, %b : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %1 = kernel.mul %s, %b : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %2 = kernel.add %0, %1 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %3 = kernel.sqrt %2 : tensor<1024x4096xf32>
  %4 = kernel.add %3, %b : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  return %4, %2 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
}

// exp(x) and x * exp(x), both outputs: a loop that runs once accumulates
// exp(x), which the product reads in the body, beside the product. Before,
// the body's one leaf was the product, and a body that only loads x (for
// the epilogue to compute both) is not enumerated: the two ops stayed two
// launches.
// REMARK: remark: superoptimize: replaced 2 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @exp_and_scaled(
// CHECK: %[[K:.*]]:2 = kernel.custom
// CHECK: block.for_loop 1 iterations accumulate (sum, sum)
// CHECK-COUNT-1: block.load
// CHECK-NOT: block.load
// CHECK-COUNT-2: block.store
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @exp_and_scaled is equivalent to @exp_and_scaled_reference

func.func @exp_and_scaled(%x: tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>) {
  %a = kernel.exp %x : tensor<128x64xf32>
  %b = kernel.mul %x, %a : tensor<128x64xf32>, tensor<128x64xf32>
  return %a, %b : tensor<128x64xf32>, tensor<128x64xf32>
}
