// Sentence-transformers' mean pooling as torch-mlir writes it: the int64
// attention_mask unsqueezed, expanded to the hidden states and made float
// (a broadcast of integers, then a sitofp), then sum(x * m, 1) /
// clamp(sum(m, 1), 1e-9). The import converts the mask before the
// broadcast and counts the tokens on the mask itself; the converted mask is
// read by both kernels the search finds (the count, and the masked sum
// through a unit-dim expand), and --fuse-kernel-elementwise gives each its
// own copy of the conversion: two launches, each loading the integers, and
// no launch of the conversion. Verified, then lowered to launches that
// ptxas accepts in f16.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @mean_pooling(
// IMPORT-NOT: linalg.
// IMPORT: kernel.int_to_float %arg1 : tensor<4x16xi64> to tensor<4x16xf32>
// IMPORT-NOT: linalg.
// IMPORT: return

// OPT-LABEL: func.func @mean_pooling(
// OPT-NOT: kernel.int_to_float
// OPT: kernel.custom(%arg1) {{.*}} : (tensor<4x16xi64>) -> tensor<4x1xf32>
// OPT: thread.int_to_float %{{.*}} : i64 to f32
// OPT: kernel.custom(%arg0, %{{.*}}, %{{.*}}) {{.*}} : (tensor<4x16x64xf32>, tensor<4x16x1xi64>, tensor<4x1x1xf32>) -> tensor<4x1x64xf32>
// OPT: thread.int_to_float %{{.*}} : i64 to f32
// OPT-NOT: kernel.
// OPT: {{^ *}}return %

// VERIFY: remark: @mean_pooling is equivalent to @mean_pooling_reference

// HOST-LABEL: func.func @mean_pooling(
// HOST-COUNT-2: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return

// PTX-COUNT-2: cvt.rn.{{f16|f32}}.s64

#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mb = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#r = affine_map<(d0, d1, d2) -> (d0, d2)>
#m2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @mean_pooling(%h: tensor<4x16x64xf32>, %mask: tensor<4x16xi64>) -> tensor<4x64xf32> {
  %e = tensor.expand_shape %mask [[0], [1, 2]] output_shape [4, 16, 1] : tensor<4x16xi64> into tensor<4x16x1xi64>
  %i0 = tensor.empty() : tensor<4x16x64xi64>
  %b = linalg.generic {indexing_maps = [#mb, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e : tensor<4x16x1xi64>) outs(%i0 : tensor<4x16x64xi64>) {
  ^bb0(%a: i64, %o: i64):
    linalg.yield %a : i64
  } -> tensor<4x16x64xi64>
  %f0 = tensor.empty() : tensor<4x16x64xf32>
  %mf = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : tensor<4x16x64xi64>) outs(%f0 : tensor<4x16x64xf32>) {
  ^bb0(%a: i64, %o: f32):
    %c = arith.sitofp %a : i64 to f32
    linalg.yield %c : f32
  } -> tensor<4x16x64xf32>
  %p = linalg.generic {indexing_maps = [#m3, #m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h, %mf : tensor<4x16x64xf32>, tensor<4x16x64xf32>) outs(%f0 : tensor<4x16x64xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %c = arith.mulf %a, %bb : f32
    linalg.yield %c : f32
  } -> tensor<4x16x64xf32>
  %z = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<4x64xf32>
  %rz = linalg.fill ins(%z : f32) outs(%r0 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %s = linalg.generic {indexing_maps = [#m3, #r], iterator_types = ["parallel", "reduction", "parallel"]} ins(%p : tensor<4x16x64xf32>) outs(%rz : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.addf %a, %o : f32
    linalg.yield %c : f32
  } -> tensor<4x64xf32>
  %sm = linalg.generic {indexing_maps = [#m3, #r], iterator_types = ["parallel", "reduction", "parallel"]} ins(%mf : tensor<4x16x64xf32>) outs(%rz : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.addf %a, %o : f32
    linalg.yield %c : f32
  } -> tensor<4x64xf32>
  %eps = arith.constant 1.0e-9 : f32
  %out = linalg.generic {indexing_maps = [#m2, #m2, #m2], iterator_types = ["parallel", "parallel"]} ins(%s, %sm : tensor<4x64xf32>, tensor<4x64xf32>) outs(%r0 : tensor<4x64xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %c = arith.maximumf %bb, %eps : f32
    %d = arith.divf %a, %c : f32
    linalg.yield %d : f32
  } -> tensor<4x64xf32>
  return %out : tensor<4x64xf32>
}
