// A rotary embedding whose angles the model computes, as Hugging Face's
// LlamaRotaryEmbedding.forward and apply_rotary_pos_emb write it: the
// positions times the inverse frequencies, concatenated with themselves,
// their cos and sin, then q * cos + rotate_half(q) * sin. math.cos and
// math.sin import as kernel.cos and kernel.sin; without them the two
// generics stayed linalg, and the GPU pipeline refused the function. The
// whole embedding is one kernel.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}

// IMPORT-LABEL: func.func @rope
// IMPORT-NOT: linalg.
// IMPORT-DAG: kernel.cos
// IMPORT-DAG: kernel.sin
// SEARCH: remark: superoptimize: {{.*}}@rope launches 1 kernels
// VERIFY: remark: @rope is equivalent to @rope_reference
// GPU-LABEL: func.func @rope(
// GPU-COUNT-1: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return
// The device's sine and cosine (libdevice's __nv_sinf and __nv_cosf,
// inlined): their range reduction multiplies by 2/pi.
// PTX-LABEL: .entry rope_kernel0
// PTX: 0f3F22F983

// LlamaRotaryEmbedding.forward and apply_rotary_pos_emb write it.
#bc = affine_map<(i, j) -> (i, 0)>
#br = affine_map<(i, j) -> (0, j)>
#id = affine_map<(i, j) -> (i, j)>
func.func @rope(%q: tensor<128x64xf32>, %pos: tensor<128x1xf32>, %inv: tensor<1x32xf32>) -> tensor<128x64xf32> {
  %e32 = tensor.empty() : tensor<128x32xf32>
  %e = tensor.empty() : tensor<128x64xf32>
  %f = linalg.generic {indexing_maps = [#bc, #br, #id], iterator_types = ["parallel", "parallel"]}
      ins(%pos, %inv : tensor<128x1xf32>, tensor<1x32xf32>) outs(%e32 : tensor<128x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.mulf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<128x32xf32>
  %emb = tensor.concat dim(1) %f, %f : (tensor<128x32xf32>, tensor<128x32xf32>) -> tensor<128x64xf32>
  %cos = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%emb : tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.cos %a : f32
    linalg.yield %y : f32
  } -> tensor<128x64xf32>
  %sin = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%emb : tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.sin %a : f32
    linalg.yield %y : f32
  } -> tensor<128x64xf32>
  %q1 = tensor.extract_slice %q[0, 0] [128, 32] [1, 1] : tensor<128x64xf32> to tensor<128x32xf32>
  %q2 = tensor.extract_slice %q[0, 32] [128, 32] [1, 1] : tensor<128x64xf32> to tensor<128x32xf32>
  %n2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q2 : tensor<128x32xf32>) outs(%e32 : tensor<128x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.negf %a : f32
    linalg.yield %y : f32
  } -> tensor<128x32xf32>
  %rot = tensor.concat dim(1) %n2, %q1 : (tensor<128x32xf32>, tensor<128x32xf32>) -> tensor<128x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q, %cos, %rot, %sin : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) {
  ^bb0(%a: f32, %c: f32, %b: f32, %s: f32, %o: f32):
    %x1 = arith.mulf %a, %c : f32
    %x2 = arith.mulf %b, %s : f32
    %y = arith.addf %x1, %x2 : f32
    linalg.yield %y : f32
  } -> tensor<128x64xf32>
  return %r : tensor<128x64xf32>
}
