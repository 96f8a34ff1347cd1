// The kernels --fuse-kernel-elementwise builds (a prologue over a
// broadcast bias loaded without the grid split, an epilogue chain after
// the loop, RMS norms of Q and K tiles before their product) lower to one launch each that ptxas accepts for sm_80 and
// sm_90; the bias tile is loaded per loop iteration like the activations'.
// REQUIRES: ptxas
// RUN: mlsopt-opt %S/../../Transforms/fuse-kernel-elementwise-verify.mlir --fuse-kernel-elementwise -o %t.fused.mlir
// RUN: mlsopt-opt %t.fused.mlir --mlsopt-gpu-pipeline=chip=sm_80 -o %t.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_80.mlir -o %t.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin
// RUN: mlsopt-opt %t.fused.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin
// RUN: FileCheck %s < %t.sm_90.mlir

// CHECK-LABEL: func.func @bias_then_sum(
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK-LABEL: func.func @exp_then_chain(
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK-LABEL: func.func @normed_scores(
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
