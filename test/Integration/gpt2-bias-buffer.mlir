// GPT-2's attention as torch-mlir traces it with the model's `bias`
// buffer: a boolean lower triangle folded into a constant, selected with
// finfo.min (torch.where(causal_mask, w, mask_value)). The import sees the
// constant is a triangle and makes it kernel.triangle_fill, so the search
// puts the mask on the scores' tiles inside the kernel that computes them,
// and no mask is loaded; an i1 constant left as kernel.where could not run
// on the GPU at all. Verified, then lowered to launches that ptxas accepts
// in f16. (At 32 tokens the search keeps the product by V a kernel of its
// own, as it does for the same mask computed from indices.)
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @gpt2_attention
// IMPORT-NOT: linalg.
// IMPORT-NOT: i1>
// IMPORT: kernel.triangle_fill %{{.*}} dims [1, 2] diagonal 1 value -3.4028234663852886E+38 : tensor<2x32x32xf32>
// IMPORT-NOT: kernel.where
// IMPORT: return
// OPT-LABEL: func.func @gpt2_attention(
// OPT-NOT: arith.constant
// OPT: kernel.custom
// OPT: block.triangle_fill %{{.*}} dims [1, 2] diagonal 1 value -3.4028234663852886E+38
// OPT-NOT: kernel.
// OPT: return
// VERIFY: remark: @gpt2_attention is equivalent to @gpt2_attention_reference
// HOST-LABEL: func.func @gpt2_attention(
// HOST-NOT: arith.constant dense
// HOST: gpu.launch_func
// HOST: return

#m3 = affine_map<(b, i, j) -> (b, i, j)>
#c3 = affine_map<(b, i, j) -> (i, j)>
#r3 = affine_map<(b, i, j) -> (b, i)>
func.func @gpt2_attention(%q: tensor<2x32x64xf32>, %k: tensor<2x32x64xf32>, %v: tensor<2x32x64xf32>) -> tensor<2x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %fmin = arith.constant -3.40282347E+38 : f32
  %scale = arith.constant 8.0 : f32
  %bias = arith.constant dense<[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]> : tensor<32x32xi1>
  %kt0 = tensor.empty() : tensor<2x64x32xf32>
  %kt = linalg.transpose ins(%k : tensor<2x32x64xf32>) outs(%kt0 : tensor<2x64x32xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x32x32xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x32x64xf32>, tensor<2x64x32xf32>) outs(%sf : tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
  %ss = linalg.generic {indexing_maps = [#m3, #c3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %bias : tensor<2x32x32xf32>, tensor<32x32xi1>) outs(%s0 : tensor<2x32x32xf32>) {
  ^bb0(%a: f32, %keep: i1, %o: f32):
    %scaled = arith.divf %a, %scale : f32
    %y = arith.select %keep, %scaled, %fmin : f32
    linalg.yield %y : f32
  } -> tensor<2x32x32xf32>
  %m0 = tensor.empty() : tensor<2x32xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<2x32xf32>) -> tensor<2x32xf32>
  %mx = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ss : tensor<2x32x32xf32>) outs(%mf : tensor<2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x32xf32>
  %e = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ss, %mx : tensor<2x32x32xf32>, tensor<2x32xf32>) outs(%s0 : tensor<2x32x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<2x32x32xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%m0 : tensor<2x32xf32>) -> tensor<2x32xf32>
  %sum = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x32x32xf32>) outs(%zf : tensor<2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x32xf32>
  %p = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x32x32xf32>, tensor<2x32xf32>) outs(%s0 : tensor<2x32x32xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %y = arith.divf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<2x32x32xf32>
  %o0 = tensor.empty() : tensor<2x32x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x32x64xf32>) -> tensor<2x32x64xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x32x32xf32>, tensor<2x32x64xf32>) outs(%of : tensor<2x32x64xf32>) -> tensor<2x32x64xf32>
  return %out : tensor<2x32x64xf32>
}
