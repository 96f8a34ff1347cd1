// bench/ntrans_b1.mlir (in f16, bf16 and f32) and bench/ntrans_b8.mlir (f16),
// imported from linalg, lower to PTX that ptxas accepts for sm_80 and sm_90.
// REQUIRES: ptxas
// RUN: mlsopt-opt %mlsopt_src_root/bench/ntrans_b1.mlir --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_80 -o %t.b1.f16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.f16.sm_80.mlir -o %t.b1.f16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.b1.f16.sm_80.ptx -o %t.b1.f16.sm_80.cubin
// RUN: mlsopt-opt %mlsopt_src_root/bench/ntrans_b1.mlir --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 -o %t.b1.f16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.f16.sm_90.mlir -o %t.b1.f16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.b1.f16.sm_90.ptx -o %t.b1.f16.sm_90.cubin
// RUN: sed s/f16/bf16/g %mlsopt_src_root/bench/ntrans_b1.mlir | mlsopt-opt --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_80 -o %t.b1.bf16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.bf16.sm_80.mlir -o %t.b1.bf16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.b1.bf16.sm_80.ptx -o %t.b1.bf16.sm_80.cubin
// RUN: sed s/f16/bf16/g %mlsopt_src_root/bench/ntrans_b1.mlir | mlsopt-opt --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 -o %t.b1.bf16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.bf16.sm_90.mlir -o %t.b1.bf16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.b1.bf16.sm_90.ptx -o %t.b1.bf16.sm_90.cubin
// RUN: sed s/f16/f32/g %mlsopt_src_root/bench/ntrans_b1.mlir | mlsopt-opt --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_80 -o %t.b1.f32.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.f32.sm_80.mlir -o %t.b1.f32.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.b1.f32.sm_80.ptx -o %t.b1.f32.sm_80.cubin
// RUN: sed s/f16/f32/g %mlsopt_src_root/bench/ntrans_b1.mlir | mlsopt-opt --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 -o %t.b1.f32.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.b1.f32.sm_90.mlir -o %t.b1.f32.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.b1.f32.sm_90.ptx -o %t.b1.f32.sm_90.cubin
// RUN: mlsopt-opt %mlsopt_src_root/bench/ntrans_b8.mlir --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_80 -o %t.b8.f16.sm_80.mlir
// RUN: mlsopt-translate --emit-ptx %t.b8.f16.sm_80.mlir -o %t.b8.f16.sm_80.ptx
// RUN: %ptxas -arch=sm_80 %t.b8.f16.sm_80.ptx -o %t.b8.f16.sm_80.cubin
// RUN: mlsopt-opt %mlsopt_src_root/bench/ntrans_b8.mlir --convert-linalg-to-kernel --mlsopt-gpu-pipeline=chip=sm_90 -o %t.b8.f16.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.b8.f16.sm_90.mlir -o %t.b8.f16.sm_90.ptx
// RUN: %ptxas -arch=sm_90 %t.b8.f16.sm_90.ptx -o %t.b8.f16.sm_90.cubin
// RUN: FileCheck %s < %t.b1.f16.sm_90.mlir

// One launch per imported kernel op, nothing else on the host, but two for
// each of the two row sums: eight rows of 4096 leave most SMs idle, so
// their default block graphs split the rows into chunks across a grid z
// and a second kernel sums the chunks.
// CHECK-LABEL: func.func @ntrans(
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func {{.*}} blocks in (%c8, %c1, %c8)
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func {{.*}} blocks in (%c8, %c1, %c8)
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
