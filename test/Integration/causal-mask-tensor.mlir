// Hugging Face's causal mask as a tensor of its own: a generic writes
// -inf above the diagonal and 0 elsewhere from loop indices alone (the
// triu of a full tensor), and the scaled scores add it. The import makes
// the mask a triangle_fill of a zero constant; the search's attention
// kernel reads it at full rank through a unit-dim expand, which
// --fuse-kernel-elementwise moves above the fill, so the kernel computes the
// mask on the constant's tiles: no launch writes the mask. Verified, then
// lowered to launches that ptxas accepts in f16.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @hf_causal_mask
// IMPORT-NOT: linalg.
// IMPORT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
// IMPORT: kernel.triangle_fill %[[Z]] dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<32x32xf32>
// IMPORT: return
// OPT-LABEL: func.func @hf_causal_mask(
// OPT-NOT: kernel.triangle_fill
// OPT: kernel.custom
// OPT: block.triangle_fill %{{.*}} dims [1, 2] diagonal 1 value 0xFFF0000000000000
// OPT-NOT: kernel.triangle_fill
// OPT: return
// VERIFY: remark: @hf_causal_mask is equivalent to @hf_causal_mask_reference

#id2 = affine_map<(i, j) -> (i, j)>
#m3 = affine_map<(b, i, j) -> (b, i, j)>
#c3 = affine_map<(b, i, j) -> (i, j)>
#r3 = affine_map<(b, i, j) -> (b, i)>
func.func @hf_causal_mask(%q: tensor<2x32x64xf32>, %k: tensor<2x32x64xf32>, %v: tensor<2x32x64xf32>) -> tensor<2x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %fmin = arith.constant -3.40282347E+38 : f32
  %scale = arith.constant 8.0 : f32
  %kt0 = tensor.empty() : tensor<2x64x32xf32>
  %kt = linalg.transpose ins(%k : tensor<2x32x64xf32>) outs(%kt0 : tensor<2x64x32xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x32x32xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x32x64xf32>, tensor<2x64x32xf32>) outs(%sf : tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
  %mk0 = tensor.empty() : tensor<32x32xf32>
  %mask = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%mk0 : tensor<32x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %future = arith.cmpi sgt, %j, %i : index
    %y = arith.select %future, %ninf, %zero : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  %ss = linalg.generic {indexing_maps = [#m3, #c3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<2x32x32xf32>, tensor<32x32xf32>) outs(%s0 : tensor<2x32x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %scaled = arith.divf %a, %scale : f32
    %y = arith.addf %scaled, %m : f32
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
