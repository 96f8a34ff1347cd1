// Functions that take scalars: a bf16 linear layer whose input is scaled by
// an f32 `alpha` (rounded to bf16 above the op), and row means divided by
// an i32 count. The import reads each scalar as a 0-d tensor, the search
// fuses the scale, its rounding and the matmul into one kernel, and the
// equivalence check draws the scalars like any input. On the GPU a scalar
// argument is a device buffer of one element: the host function takes a
// memref<f32> (memref<i32>), and the launch plan lists it as an input of
// shape [], which the kernel reads through a [1, 1] view. ptxas accepts
// the PTX for sm_80 and sm_90; the bf16 matmul runs on tensor cores.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --superoptimize="timeout=20 keep-reference=true" -o %t.searched.mlir 2>/dev/null
// RUN: mlsopt-opt %t.searched.mlir --verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.searched.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.sm_90.mlir
// RUN: mlsopt-translate --emit-launch-plan %t.sm_90.mlir | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: mlsopt-opt %t.searched.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// VERIFY-DAG: remark: @bf16_scale is equivalent to @bf16_scale_reference
// VERIFY-DAG: remark: @int_count is equivalent to @int_count_reference
// VERIFY-NOT: f32 check

// HOST-LABEL: func.func @bf16_scale(%arg0: memref<32x64xbf16>, %arg1: memref<64x48xbf16>, %arg2: memref<f32>, %arg3: memref<32x48xbf16>
// HOST: gpu.launch_func @mlsopt_kernels::@bf16_scale_kernel0
// HOST-NOT: @bf16_scale_kernel1
// HOST: return
// HOST-LABEL: func.func @int_count(%arg0: memref<16x32xf32>, %arg1: memref<i32>, %arg2: memref<16xf32>

// PLAN-LABEL: "name": "bf16_scale",
// PLAN: "index": 2,
// PLAN-NEXT: "role": "input",
// PLAN-NEXT: "shape": [],
// PLAN-NEXT: "dtype": "f32",
// PLAN-NEXT: "bytes": 4
// PLAN: "kernel": "bf16_scale_kernel0",
// PLAN: "kind": "argument",
// PLAN-NEXT: "index": 2,
// PLAN-NEXT: "shape": [
// PLAN-NEXT: 1,
// PLAN-NEXT: 1
// PLAN-LABEL: "name": "int_count",
// PLAN: "index": 1,
// PLAN-NEXT: "role": "input",
// PLAN-NEXT: "shape": [],
// PLAN-NEXT: "dtype": "i32",
// PLAN-NEXT: "bytes": 4

// PTX-LABEL: .entry bf16_scale_kernel0(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @bf16_scale(%x: tensor<32x64xbf16>, %w: tensor<64x48xbf16>, %alpha: f32) -> tensor<32x48xbf16> {
  %a = arith.truncf %alpha : f32 to bf16
  %e = tensor.empty() : tensor<32x64xbf16>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<32x64xbf16>) outs(%e : tensor<32x64xbf16>) {
  ^bb0(%in: bf16, %o: bf16):
    %m = arith.mulf %in, %a : bf16
    linalg.yield %m : bf16
  } -> tensor<32x64xbf16>
  %z = arith.constant 0.0 : bf16
  %e2 = tensor.empty() : tensor<32x48xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e2 : tensor<32x48xbf16>) -> tensor<32x48xbf16>
  %r = linalg.matmul ins(%s, %w : tensor<32x64xbf16>, tensor<64x48xbf16>) outs(%f : tensor<32x48xbf16>) -> tensor<32x48xbf16>
  return %r : tensor<32x48xbf16>
}
func.func @int_count(%x: tensor<16x32xf32>, %n: i32) -> tensor<16xf32> {
  %nf = arith.sitofp %n : i32 to f32
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x32xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.addf %in, %o : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s : tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.divf %in, %nf : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
