// One decode step of sliding-window attention over a KV cache of 256
// slots: the query at position `%pos` sees the `%window` keys up to and
// including its own, both `index` arguments, as a hand-written or
// IREE-style program passes them. The tools take an index argument as a
// 0-d i64 tensor (a device buffer of one element in the launch plan, whose
// width the host and the device then agree on): the import reads it as
// `tensor.from_elements` of its cast to i64, moves `%pos - %window` into
// the mask's payload, which casts the element back to an index. The mask
// is a generic of its own over the keys, and the attention one kernel that
// loads it, which on the GPU computes the mask's elements from the two
// scalars instead (one launch). Lowered for sm_80 and sm_90 in f16 and
// accepted by ptxas; python/tests/test_masks.py runs it on the CPU and
// test_ptx_emulator.py the PTX, both to numpy's numbers.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu90.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu90.mlir
// RUN: mlsopt-translate --emit-launch-plan %t.gpu90.mlir | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-translate --emit-ptx %t.gpu90.mlir -o %t.90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin %}
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.gpu80.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu80.mlir -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// IMPORT-LABEL: func.func @window_attention
// IMPORT-SAME: %arg3: index, %arg4: index
// IMPORT-DAG: %[[PI:.*]] = arith.index_cast %arg3 : index to i64
// IMPORT-DAG: %[[P:.*]] = tensor.from_elements %[[PI]] : tensor<i64>
// IMPORT-DAG: %[[WI:.*]] = arith.index_cast %arg4 : index to i64
// IMPORT-DAG: %[[W:.*]] = tensor.from_elements %[[WI]] : tensor<i64>
// IMPORT: %[[M:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<i64>, tensor<i64>) outs(%{{.*}} : tensor<256xi1>)
// IMPORT-NEXT: ^bb0(%[[A:.*]]: i64, %[[B:.*]]: i64, %{{.*}}: i1):
// IMPORT-DAG: arith.index_cast %[[A]] : i64 to index
// IMPORT-DAG: arith.index_cast %[[B]] : i64 to index
// IMPORT: arith.subi
// IMPORT: linalg.yield
// IMPORT-NOT: linalg.
// IMPORT: kernel.where %[[M]], 0xFFF0000000000000, 0.000000e+00 : tensor<256xi1> to tensor<256xf32>
// IMPORT-NOT: linalg.
// IMPORT: return
// OPT-LABEL: func.func @window_attention(
// OPT: linalg.generic
// OPT: kernel.custom
// OPT: block.matmul
// OPT: thread.where
// OPT: block.store
// OPT-NOT: kernel.
// OPT: return
// OPT-LABEL: func.func private @window_attention_reference(
// VERIFY: remark: @window_attention is equivalent to @window_attention_reference
// HOST-LABEL: func.func @window_attention(
// HOST-SAME: %[[POS:[a-z0-9]+]]: memref<i64>, %[[WINDOW:[a-z0-9]+]]: memref<i64>
// HOST-NOT: gpu.alloc
// HOST: gpu.launch_func {{.*}}args(%arg0 : memref<8x1x64xf16>, %arg1 : memref<8x256x64xf16>, %arg2 : memref<8x256x64xf16>, %[[WINDOW]] : memref<i64>, %[[POS]] : memref<i64>, %{{.*}} : memref<8x1x64xf16>)
// HOST-NOT: gpu.launch_func
// HOST: return
// PLAN: "name": "window_attention"
// PLAN: "index": 3,
// PLAN-NEXT: "role": "input",
// PLAN-NEXT: "shape": [],
// PLAN-NEXT: "dtype": "i64",
// PLAN-NEXT: "bytes": 8
// PLAN: "index": 4,
// PLAN-NEXT: "role": "input",
// PLAN-NEXT: "shape": [],
// PLAN-NEXT: "dtype": "i64",

#m3 = affine_map<(b, i, j) -> (b, i, j)>
#r3 = affine_map<(b, i, j) -> (b, i)>
func.func @window_attention(%q: tensor<8x1x64xf32>, %k: tensor<8x256x64xf32>, %v: tensor<8x256x64xf32>, %pos: index, %window: index) -> tensor<8x1x64xf32> {
  %first = arith.subi %pos, %window : index
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
    %future = arith.cmpi sgt, %j, %pos : index
    %old = arith.cmpi sle, %j, %first : index
    %out = arith.ori %future, %old : i1
    %scaled = arith.mulf %a, %scale : f32
    %y = arith.select %out, %ninf, %scaled : f32
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
