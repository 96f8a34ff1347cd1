// A model repeats its layers: a subprogram identical to one searched before
// in the run (same ops, attributes, shapes and types) gets that search's
// outcome instead of a search of its own, checked at full shapes, and takes
// no share of the time. Forty LLaMA-style MLP layers ran out of time after
// about eleven of them when each was searched.
// RUN: mlsopt-opt %s --superoptimize="timeout=3" -o %t.mlir --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.mlir
// With keep-reference the pass checks nothing itself, so only the key
// separates the variants; --verify-equivalence checks every answer.
// RUN: mlsopt-opt %s --superoptimize="timeout=3 keep-reference=true" --mlir-print-op-on-diagnostic=false 2> %t.keep.log | mlsopt-opt --verify-equivalence -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: FileCheck %s --check-prefix=KEEP < %t.keep.log

// Two layers: the second's norm, projections and gate are the first's
// subprogram again.
// REMARK: [[FILE:.*]]:[[# @LINE + 12]]:9: remark: superoptimize: replaced 5 kernel ops ([[BEFORE:[0-9.]+]] us) by [[N:[0-9]+]] kernels ([[AFTER:[0-9.]+]] us); searched for
// REMARK: :[[# @LINE + 18]]:9: remark: superoptimize: replaced 5 kernel ops ([[BEFORE]] us) by [[N]] kernels ([[AFTER]] us) as the subprogram searched at [[FILE]]:[[# @LINE + 11]]:9, not searched again; verified at full shapes
// CHECK-LABEL: func.func @layers
// CHECK-COUNT-3: kernel.custom
// CHECK-NOT: kernel.custom
// CHECK: return
func.func @layers(%h0: tensor<8x64xf16>, %g0: tensor<64x128xf16>, %u0: tensor<64x128xf16>, %d0: tensor<128x64xf16>, %g1: tensor<64x128xf16>, %u1: tensor<64x128xf16>, %d1: tensor<128x64xf16>) -> tensor<8x64xf16> {
  %n0 = kernel.rms_norm %h0 {epsilon = 1.0e-06 : f64} : tensor<8x64xf16>
  %a0 = kernel.matmul %n0, %g0 : tensor<8x64xf16>, tensor<64x128xf16>
  %b0 = kernel.matmul %n0, %u0 : tensor<8x64xf16>, tensor<64x128xf16>
  %s0 = kernel.silu %a0 : tensor<8x128xf16>
  %m0 = kernel.mul %s0, %b0 : tensor<8x128xf16>, tensor<8x128xf16>
  %o0 = kernel.matmul %m0, %d0 : tensor<8x128xf16>, tensor<128x64xf16>
  %h1 = kernel.add %h0, %o0 : tensor<8x64xf16>, tensor<8x64xf16>
  %n1 = kernel.rms_norm %h1 {epsilon = 1.0e-06 : f64} : tensor<8x64xf16>
  %a1 = kernel.matmul %n1, %g1 : tensor<8x64xf16>, tensor<64x128xf16>
  %b1 = kernel.matmul %n1, %u1 : tensor<8x64xf16>, tensor<64x128xf16>
  %s1 = kernel.silu %a1 : tensor<8x128xf16>
  %m1 = kernel.mul %s1, %b1 : tensor<8x128xf16>, tensor<8x128xf16>
  %o1 = kernel.matmul %m1, %d1 : tensor<8x128xf16>, tensor<128x64xf16>
  %h2 = kernel.add %h1, %o1 : tensor<8x64xf16>, tensor<8x64xf16>
  return %h2 : tensor<8x64xf16>
}

// Functions share the outcomes too. An epsilon or a constant that differs
// makes a different subprogram, searched on its own.
// KEEP: :[[# @LINE + 7]]:8: remark: superoptimize: replaced 2 kernel ops ({{.*}}; searched for
// KEEP: :[[# @LINE + 11]]:8: remark: superoptimize: replaced 2 kernel ops ({{.*}}) as the subprogram searched at {{.*}}:[[# @LINE + 6]]:8, not searched again{{$}}
// KEEP: :[[# @LINE + 15]]:8: remark: superoptimize: replaced 2 kernel ops ({{.*}}; searched for
// KEEP: :[[# @LINE + 20]]:8: remark: superoptimize: replaced 3 kernel ops ({{.*}}; searched for
// KEEP: :[[# @LINE + 25]]:8: remark: superoptimize: replaced 3 kernel ops ({{.*}}; searched for
func.func @eps6(%x: tensor<8x64xf16>, %w: tensor<64x128xf16>) -> tensor<8x128xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x64xf16>
  %p = kernel.matmul %n, %w : tensor<8x64xf16>, tensor<64x128xf16>
  return %p : tensor<8x128xf16>
}
func.func @eps6_again(%x: tensor<8x64xf16>, %w: tensor<64x128xf16>) -> tensor<8x128xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x64xf16>
  %p = kernel.matmul %n, %w : tensor<8x64xf16>, tensor<64x128xf16>
  return %p : tensor<8x128xf16>
}
func.func @eps5(%x: tensor<8x64xf16>, %w: tensor<64x128xf16>) -> tensor<8x128xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-05 : f64} : tensor<8x64xf16>
  %p = kernel.matmul %n, %w : tensor<8x64xf16>, tensor<64x128xf16>
  return %p : tensor<8x128xf16>
}
func.func @half(%x: tensor<8x64xf16>, %w: tensor<64x128xf16>) -> tensor<8x128xf16> {
  %s = kernel.mul_scalar %x, 5.000000e-01 : tensor<8x64xf16>
  %e = kernel.exp %s : tensor<8x64xf16>
  %p = kernel.matmul %e, %w : tensor<8x64xf16>, tensor<64x128xf16>
  return %p : tensor<8x128xf16>
}
func.func @quarter(%x: tensor<8x64xf16>, %w: tensor<64x128xf16>) -> tensor<8x128xf16> {
  %s = kernel.mul_scalar %x, 2.500000e-01 : tensor<8x64xf16>
  %e = kernel.exp %s : tensor<8x64xf16>
  %p = kernel.matmul %e, %w : tensor<8x64xf16>, tensor<64x128xf16>
  return %p : tensor<8x128xf16>
}
// VERIFY-DAG: remark: @eps6 is equivalent to @eps6_reference
// VERIFY-DAG: remark: @eps6_again is equivalent to @eps6_again_reference
// VERIFY-DAG: remark: @eps5 is equivalent to @eps5_reference
// VERIFY-DAG: remark: @half is equivalent to @half_reference
// VERIFY-DAG: remark: @quarter is equivalent to @quarter_reference
// VERIFY-NOT: different

// A subprogram for which nothing faster was found stays as it is in each
// place, searched once.
// REMARK: :[[# @LINE + 3]]:8: remark: superoptimize: kept the subprogram of 1 kernel ops ({{.*}}; searched for
// REMARK: :[[# @LINE + 6]]:8: remark: superoptimize: kept the subprogram of 1 kernel ops, not searched: it is the subprogram searched at [[FILE]]:[[# @LINE + 2]]:8, for which nothing faster was found
func.func @sum(%x: tensor<1024x1024xf16>, %y: tensor<1024x1024xf16>) -> tensor<1024x1024xf16> {
  %p = kernel.add %x, %y : tensor<1024x1024xf16>, tensor<1024x1024xf16>
  return %p : tensor<1024x1024xf16>
}
func.func @sum_again(%x: tensor<1024x1024xf16>, %y: tensor<1024x1024xf16>) -> tensor<1024x1024xf16> {
  %p = kernel.add %x, %y : tensor<1024x1024xf16>, tensor<1024x1024xf16>
  return %p : tensor<1024x1024xf16>
}

// An elementwise chain, searched in pieces of five ops: a piece that
// repeats an earlier one takes its μGraph unsearched, and the kernels of
// the pieces, one launch each, merge into one. (fusion-beats-answer.mlir
// has a repeat whose μGraph the fusion beats in its place.)
// REMARK: :[[# @LINE + 23]]:10: remark: superoptimize: replaced 5 kernel ops ({{.*}}) by 1 kernels ({{.*}}) as the subprogram searched at [[FILE]]:[[# @LINE + 8]]:9, not searched again
// REMARK: @chain launches 1 kernels ({{.*}}), 30 before
func.func @chain(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %v0 = kernel.silu %x : tensor<64x256xf32>
  %v1 = kernel.mul_scalar %v0, 5.000000e-01 : tensor<64x256xf32>
  %v2 = kernel.add %v1, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %v3 = kernel.silu %v2 : tensor<64x256xf32>
  %v4 = kernel.mul_scalar %v3, 5.000000e-01 : tensor<64x256xf32>
  %v5 = kernel.add %v4, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %v6 = kernel.silu %v5 : tensor<64x256xf32>
  %v7 = kernel.mul_scalar %v6, 5.000000e-01 : tensor<64x256xf32>
  %v8 = kernel.add %v7, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %v9 = kernel.silu %v8 : tensor<64x256xf32>
  %v10 = kernel.mul_scalar %v9, 5.000000e-01 : tensor<64x256xf32>
  %v11 = kernel.add %v10, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %v12 = kernel.silu %v11 : tensor<64x256xf32>
  %v13 = kernel.mul_scalar %v12, 5.000000e-01 : tensor<64x256xf32>
  %v14 = kernel.add %v13, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %v15 = kernel.silu %v14 : tensor<64x256xf32>
  %v16 = kernel.mul_scalar %v15, 5.000000e-01 : tensor<64x256xf32>
  %v17 = kernel.add %v16, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %v18 = kernel.silu %v17 : tensor<64x256xf32>
  %v19 = kernel.mul_scalar %v18, 5.000000e-01 : tensor<64x256xf32>
  %v20 = kernel.add %v19, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %v21 = kernel.silu %v20 : tensor<64x256xf32>
  %v22 = kernel.mul_scalar %v21, 5.000000e-01 : tensor<64x256xf32>
  %v23 = kernel.add %v22, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %v24 = kernel.silu %v23 : tensor<64x256xf32>
  %v25 = kernel.mul_scalar %v24, 5.000000e-01 : tensor<64x256xf32>
  %v26 = kernel.add %v25, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %v27 = kernel.silu %v26 : tensor<64x256xf32>
  %v28 = kernel.mul_scalar %v27, 5.000000e-01 : tensor<64x256xf32>
  %v29 = kernel.add %v28, %y : tensor<64x256xf32>, tensor<64x256xf32>
  return %v29 : tensor<64x256xf32>
}
