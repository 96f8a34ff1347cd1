// kernel.convert (the casts of a mixed-precision front-end program) runs on
// the GPU as a copy kernel of its own, like a left-over transpose: one thread
// per element, 256 to a block, which loads the element, converts it in
// registers (cvt.f32.f16 widens, cvt.rn.bf16.f32 / cvt.rn.f16.f32 round to
// nearest even; f16 to bf16 goes through f32) and stores it. An f16 softmax
// computed in f32: the search fuses the f32 softmax into one kernel, and the
// two conversions move into its loads and stores, which convert each
// element (no cp.async copy for the converting load; the store converts 4
// elements at a time in registers, two per cvt.rn.f16x2.f32). ptxas accepts the PTX for sm_80 and
// sm_90.
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx
// RUN: FileCheck %s < %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-launch-plan | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-opt %s --superoptimize=timeout=20 | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-launch-plan | FileCheck %s --check-prefix=SEARCHED
// RUN: mlsopt-opt %s --superoptimize=timeout=20 -o %t.searched.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t.searched.mlir
// RUN: mlsopt-opt %t.searched.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.fused.ptx
// RUN: FileCheck %s --check-prefix=FUSED-PTX < %t.fused.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.fused.ptx -o %t.fused.cubin %}
// RUN: mlsopt-opt %s --superoptimize="timeout=20 keep-reference=true" | mlsopt-opt --verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY

// VERIFY: remark: @softmax_f16 is equivalent to @softmax_f16_reference

// CHECK-LABEL: .entry casts_kernel0(
// CHECK: cvt.f32.f16
// CHECK-LABEL: .entry casts_kernel1(
// CHECK: cvt.rn.bf16.f32
// CHECK-LABEL: .entry casts_kernel2(
// CHECK: cvt.f32.f16
// CHECK: cvt.rn.bf16.f32

// PLAN: "kernel": "casts_kernel0",
// PLAN-NEXT: "grid": [
// PLAN-NEXT: 2,
// PLAN: "block": [
// PLAN-NEXT: 256,

// The softmax and its conversions: one kernel.
// SEARCHED-LABEL: "name": "softmax_f16",
// SEARCHED: "kernel": "softmax_f16_kernel0"
// SEARCHED-NOT: "kernel": "softmax_f16_kernel1"
// FUSED-LABEL: func.func @softmax_f16
// FUSED-NOT: kernel.convert
// FUSED: kernel.custom(%{{.*}}) {{.*}} : (tensor<64x512xf16>) -> tensor<64x512xf16>
// FUSED: block.load %{{.*}} : tensor<64x512xf16> -> tensor<1x512xf32>
// FUSED: block.store %{{.*}} : tensor<1x512xf32> into tensor<64x512xf16>
// FUSED-NOT: kernel.convert
// FUSED: return
// FUSED-PTX-LABEL: .entry softmax_f16_kernel0(
// FUSED-PTX-NOT: cp.async.cg
// FUSED-PTX: cvt.f32.f16
// FUSED-PTX-NOT: cp.async.cg
// FUSED-PTX: cvt.rn.f16x2.f32

func.func @casts(%h: tensor<8x64xf16>, %f: tensor<8x64xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xbf16>, tensor<8x64xbf16>) {
  %0 = kernel.convert %h : tensor<8x64xf16> to tensor<8x64xf32>
  %1 = kernel.convert %f : tensor<8x64xf32> to tensor<8x64xbf16>
  %2 = kernel.convert %h : tensor<8x64xf16> to tensor<8x64xbf16>
  return %0, %1, %2 : tensor<8x64xf32>, tensor<8x64xbf16>, tensor<8x64xbf16>
}

func.func @softmax_f16(%x: tensor<64x512xf16>) -> tensor<64x512xf16> {
  %w = kernel.convert %x : tensor<64x512xf16> to tensor<64x512xf32>
  %m = kernel.reduce_max %w dim 1 : tensor<64x512xf32>
  %d = kernel.sub %w, %m : tensor<64x512xf32>, tensor<64x1xf32>
  %e = kernel.exp %d : tensor<64x512xf32>
  %s = kernel.reduce_sum %e dim 1 : tensor<64x512xf32>
  %p = kernel.div %e, %s : tensor<64x512xf32>, tensor<64x1xf32>
  %y = kernel.convert %p : tensor<64x512xf32> to tensor<64x512xf16>
  return %y : tensor<64x512xf16>
}
