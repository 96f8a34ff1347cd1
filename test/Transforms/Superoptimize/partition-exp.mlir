// The cut keeps an exp with what computes its operand when the finite-field
// verifier can evaluate exp of it: everything but a value that depends on
// another exp (docs/verification.md). exp(tanh(x)) is one subprogram and
// one kernel (tanh's residue mod q is a random function of x mod p);
// exp(exp(x)) is two subprograms, the inner exp's result arriving in the
// outer one as an input.
// The pass verifies the kernel it puts in place itself.
// RUN: mlsopt-opt %s --split-input-file --superoptimize="timeout=5" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

// REMARK: partition-exp.mlir:[[# @LINE + 8]]:8: remark: superoptimize: replaced 2 kernel ops {{.*}} by 1 kernels
// CHECK-LABEL: func.func @exp_of_tanh(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
func.func @exp_of_tanh(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %t = kernel.tanh %x : tensor<64x256xf32>
  %e = kernel.exp %t : tensor<64x256xf32>
  return %e : tensor<64x256xf32>
}

// -----

// Each exp is left to join the kernel beside it, the other exp, which is no
// custom kernel either: both say so once the fusion is done.
// REMARK: partition-exp.mlir:[[# @LINE + 7]]:8: remark: superoptimize: kept the subprogram of 1 kernel ops
// REMARK: partition-exp.mlir:[[# @LINE + 7]]:8: remark: superoptimize: kept the subprogram of 1 kernel ops
// REMARK: partition-exp.mlir:[[# @LINE + 5]]:8: remark: superoptimize: the elementwise op left to join a kernel beside it stays a launch of its own
// REMARK: partition-exp.mlir:[[# @LINE + 5]]:8: remark: superoptimize: the elementwise op left to join a kernel beside it stays a launch of its own
// REMARK-NOT: remark
// CHECK-LABEL: func.func @exp_of_exp(
func.func @exp_of_exp(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %t = kernel.exp %x : tensor<64x256xf32>
  %e = kernel.exp %t : tensor<64x256xf32>
  return %e : tensor<64x256xf32>
}
