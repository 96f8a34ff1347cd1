// Subprograms that mix element types. The search sees through
// kernel.convert: ops are computed in f32, and the kernels convert as they
// load the inputs (to the type the program reads them in, for a matmul's
// tensor-core operands) and store the results. Before,
// each conversion cut the subprogram, and the pieces on either side became
// kernels of their own.
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}
// RUN: mlsopt-opt %s --superoptimize="timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}

// A bf16 gated MLP whose SiLU and product are computed in f32, as
// torch-mlir imports silu(x W1) * (x W2) written with .float(): the two
// products and the f32 epilogue are one kernel, which loads bf16 and stores
// bf16. Before: three kernels (the products, then the epilogue). The
// products keep their bf16 operands and sum into f32 (widening matmuls).
// REMARK: remark: superoptimize: replaced 7 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @gated_mlp_f32_silu(
// CHECK: kernel.custom(%arg0, %arg1, %arg2)
// CHECK-SAME: -> tensor<8x256xbf16>
// CHECK: block.load %in0 {{.*}} : tensor<8x512xbf16> -> tensor<{{.*}}xbf16>
// CHECK: block.matmul {{.*}}xbf16>, tensor<{{.*}}xbf16> -> tensor<{{.*}}xf32>
// CHECK: block.matmul {{.*}}xbf16>, tensor<{{.*}}xbf16> -> tensor<{{.*}}xf32>
// CHECK: thread.unary silu {{.*}} : f32
// CHECK: block.store {{.*}}xf32> into tensor<8x256xbf16>
// CHECK-NOT: kernel.
// CHECK: return
func.func @gated_mlp_f32_silu(%x: tensor<8x512xbf16>, %w1: tensor<512x256xbf16>, %w2: tensor<512x256xbf16>) -> tensor<8x256xbf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x512xbf16>, tensor<512x256xbf16>
  %b = kernel.matmul %x, %w2 : tensor<8x512xbf16>, tensor<512x256xbf16>
  %af = kernel.convert %a : tensor<8x256xbf16> to tensor<8x256xf32>
  %bf = kernel.convert %b : tensor<8x256xbf16> to tensor<8x256xf32>
  %s = kernel.silu %af : tensor<8x256xf32>
  %m = kernel.mul %s, %bf : tensor<8x256xf32>, tensor<8x256xf32>
  %o = kernel.convert %m : tensor<8x256xf32> to tensor<8x256xbf16>
  return %o : tensor<8x256xbf16>
}

// bf16 ops between conversions of an f32 input and an f32 result: the
// kernel loads x rounded to bf16, as the program reads it, multiplies the
// bf16 tiles on the tensor cores into f32 (a widening matmul), computes
// the SiLU in f32 and stores f32.
// REMARK: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @bf16_between_f32(
// CHECK: kernel.custom(%arg0, %arg1)
// CHECK-SAME: -> tensor<16x512xf32>
// CHECK: block.load %in0 {{.*}} : tensor<16x256xf32> -> tensor<{{.*}}xbf16>
// CHECK: block.load %in1 {{.*}} : tensor<256x512xbf16> -> tensor<{{.*}}xbf16>
// CHECK: block.matmul {{.*}}xbf16>, tensor<{{.*}}xbf16> -> tensor<{{.*}}xf32>
// CHECK: thread.unary silu {{.*}} : f32
// CHECK: block.store {{.*}}xf32> into tensor<16x512xf32>
// CHECK-NOT: kernel.
// CHECK: return
func.func @bf16_between_f32(%x: tensor<16x256xf32>, %w: tensor<256x512xbf16>) -> tensor<16x512xf32> {
  %xb = kernel.convert %x : tensor<16x256xf32> to tensor<16x256xbf16>
  %h = kernel.matmul %xb, %w : tensor<16x256xbf16>, tensor<256x512xbf16>
  %s = kernel.silu %h : tensor<16x512xbf16>
  %o = kernel.convert %s : tensor<16x512xbf16> to tensor<16x512xf32>
  return %o : tensor<16x512xf32>
}

// An f32 activation the program rounds to f16 for its product (as
// fake-quantized code does): the kernel loads it rounded to f16, as the
// program reads it, and multiplies on the f16 tensor cores. It was loaded
// f32 and multiplied as tf32, unrounded: another function where a value
// past 65504 made inf.
// REMARK: remark: superoptimize: replaced 3 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @f16_product_of_f32(
// CHECK: kernel.custom(%arg0, %arg1)
// CHECK: block.load %in0 {{.*}} : tensor<16x256xf32> -> tensor<{{.*}}xf16>
// CHECK: block.matmul {{.*}}xf16>, tensor<{{.*}}xf16> -> tensor<{{.*}}xf32>
// CHECK-NOT: kernel.
// CHECK: return
func.func @f16_product_of_f32(%x: tensor<16x256xf32>, %w: tensor<256x512xf16>) -> tensor<16x512xf16> {
  %xh = kernel.convert %x : tensor<16x256xf32> to tensor<16x256xf16>
  %h = kernel.matmul %xh, %w : tensor<16x256xf16>, tensor<256x512xf16>
  %s = kernel.silu %h : tensor<16x512xf16>
  return %s : tensor<16x512xf16>
}

// One value returned in two types: the kernel stores its tile twice. Before:
// the conversion was a copy kernel of its own.
// REMARK: remark: superoptimize: replaced 3 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @returned_in_two_types(
// CHECK: %[[K:.*]]:2 = kernel.custom(%arg0, %arg1)
// CHECK-SAME: -> (tensor<16x512xbf16>, tensor<16x512xf32>)
// CHECK: block.store %[[T:.*]], %out0 {{.*}} into tensor<16x512xbf16>
// CHECK: block.store %[[T]], %out1 {{.*}} into tensor<16x512xf32>
// CHECK-NOT: kernel.
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @returned_in_two_types(%x: tensor<16x256xbf16>, %w: tensor<256x512xbf16>) -> (tensor<16x512xbf16>, tensor<16x512xf32>) {
  %h = kernel.matmul %x, %w : tensor<16x256xbf16>, tensor<256x512xbf16>
  %s = kernel.silu %h : tensor<16x512xbf16>
  %o = kernel.convert %s : tensor<16x512xbf16> to tensor<16x512xf32>
  return %s, %o : tensor<16x512xbf16>, tensor<16x512xf32>
}

// A rounding the program computes with: the bf16 rounding error of x
// (a fake quantization). The search, whose abstract expressions and finite
// field have no rounding, would see x - x (and found a kernel storing
// zeros): the rounding is no part of the subprogram, it stays a
// conversion, and the kernel loads its bf16 result. The widening and the
// subtraction are already one kernel at the cost's lower bound (the
// closing fusion's, which the search costs with), so the search ends at
// once and that fusion makes the kernel.
// REMARK: remark: superoptimize: kept the subprogram of 2 kernel ops ({{.*}}); searched for {{.*}} (ended at once
// REMARK: remark: superoptimize: fused across the cut: 1 launches fewer{{.*}}; @rounding_error launches 2 kernels
// CHECK-LABEL: func.func @rounding_error(
// CHECK: %[[Q:.*]] = kernel.convert %arg0 : tensor<16x32xf32> to tensor<16x32xbf16>
// CHECK: kernel.custom(%[[Q]], %arg0)
// CHECK: block.load %in0 {{.*}} : tensor<16x32xbf16> -> tensor<{{.*}}xf32>
// CHECK: block.load %in1 {{.*}} : tensor<16x32xf32> -> tensor<{{.*}}xf32>
// CHECK: thread.binary sub %[[A:arg[0-9]+]], %[[B:arg[0-9]+]]
// CHECK-NOT: kernel.
// CHECK: return
func.func @rounding_error(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %q = kernel.convert %x : tensor<16x32xf32> to tensor<16x32xbf16>
  %w = kernel.convert %q : tensor<16x32xbf16> to tensor<16x32xf32>
  %e = kernel.sub %w, %x : tensor<16x32xf32>, tensor<16x32xf32>
  return %e : tensor<16x32xf32>
}

// Two roundings of one value, to f16 and to bf16, subtracted: neither is
// x to the search's kernels, which load both rounded.
// REMARK: remark: superoptimize: kept the subprogram of 3 kernel ops ({{.*}}); searched for {{.*}} (ended at once
// REMARK: remark: superoptimize: fused across the cut: 2 launches fewer{{.*}}; @two_roundings launches 3 kernels
// CHECK-LABEL: func.func @two_roundings(
// CHECK-DAG: %[[H:.*]] = kernel.convert %arg0 : tensor<16x32xf32> to tensor<16x32xf16>
// CHECK-DAG: %[[B:.*]] = kernel.convert %arg0 : tensor<16x32xf32> to tensor<16x32xbf16>
// CHECK: kernel.custom(%[[H]], %[[B]])
// CHECK: block.load %in0 {{.*}} : tensor<16x32xf16> -> tensor<{{.*}}xf32>
// CHECK: block.load %in1 {{.*}} : tensor<16x32xbf16> -> tensor<{{.*}}xf32>
// CHECK-NOT: kernel.
// CHECK: return
func.func @two_roundings(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %h = kernel.convert %x : tensor<16x32xf32> to tensor<16x32xf16>
  %b = kernel.convert %x : tensor<16x32xf32> to tensor<16x32xbf16>
  %hw = kernel.convert %h : tensor<16x32xf16> to tensor<16x32xf32>
  %bw = kernel.convert %b : tensor<16x32xbf16> to tensor<16x32xf32>
  %e = kernel.sub %hw, %bw : tensor<16x32xf32>, tensor<16x32xf32>
  return %e : tensor<16x32xf32>
}

// An input rounded and widened again before the program computes with it
// (a quantization-aware weight): the rounding is the program's own, so the
// kernel reads the rounded weight, not f32 tiles of the unrounded one.
// REMARK: remark: superoptimize: replaced 2 kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @rounded_weight(
// CHECK: %[[Q:.*]] = kernel.convert %arg1 : tensor<64x24xf32> to tensor<64x24xbf16>
// CHECK: kernel.custom(
// CHECK-SAME: %[[Q]]
// CHECK: block.load %in{{[01]}} {{.*}} : tensor<64x24xbf16> -> tensor<{{.*}}>
// CHECK-NOT: kernel.
// CHECK: return
func.func @rounded_weight(%x: tensor<16x64xf32>, %w: tensor<64x24xf32>) -> tensor<16x24xf32> {
  %q = kernel.convert %w : tensor<64x24xf32> to tensor<64x24xbf16>
  %d = kernel.convert %q : tensor<64x24xbf16> to tensor<64x24xf32>
  %y = kernel.matmul %x, %d : tensor<16x64xf32>, tensor<64x24xf32>
  return %y : tensor<16x24xf32>
}

// VERIFY: remark: @gated_mlp_f32_silu is equivalent to @gated_mlp_f32_silu_reference
// VERIFY: remark: @bf16_between_f32 is equivalent to @bf16_between_f32_reference
// VERIFY: remark: @f16_product_of_f32 is equivalent to @f16_product_of_f32_reference
// VERIFY: remark: @returned_in_two_types is equivalent to @returned_in_two_types_reference
// VERIFY: remark: @rounding_error is equivalent to @rounding_error_reference
// VERIFY: remark: @two_roundings is equivalent to @two_roundings_reference
// VERIFY: remark: @rounded_weight is equivalent to @rounded_weight_reference
