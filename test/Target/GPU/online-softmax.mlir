// The online-softmax statistics kernel the search finds
// (test/Transforms/Superoptimize/online-softmax.mlir: a for-loop with `max`
// and `rescale by 0` accumulators) lowers to one launch that ptxas accepts
// for sm_80 and sm_90.
// REQUIRES: ptxas
// RUN: mlsopt-opt %S/../../Transforms/Superoptimize/online-softmax.mlir --superoptimize="timeout=20 target=sm_80" 2>/dev/null -o %t.found.mlir
// RUN: mlsopt-opt %t.found.mlir --mlsopt-gpu-pipeline=chip=sm_80 -o %t.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_80.mlir -o %t.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin
// RUN: mlsopt-opt %t.found.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin
// RUN: FileCheck %s < %t.sm_90.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx

// CHECK-LABEL: func.func @stats(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return

// The row maxima and the exps of the rescale (exp(m_old - m_new)) are
// computed in f32.
// PTX-DAG: ex2.approx{{.*}}.f32
// PTX-DAG: max.{{(NaN.)?}}f32
