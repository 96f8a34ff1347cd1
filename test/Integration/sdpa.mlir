// Scaled dot-product attention as torch-mlir emits it: K transposed by
// linalg.transpose, the scores scaled by 1/sqrt(48), a safe softmax, and a
// batch matmul with V; odd sizes (48, 80). The search takes the transposed K
// as an input, and the attention kernel then loads K itself and reads its
// tiles through block.transpose (no copy kernel): one launch in all.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @sdpa
// IMPORT-NOT: linalg.
// IMPORT: kernel.transpose %arg1 [0, 2, 1] : tensor<2x80x48xf32>
// IMPORT: kernel.matmul
// IMPORT: kernel.mul_scalar %{{.*}}, 0.14433756
// IMPORT: kernel.reduce_max
// IMPORT: kernel.exp
// IMPORT: kernel.matmul
// IMPORT-NOT: linalg.
// OPT-LABEL: func.func @sdpa(
// OPT-NOT: kernel.transpose
// OPT: kernel.custom(%arg0, %arg1, %arg2)
// OPT: %[[K:.*]] = block.load %in1 {{.*}} : tensor<2x80x48xf32> -> tensor<1x80x48xf32>
// OPT: %[[KT:.*]] = block.transpose %[[K]] [0, 2, 1] : tensor<1x80x48xf32>
// OPT: block.matmul %{{.*}}, %[[KT]]
// OPT-LABEL: func.func private @sdpa_reference(
// VERIFY: remark: @sdpa is equivalent to @sdpa_reference
// HOST-LABEL: func.func @sdpa(
// HOST: gpu.launch_func @mlsopt_kernels::@sdpa_kernel0 {{.*}} args(%arg0 : memref<2x64x48xf16>, %arg1 : memref<2x80x48xf16>, %arg2 : memref<2x80x48xf16>
// HOST-NOT: gpu.launch_func
// HOST: return

#m3 = affine_map<(b, i, j) -> (b, i, j)>
#r3 = affine_map<(b, i, j) -> (b, i)>
func.func @sdpa(%q: tensor<2x64x48xf32>, %k: tensor<2x80x48xf32>, %v: tensor<2x80x48xf32>) -> tensor<2x64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.144337567 : f32
  %kt0 = tensor.empty() : tensor<2x48x80xf32>
  %kt = linalg.transpose ins(%k : tensor<2x80x48xf32>) outs(%kt0 : tensor<2x48x80xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x64x80xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x64x80xf32>) -> tensor<2x64x80xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x64x48xf32>, tensor<2x48x80xf32>) outs(%sf : tensor<2x64x80xf32>) -> tensor<2x64x80xf32>
  %ss = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x64x80xf32>) outs(%s0 : tensor<2x64x80xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %scale : f32
    linalg.yield %y : f32
  } -> tensor<2x64x80xf32>
  %m0 = tensor.empty() : tensor<2x64xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %mx = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ss : tensor<2x64x80xf32>) outs(%mf : tensor<2x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x64xf32>
  %e = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ss, %mx : tensor<2x64x80xf32>, tensor<2x64xf32>) outs(%s0 : tensor<2x64x80xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<2x64x80xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%m0 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %sum = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x64x80xf32>) outs(%zf : tensor<2x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x64xf32>
  %p = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x64x80xf32>, tensor<2x64xf32>) outs(%s0 : tensor<2x64x80xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %y = arith.divf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<2x64x80xf32>
  %o0 = tensor.empty() : tensor<2x64x48xf32>
  %of = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x64x48xf32>) -> tensor<2x64x48xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x64x80xf32>, tensor<2x80x48xf32>) outs(%of : tensor<2x64x48xf32>) -> tensor<2x64x48xf32>
  return %out : tensor<2x64x48xf32>
}
