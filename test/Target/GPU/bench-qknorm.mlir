// bench/qknorm_b1.mlir (in f16, bf16 and f32) and bench/qknorm_b8.mlir (f16),
// imported from linalg, lower to PTX that ptxas accepts for sm_80 and sm_90.
// REQUIRES: ptxas
// RUN: mlsopt-opt %mlsopt_src_root/bench/qknorm_b1.mlir --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_80 -o %t.b1.f16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.f16.sm_80.mlir -o %t.b1.f16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.b1.f16.sm_80.ptx -o %t.b1.f16.sm_80.cubin
// RUN: mlsopt-opt %mlsopt_src_root/bench/qknorm_b1.mlir --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 -o %t.b1.f16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.f16.sm_90.mlir -o %t.b1.f16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.b1.f16.sm_90.ptx -o %t.b1.f16.sm_90.cubin
// RUN: sed s/f16/bf16/g %mlsopt_src_root/bench/qknorm_b1.mlir | mlsopt-opt --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_80 -o %t.b1.bf16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.bf16.sm_80.mlir -o %t.b1.bf16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.b1.bf16.sm_80.ptx -o %t.b1.bf16.sm_80.cubin
// RUN: sed s/f16/bf16/g %mlsopt_src_root/bench/qknorm_b1.mlir | mlsopt-opt --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 -o %t.b1.bf16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.bf16.sm_90.mlir -o %t.b1.bf16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.b1.bf16.sm_90.ptx -o %t.b1.bf16.sm_90.cubin
// RUN: sed s/f16/f32/g %mlsopt_src_root/bench/qknorm_b1.mlir | mlsopt-opt --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_80 -o %t.b1.f32.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.f32.sm_80.mlir -o %t.b1.f32.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.b1.f32.sm_80.ptx -o %t.b1.f32.sm_80.cubin
// RUN: sed s/f16/f32/g %mlsopt_src_root/bench/qknorm_b1.mlir | mlsopt-opt --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 -o %t.b1.f32.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.f32.sm_90.mlir -o %t.b1.f32.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.b1.f32.sm_90.ptx -o %t.b1.f32.sm_90.cubin
// RUN: mlsopt-opt %mlsopt_src_root/bench/qknorm_b8.mlir --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_80 -o %t.b8.f16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.b8.f16.sm_80.mlir -o %t.b8.f16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.b8.f16.sm_80.ptx -o %t.b8.f16.sm_80.cubin
// RUN: mlsopt-opt %mlsopt_src_root/bench/qknorm_b8.mlir --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 -o %t.b8.f16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.b8.f16.sm_90.mlir -o %t.b8.f16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.b8.f16.sm_90.ptx -o %t.b8.f16.sm_90.cubin
// RUN: FileCheck %s < %t.b1.f16.sm_90.mlir
// With the normalizations raised (as --superoptimize does first), K's is one
// rms_norm over dim 1, whose block graph normalizes the columns of a
// [1, 64, n] tile: it compiles for both chips too.
// RUN: mlsopt-opt %mlsopt_src_root/bench/qknorm_b1.mlir --convert-linalg-to-kernel --raise-kernel-idioms --mlsopt-gpu-pipeline=chip=sm_80 -o %t.raised.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.raised.sm_80.mlir -o %t.raised.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.raised.sm_80.ptx -o %t.raised.sm_80.cubin
// RUN: mlsopt-opt %mlsopt_src_root/bench/qknorm_b1.mlir --convert-linalg-to-kernel --raise-kernel-idioms --mlsopt-gpu-pipeline=chip=sm_90 -o %t.raised.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.raised.sm_90.mlir -o %t.raised.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.raised.sm_90.ptx -o %t.raised.sm_90.cubin
// RUN: FileCheck %s --check-prefix=RAISED < %t.raised.sm_90.mlir

// One launch per imported kernel op, nothing else on the host.
// CHECK-LABEL: func.func @qknorm(
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return

// Raised: each normalization is one launch, 7 in all.
// RAISED-LABEL: func.func @qknorm(
// RAISED-COUNT-7: gpu.launch_func
// RAISED-NOT: gpu.launch_func
// RAISED: return
