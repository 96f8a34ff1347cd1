// Two projections of the same activations by weights of one shape (a
// grouped GEMM: Q and K projections, or an MLP's gate and up before
// anything combines them). The search unifies the two products' column
// dims, so one grid dim places the tiles of both, and one kernel loads x's
// tiles once and multiplies them by both weights: 6.33 us est. against two
// kernels at 9.77 us, the two launches the search found before.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false threads=1 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false threads=1 timeout=20 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// REMARK: remark: superoptimize: replaced 2 kernel ops (15.53 us) by 1 kernels (6.33 us)
// CHECK-LABEL: func.func @two_projections(
// CHECK: %[[K:.*]]:2 = kernel.custom(%arg0, %arg1, %arg2)
// CHECK-COUNT-2: block.matmul
// CHECK-COUNT-2: block.store
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return %[[K]]#0, %[[K]]#1
// VERIFY: @two_projections is equivalent to @two_projections_reference
// GPU-COUNT-1: gpu.launch_func
// GPU-NOT: gpu.launch_func

func.func @two_projections(%x: tensor<128x2048xf16>, %wa: tensor<2048x1024xf16>, %wb: tensor<2048x1024xf16>) -> (tensor<128x1024xf16>, tensor<128x1024xf16>) {
  %a = kernel.matmul %x, %wa : tensor<128x2048xf16>, tensor<2048x1024xf16>
  %b = kernel.matmul %x, %wb : tensor<128x2048xf16>, tensor<2048x1024xf16>
  return %a, %b : tensor<128x1024xf16>, tensor<128x1024xf16>
}
