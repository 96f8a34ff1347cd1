// One decode step that writes the new key and value rows into a 64-slot
// KV cache at a run-time position (`tensor.insert_slice` at `%pos`, an
// i64 argument, as a static-cache model writes `cache[pos] = k`), attends
// over the slots up to the position and returns the output and both
// caches. The slices have no finite-field semantics, but the search leaves
// them where they are: --verify-equivalence cuts them out of both the
// program and its reference, compares what they read, and proves the rest
// equal (no f32 run: random positions could fall outside the cache). The
// CPU runs the step (python/tests/test_integration_programs.py, against
// numpy); the GPU pipeline does not lower a slice at a run-time offset
// yet and says so at the slice.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: not mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU

// OPT-LABEL: func.func @decode_step(
// OPT-COUNT-2: tensor.insert_slice
// OPT: kernel.custom
// VERIFY: remark: @decode_step is equivalent to @decode_step_reference: {{.*}}; 1 linalg op the import left and 2 slices at run-time offsets, the same in both, compared at their operands
// VERIFY: remark: no f32 tolerance check of @decode_step: it slices at offsets known only at run time
// GPU: error: 'tensor.insert_slice' op cannot run on the GPU

#id = affine_map<(i, j) -> (i, j)>
func.func @decode_step(%q: tensor<1x32xf32>, %k: tensor<1x32xf32>, %v: tensor<1x32xf32>, %kc: tensor<64x32xf32>, %vc: tensor<64x32xf32>, %pos: i64) -> (tensor<1x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %p = arith.index_cast %pos : i64 to index
  %keys = tensor.insert_slice %k into %kc[%p, 0] [1, 32] [1, 1] : tensor<1x32xf32> into tensor<64x32xf32>
  %values = tensor.insert_slice %v into %vc[%p, 0] [1, 32] [1, 1] : tensor<1x32xf32> into tensor<64x32xf32>
  %et = tensor.empty() : tensor<32x64xf32>
  %kt = linalg.transpose ins(%keys : tensor<64x32xf32>) outs(%et : tensor<32x64xf32>) permutation = [1, 0]
  %es = tensor.empty() : tensor<1x64xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x64xf32>) -> tensor<1x64xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<1x32xf32>, tensor<32x64xf32>) outs(%fs : tensor<1x64xf32>) -> tensor<1x64xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<1x64xf32>) outs(%es : tensor<1x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %future = arith.cmpi sgt, %jj, %pos : i64
    %y = arith.select %future, %ninf, %x : f32
    linalg.yield %y : f32
  } -> tensor<1x64xf32>
  %probs = linalg.softmax dimension(1) ins(%masked : tensor<1x64xf32>) outs(%es : tensor<1x64xf32>) -> tensor<1x64xf32>
  %eo = tensor.empty() : tensor<1x32xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x32xf32>) -> tensor<1x32xf32>
  %o = linalg.matmul ins(%probs, %values : tensor<1x64xf32>, tensor<64x32xf32>) outs(%fo : tensor<1x32xf32>) -> tensor<1x32xf32>
  return %o, %keys, %values : tensor<1x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}
