// One decode step of attention over a KV cache of 256 slots whose
// padding slots hold token id 0: `masked_fill(ids == 0, -inf)` on the
// scaled scores, with `ids` an int64 tensor over the keys. The import
// computes `ids == 0` in a generic of its own, an i1 mask read through
// kernel.where, and the search fuses the attention into one kernel that
// loads the mask. On the GPU that kernel computes the mask where it loads
// it, reading the ids (one launch: the mask's loop kernel, a launch and a
// round trip through device memory, is gone). Lowered for sm_80 and sm_90
// in f16 and accepted by ptxas; python/tests/test_ptx_emulator.py runs it
// to the CPU pipeline's numbers.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu90.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu90.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu90.mlir -o %t.90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin %}
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 2>/dev/null | mlsopt-translate --emit-ptx -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// IMPORT-LABEL: func.func @padded_decode
// IMPORT: %[[M:.*]] = linalg.generic {{.*}} ins(%arg3 : tensor<256xi64>) outs(%{{.*}} : tensor<256xi1>)
// IMPORT: kernel.where %[[M]], 0xFFF0000000000000, 0.000000e+00 : tensor<256xi1> to tensor<256xf32>
// VERIFY: remark: @padded_decode is equivalent to @padded_decode_reference
// REMARK: remark: 'linalg.generic' is computed where the custom kernels that read it load its elements, with no launch of its own
// HOST-LABEL: func.func @padded_decode(
// HOST-NOT: gpu.alloc
// HOST: gpu.launch_func {{.*}}args(%arg0 : memref<8x1x64xf16>, %arg1 : memref<8x256x64xf16>, %arg2 : memref<8x256x64xf16>, %arg3 : memref<256xi64>, %arg4 : memref<8x1x64xf16>)
// HOST-NOT: gpu.launch_func
// HOST: return

#m3 = affine_map<(b, i, j) -> (b, i, j)>
#r3 = affine_map<(b, i, j) -> (b, i)>
#key = affine_map<(b, i, j) -> (j)>
func.func @padded_decode(%q: tensor<8x1x64xf32>, %k: tensor<8x256x64xf32>, %v: tensor<8x256x64xf32>, %ids: tensor<256xi64>) -> tensor<8x1x64xf32> {
  %pad_id = arith.constant 0 : i64
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %kt0 = tensor.empty() : tensor<8x64x256xf32>
  %kt = linalg.transpose ins(%k : tensor<8x256x64xf32>) outs(%kt0 : tensor<8x64x256xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<8x1x256xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<8x1x256xf32>) -> tensor<8x1x256xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x1x64xf32>, tensor<8x64x256xf32>) outs(%sf : tensor<8x1x256xf32>) -> tensor<8x1x256xf32>
  %ss = linalg.generic {indexing_maps = [#m3, #key, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %ids : tensor<8x1x256xf32>, tensor<256xi64>) outs(%s0 : tensor<8x1x256xf32>) {
  ^bb0(%a: f32, %t: i64, %o: f32):
    %pad = arith.cmpi eq, %t, %pad_id : i64
    %scaled = arith.mulf %a, %scale : f32
    %y = arith.select %pad, %ninf, %scaled : f32
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
