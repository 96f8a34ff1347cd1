// GPT-J's rotary embedding on [b, h, s, d] queries, as torch-mlir writes
// rotate_every_two: the even and odd elements as strided slices
// (`x[..., ::2]`, `x[..., 1::2]`), stacked as (-odd, even) pairs and
// flattened, then x * cos + rotated * sin with [s, d] tables. The import
// reads each slice as a window of the head dim split into [d / 2, 2], and
// every op of the embedding computes on that view (the tables and the
// queries are views of the arguments): one kernel, where the strided
// slices were copy kernels and the flattened pairs a cut (5 launches).
// Verified, then lowered to one launch that ptxas accepts for sm_80 and
// sm_90 in f16.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// IMPORT-LABEL: func.func @rotate_every_two(
// IMPORT-NOT: linalg.
// IMPORT-NOT: [1, 1, 1, 2]
// IMPORT: %[[Q:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1], [2], [3, 4]] output_shape [2, 4, 32, 32, 2]
// IMPORT: kernel.concat %{{.*}}, %{{.*}} dim 4 : tensor<2x4x32x32x1xf32>, tensor<2x4x32x32x1xf32>
// IMPORT: kernel.mul %[[Q]], %{{.*}} : tensor<2x4x32x32x2xf32>, tensor<32x32x2xf32>
// IMPORT: kernel.add %{{.*}}, %{{.*}} : tensor<2x4x32x32x2xf32>, tensor<2x4x32x32x2xf32>
// IMPORT-NEXT: %[[R:.*]] = tensor.collapse_shape
// IMPORT-NEXT: return %[[R]]

// VERIFY: remark: @rotate_every_two is equivalent to @rotate_every_two_reference

// HOST-LABEL: func.func @rotate_every_two(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return

// The same with the [s, d / 2] tables repeat_interleave'd to [s, d] (an
// expand of each to [s, d / 2, 1], a copy along a new dim of 2, a
// flatten): on the pairs view that is a broadcast along the pairs, which
// the products read through numpy broadcasting, so no copy of a table is
// made and the embedding is still one kernel.
// IMPORT-LABEL: func.func @half_tables(
// IMPORT-NOT: linalg.
// IMPORT: %[[C:.*]] = tensor.expand_shape %arg1 {{\[\[}}0], [1, 2]] output_shape [32, 32, 1]
// IMPORT: kernel.mul %{{.*}}, %[[C]] : tensor<2x4x32x32x2xf32>, tensor<32x32x1xf32>
// IMPORT: return
// VERIFY: remark: @half_tables is equivalent to @half_tables_reference
// HOST-LABEL: func.func @half_tables(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return

#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
#cs = affine_map<(b, h, s, d) -> (s, d)>
func.func @rotate_every_two(%x: tensor<2x4x32x64xf32>, %cos: tensor<32x64xf32>, %sin: tensor<32x64xf32>) -> tensor<2x4x32x64xf32> {
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [2, 4, 32, 32] [1, 1, 1, 2] : tensor<2x4x32x64xf32> to tensor<2x4x32x32xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 1] [2, 4, 32, 32] [1, 1, 1, 2] : tensor<2x4x32x64xf32> to tensor<2x4x32x32xf32>
  %e = tensor.empty() : tensor<2x4x32x32xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x2 : tensor<2x4x32x32xf32>) outs(%e : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.negf %a : f32
    linalg.yield %c : f32
  } -> tensor<2x4x32x32xf32>
  %a1 = tensor.expand_shape %n [[0], [1], [2], [3, 4]] output_shape [2, 4, 32, 32, 1] : tensor<2x4x32x32xf32> into tensor<2x4x32x32x1xf32>
  %b1 = tensor.expand_shape %x1 [[0], [1], [2], [3, 4]] output_shape [2, 4, 32, 32, 1] : tensor<2x4x32x32xf32> into tensor<2x4x32x32x1xf32>
  %st = tensor.concat dim(4) %a1, %b1 : (tensor<2x4x32x32x1xf32>, tensor<2x4x32x32x1xf32>) -> tensor<2x4x32x32x2xf32>
  %r = tensor.collapse_shape %st [[0], [1], [2], [3, 4]] : tensor<2x4x32x32x2xf32> into tensor<2x4x32x64xf32>
  %e2 = tensor.empty() : tensor<2x4x32x64xf32>
  %o = linalg.generic {indexing_maps = [#id, #cs, #id, #cs, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %cos, %r, %sin : tensor<2x4x32x64xf32>, tensor<32x64xf32>, tensor<2x4x32x64xf32>, tensor<32x64xf32>) outs(%e2 : tensor<2x4x32x64xf32>) {
  ^bb0(%a: f32, %c: f32, %rr: f32, %s: f32, %oo: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.mulf %rr, %s : f32
    %y = arith.addf %p, %q : f32
    linalg.yield %y : f32
  } -> tensor<2x4x32x64xf32>
  return %o : tensor<2x4x32x64xf32>
}

#rep = affine_map<(s, d, t) -> (s, d, 0)>
#id3 = affine_map<(s, d, t) -> (s, d, t)>
func.func @half_tables(%x: tensor<2x4x32x64xf32>, %cosh: tensor<32x32xf32>, %sinh: tensor<32x32xf32>) -> tensor<2x4x32x64xf32> {
  %ce = tensor.expand_shape %cosh [[0], [1, 2]] output_shape [32, 32, 1] : tensor<32x32xf32> into tensor<32x32x1xf32>
  %se = tensor.expand_shape %sinh [[0], [1, 2]] output_shape [32, 32, 1] : tensor<32x32xf32> into tensor<32x32x1xf32>
  %e3 = tensor.empty() : tensor<32x32x2xf32>
  %cb = linalg.generic {indexing_maps = [#rep, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ce : tensor<32x32x1xf32>) outs(%e3 : tensor<32x32x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<32x32x2xf32>
  %sb = linalg.generic {indexing_maps = [#rep, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%se : tensor<32x32x1xf32>) outs(%e3 : tensor<32x32x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<32x32x2xf32>
  %cos = tensor.collapse_shape %cb [[0], [1, 2]] : tensor<32x32x2xf32> into tensor<32x64xf32>
  %sin = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<32x32x2xf32> into tensor<32x64xf32>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [2, 4, 32, 32] [1, 1, 1, 2] : tensor<2x4x32x64xf32> to tensor<2x4x32x32xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 1] [2, 4, 32, 32] [1, 1, 1, 2] : tensor<2x4x32x64xf32> to tensor<2x4x32x32xf32>
  %e = tensor.empty() : tensor<2x4x32x32xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x2 : tensor<2x4x32x32xf32>) outs(%e : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.negf %a : f32
    linalg.yield %c : f32
  } -> tensor<2x4x32x32xf32>
  %a1 = tensor.expand_shape %n [[0], [1], [2], [3, 4]] output_shape [2, 4, 32, 32, 1] : tensor<2x4x32x32xf32> into tensor<2x4x32x32x1xf32>
  %b1 = tensor.expand_shape %x1 [[0], [1], [2], [3, 4]] output_shape [2, 4, 32, 32, 1] : tensor<2x4x32x32xf32> into tensor<2x4x32x32x1xf32>
  %st = tensor.concat dim(4) %a1, %b1 : (tensor<2x4x32x32x1xf32>, tensor<2x4x32x32x1xf32>) -> tensor<2x4x32x32x2xf32>
  %r = tensor.collapse_shape %st [[0], [1], [2], [3, 4]] : tensor<2x4x32x32x2xf32> into tensor<2x4x32x64xf32>
  %e2 = tensor.empty() : tensor<2x4x32x64xf32>
  %o = linalg.generic {indexing_maps = [#id, #cs, #id, #cs, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %cos, %r, %sin : tensor<2x4x32x64xf32>, tensor<32x64xf32>, tensor<2x4x32x64xf32>, tensor<32x64xf32>) outs(%e2 : tensor<2x4x32x64xf32>) {
  ^bb0(%a: f32, %c: f32, %rr: f32, %s: f32, %oo: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.mulf %rr, %s : f32
    %y = arith.addf %p, %q : f32
    linalg.yield %y : f32
  } -> tensor<2x4x32x64xf32>
  return %o : tensor<2x4x32x64xf32>
}
