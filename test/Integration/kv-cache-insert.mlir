// One decode step that writes the new key and value rows into a 64-slot
// KV cache at a run-time position (`tensor.insert_slice` at `%pos`, an
// i64 argument, as a static-cache model writes `cache[pos] = k`), attends
// over the slots up to the position and returns the output and both
// caches. The slices have no finite-field semantics, but the search leaves
// them where they are: --verify-equivalence cuts them out of both the
// program and its reference, compares what they read, and proves the rest
// equal (no f32 run: random positions could fall outside the cache). On
// the GPU each write is a kernel of its own that reads the position
// (RunTimeSlices.h), beside the one attention kernel: three launches. The
// CPU runs the step (python/tests/test_integration_programs.py, against
// numpy) and the emulator its PTX (test_ptx_emulator.py).
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu90.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu90.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu90.mlir -o %t.90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 2>/dev/null | mlsopt-translate --emit-ptx -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// OPT-LABEL: func.func @decode_step(
// OPT-COUNT-2: tensor.insert_slice
// OPT: kernel.custom
// VERIFY: remark: @decode_step is equivalent to @decode_step_reference: {{.*}}; 1 linalg op the import left and 2 slices at run-time offsets, the same in both, compared at their operands
// VERIFY: remark: no f32 tolerance check of @decode_step: it slices at offsets known only at run time
// HOST-LABEL: func.func @decode_step(
// HOST-SAME: %[[POS:arg5]]: memref<i64>
// HOST-SAME: %[[O:arg6]]: memref<1x32xf32> {mlsopt.result_index = 0 : i64}, %[[KEYS:arg7]]: memref<64x32xf32> {mlsopt.result_index = 1 : i64}, %[[VALUES:arg8]]: memref<64x32xf32> {mlsopt.result_index = 2 : i64}
// HOST: gpu.launch_func {{.*}}args(%arg1 : memref<1x32xf32>, %arg3 : memref<64x32xf32>, %[[POS]] : memref<i64>, %[[KEYS]] : memref<64x32xf32>)
// HOST: gpu.launch_func {{.*}}args(%arg2 : memref<1x32xf32>, %arg4 : memref<64x32xf32>, %[[POS]] : memref<i64>, %[[VALUES]] : memref<64x32xf32>)
// HOST: gpu.launch_func {{.*}}args(%arg0 : memref<1x32xf32>, %[[KEYS]] : memref<64x32xf32>, %[[VALUES]] : memref<64x32xf32>, %[[POS]] : memref<i64>, %[[O]] : memref<1x32xf32>)
// HOST-NOT: gpu.launch_func
// HOST: return
// The write's kernel: the position, clamped into the cache, and the
// source's row inside the slice, the cache's elsewhere.
// PTX-LABEL: .entry decode_step_kernel0(
// PTX: max.s64 {{.*}}, 0;
// PTX: min.s64 {{.*}}, 63;
// PTX: selp.b64
// PTX: st.global.b32

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
