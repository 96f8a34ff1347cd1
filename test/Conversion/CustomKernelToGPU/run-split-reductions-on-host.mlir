// REQUIRES: mlir-runner
// Long reductions into few elements, as the import leaves them: an argmax
// as torch-mlir writes it (arith.maximumf and a strict comparison), an
// argmin as a selection of both results, an i32 sum and an f32 sum. Each
// runs as two loop kernels: the partial results of chunks of its reduction
// (a thread per chunk of each result element), then their combination, in
// chunk order. The maximum 999 first appears at index 527 (chunk 8 of 64),
// again at 1527, 2527 and 3527, and the minimum 0 at 500, 1500, ...: the
// first occurrence wins across chunks. A row of -inf keeps the init's
// index 0. Run on the host (--mlsopt-launches-to-host-loops), the kernels
// give the numbers the CPU pipeline gives for the linalg program.
// RUN: cat %s %S/Inputs/split-reductions-tensor-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 -o %t.gpu.mlir 2>&1 \
// RUN: | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.mlir
// RUN: mlsopt-opt %t.gpu.mlir --mlsopt-launches-to-host-loops \
// RUN: | sed -e '/^module.*{$/d' -e '/^}$/d' > %t.host.mlir
// RUN: cat %t.host.mlir %S/Inputs/split-reductions-buffer-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 2>/dev/null | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 2>/dev/null | mlsopt-translate --emit-launch-plan \
// RUN: | FileCheck %s --check-prefix=PLAN

// CHECK: [527,  0]
// CHECK: [999,  -inf]
// CHECK: [500,  0]
// CHECK: [2042,  2048,  2047]
// CHECK: [384,  384]

// REMARK: remark: 'linalg.generic' runs as a loop kernel, one thread per result element
// REMARK: remark: 'linalg.generic' runs as two loop kernels, its reduction split into 64 chunks of 64
// REMARK: remark: 'linalg.generic' runs as two loop kernels, its reduction split into 64 chunks of 64
// REMARK: remark: 'linalg.generic' runs as a loop kernel, one thread per result element
// REMARK: remark: 'linalg.generic' runs as two loop kernels, its reduction split into 32 chunks of 64
// REMARK: remark: 'linalg.generic' runs as a loop kernel, one thread per result element
// REMARK: remark: 'linalg.generic' runs as two loop kernels, its reduction split into 32 chunks of 32

// Three generators, then two kernels per reduction.
// GPU-COUNT-11: gpu.launch_func
// GPU-NOT: gpu.launch_func

// The argmax: 2 x 64 chunks of the logits, viewed as [2, 64, 64], into
// partial maxima and indices, then one thread per row combines them.
// PLAN: "kernel": "split_reductions_kernel1",
// PLAN: "grid": [
// PLAN-NEXT: 1,
// PLAN: "kind": "buffer",
// PLAN-NEXT: "id": {{[0-9]+}},
// PLAN-NEXT: "shape": [
// PLAN-NEXT: 2,
// PLAN-NEXT: 64,
// PLAN-NEXT: 64
// PLAN: "kernel": "split_reductions_kernel2",

#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @split_reductions() -> (tensor<2xi64>, tensor<2xf32>, tensor<2xi64>, tensor<3xi32>, tensor<2xf64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %c0 = arith.constant 0 : i64
  %z32 = arith.constant 0 : i32

  // Logits: row 0 float((37 j + 500) mod 1000), row 1 -inf.
  %el = tensor.empty() : tensor<2x4096xf32>
  %logits = linalg.generic {indexing_maps = [#x], iterator_types = ["parallel", "parallel"]}
      outs(%el : tensor<2x4096xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c37 = arith.constant 37 : index
    %c500 = arith.constant 500 : index
    %c1000 = arith.constant 1000 : index
    %m = arith.muli %j, %c37 : index
    %a = arith.addi %m, %c500 : index
    %r = arith.remui %a, %c1000 : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %c0i = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0i : index
    %ninf2 = arith.constant 0xFF800000 : f32
    %v = arith.select %first, %rf, %ninf2 : f32
    linalg.yield %v : f32
  } -> tensor<2x4096xf32>

  // torch-mlir's argmax: the value by maximumf, the index by a strict
  // comparison.
  %e1 = tensor.empty() : tensor<2xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %e2 = tensor.empty() : tensor<2xi64>
  %i0 = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<2xi64>) -> tensor<2xi64>
  %amax:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<2x4096xf32>) outs(%m0, %i0 : tensor<2xf32>, tensor<2xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %max = arith.maximumf %in, %best : f32
    %greater = arith.cmpf ogt, %in, %best : f32
    %arg = arith.select %greater, %jj, %at : i64
    linalg.yield %max, %arg : f32, i64
  } -> (tensor<2xf32>, tensor<2xi64>)

  // An argmin that selects both results; row 1 (-inf) is never below +inf
  // ... so it keeps index 0 as well.
  %m1 = linalg.fill ins(%inf : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %amin:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<2x4096xf32>) outs(%m1, %i0 : tensor<2xf32>, tensor<2xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %less = arith.cmpf olt, %in, %best : f32
    %min = arith.select %less, %in, %best : f32
    %arg = arith.select %less, %jj, %at : i64
    linalg.yield %min, %arg : f32, i64
  } -> (tensor<2xf32>, tensor<2xi64>)

  // i32: ((i + 1) j mod 7) - 2, summed over 2048.
  %ei = tensor.empty() : tensor<3x2048xi32>
  %ints = linalg.generic {indexing_maps = [#x], iterator_types = ["parallel", "parallel"]}
      outs(%ei : tensor<3x2048xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %i1 = arith.addi %i, %c1 : index
    %p = arith.muli %i1, %j : index
    %r = arith.remui %p, %c7 : index
    %ri = arith.index_cast %r : index to i32
    %c2 = arith.constant 2 : i32
    %v = arith.subi %ri, %c2 : i32
    linalg.yield %v : i32
  } -> tensor<3x2048xi32>
  %es = tensor.empty() : tensor<3xi32>
  %s0 = linalg.fill ins(%z32 : i32) outs(%es : tensor<3xi32>) -> tensor<3xi32>
  %isum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ints : tensor<3x2048xi32>) outs(%s0 : tensor<3xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %s = arith.addi %in, %acc : i32
    linalg.yield %s : i32
  } -> tensor<3xi32>

  // f64 (which the import leaves): (j mod 4) / 4 over 1024, exact in any
  // order: 384.
  %zero64 = arith.constant 0.0 : f64
  %ef = tensor.empty() : tensor<2x1024xf64>
  %quarters = linalg.generic {indexing_maps = [#x], iterator_types = ["parallel", "parallel"]}
      outs(%ef : tensor<2x1024xf64>) {
  ^bb0(%o: f64):
    %j = linalg.index 1 : index
    %c4 = arith.constant 4 : index
    %r = arith.remui %j, %c4 : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f64
    %q = arith.constant 0.25 : f64
    %v = arith.mulf %rf, %q : f64
    linalg.yield %v : f64
  } -> tensor<2x1024xf64>
  %e64 = tensor.empty() : tensor<2xf64>
  %f0 = linalg.fill ins(%zero64 : f64) outs(%e64 : tensor<2xf64>) -> tensor<2xf64>
  %fsum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%quarters : tensor<2x1024xf64>) outs(%f0 : tensor<2xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %s = arith.addf %acc, %in : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  return %amax#1, %amax#0, %amin#1, %isum, %fsum : tensor<2xi64>, tensor<2xf32>, tensor<2xi64>, tensor<3xi32>, tensor<2xf64>
}
