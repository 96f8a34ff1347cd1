// One decode step of attention over a KV cache of 256 slots, of which the
// keys past the current position `%past` (a run-time i64, as a front end
// passes the number of cached tokens) are masked: `key > past` selects
// -inf into the scaled scores. The import computes that condition as an i1
// mask in a generic of its own (over the keys only), so the scores' select
// is kernel.where and the attention one kernel op chain: the search fuses
// it into one kernel that loads the mask, verified against the program as
// imported. On the GPU that kernel computes the mask's elements where it
// loads them, from the position (one launch: the mask's generic, left
// linalg, would otherwise be a loop kernel of its own, and cut the
// attention in pieces before the import read it as a mask). Lowered for
// sm_80 and sm_90 in f16 and accepted by ptxas.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu90.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu90.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu90.mlir -o %t.90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin %}
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.gpu80.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu80.mlir -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// IMPORT-LABEL: func.func @decode_attention
// IMPORT: %[[P:.*]] = tensor.from_elements %arg3 : tensor<i64>
// IMPORT: %[[M:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<i64>) outs(%{{.*}} : tensor<256xi1>)
// IMPORT: linalg.yield
// IMPORT-NOT: linalg.
// IMPORT: kernel.where %[[M]], 0xFFF0000000000000, 0.000000e+00 : tensor<256xi1> to tensor<256xf32>
// IMPORT-NOT: linalg.
// IMPORT: return
// OPT-LABEL: func.func @decode_attention(
// OPT: linalg.generic
// OPT: kernel.custom
// OPT: block.matmul
// OPT: thread.where
// OPT: block.store
// OPT-NOT: kernel.
// OPT: return
// OPT-LABEL: func.func private @decode_attention_reference(
// VERIFY: remark: @decode_attention is equivalent to @decode_attention_reference
// REMARK: remark: 'linalg.generic' is computed where the custom kernels that read it load its elements, with no launch of its own
// HOST-LABEL: func.func @decode_attention(
// HOST-SAME: %[[PAST:[a-z0-9]+]]: memref<i64>
// HOST-NOT: gpu.alloc
// HOST: gpu.launch_func {{.*}}args(%arg0 : memref<8x1x64xf16>, %arg1 : memref<8x256x64xf16>, %arg2 : memref<8x256x64xf16>, %[[PAST]] : memref<i64>, %{{.*}} : memref<8x1x64xf16>)
// HOST-NOT: gpu.launch_func
// HOST: return

#m3 = affine_map<(b, i, j) -> (b, i, j)>
#r3 = affine_map<(b, i, j) -> (b, i)>
func.func @decode_attention(%q: tensor<8x1x64xf32>, %k: tensor<8x256x64xf32>, %v: tensor<8x256x64xf32>, %past: i64) -> tensor<8x1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %kt0 = tensor.empty() : tensor<8x64x256xf32>
  %kt = linalg.transpose ins(%k : tensor<8x256x64xf32>) outs(%kt0 : tensor<8x64x256xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<8x1x256xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<8x1x256xf32>) -> tensor<8x1x256xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x1x64xf32>, tensor<8x64x256xf32>) outs(%sf : tensor<8x1x256xf32>) -> tensor<8x1x256xf32>
  %ss = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x1x256xf32>) outs(%s0 : tensor<8x1x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 2 : index
    %jj = arith.index_cast %j : index to i64
    %future = arith.cmpi sgt, %jj, %past : i64
    %scaled = arith.mulf %a, %scale : f32
    %y = arith.select %future, %ninf, %scaled : f32
    linalg.yield %y : f32
  } -> tensor<8x1x256xf32>
  %m0 = tensor.empty() : tensor<8x1xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<8x1xf32>) -> tensor<8x1xf32>
  %mx = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ss : tensor<8x1x256xf32>) outs(%mf : tensor<8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<8x1xf32>
  %e = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ss, %mx : tensor<8x1x256xf32>, tensor<8x1xf32>) outs(%s0 : tensor<8x1x256xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<8x1x256xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%m0 : tensor<8x1xf32>) -> tensor<8x1xf32>
  %sum = linalg.generic {indexing_maps = [#m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<8x1x256xf32>) outs(%zf : tensor<8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<8x1xf32>
  %p = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<8x1x256xf32>, tensor<8x1xf32>) outs(%s0 : tensor<8x1x256xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %y = arith.divf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<8x1x256xf32>
  %o0 = tensor.empty() : tensor<8x1x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%o0 : tensor<8x1x64xf32>) -> tensor<8x1x64xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<8x1x256xf32>, tensor<8x256x64xf32>) outs(%of : tensor<8x1x64xf32>) -> tensor<8x1x64xf32>
  return %out : tensor<8x1x64xf32>
}
