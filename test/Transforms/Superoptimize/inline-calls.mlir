// Calls to private functions (helpers) are inlined before the search
// (--mlsopt-inline-helpers): a helper called between two matmuls
// (hand-written IR, StableHLO's func.call) parted the ops on its two sides,
// and the GPU pipeline rejected the call. The helpers go once no call is
// left to them. (inline-calls-public.mlir: a call to a public function
// stays.)
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | FileCheck %s --check-prefix=GPU

// REMARK: remark: superoptimize: replaced 5 kernel ops {{.*}} by 1 kernels
// The second tanh, at its call, joins the kernel.
// REMARK: inline-calls.mlir:[[# @LINE + 22]]:8: remark: superoptimize: kept the subprogram of 1 kernel ops, not searched
// REMARK: inline-calls.mlir:[[# @LINE + 34]]:8: note: called from
// VERIFY: remark: @mlp is equivalent to @mlp_reference

// CHECK-NOT: func.func private @act(
// CHECK-NOT: func.func private @gate(
// CHECK-LABEL: func.func @mlp(
// CHECK-NOT: call
// CHECK: kernel.custom
// CHECK-NOT: kernel.custom
// CHECK-NOT: call
// CHECK: return

// The host function launches the one kernel, and calls nothing.
// GPU-LABEL: func.func @mlp(
// GPU-NOT: call
// GPU-COUNT-1: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU-NOT: call
// GPU: return

func.func private @act(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %t = kernel.tanh %a : tensor<8x16xf32>
  return %t : tensor<8x16xf32>
}
func.func private @gate(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = kernel.silu %a : tensor<8x16xf32>
  %m = kernel.mul %s, %a : tensor<8x16xf32>, tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}
func.func @mlp(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>, %w2: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %m = kernel.matmul %x, %w : tensor<8x32xf32>, tensor<32x16xf32>
  %a = call @act(%m) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %g = call @gate(%a) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %m2 = kernel.matmul %g, %w2 : tensor<8x16xf32>, tensor<16x16xf32>
  %b = call @act(%m2) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}
