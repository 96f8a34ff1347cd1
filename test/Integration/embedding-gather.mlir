// A language model's first and last steps, as torch-mlir writes them:
// aten.embedding (a linalg.generic whose payload extracts a table row at
// the token's id, a gather) before an RMSNorm and a projection, and
// greedy decoding's argmax (a reduction with two results, the maximum and
// its index) after the LM head. The kernel dialect has no gather and no
// index results: the import leaves both as linalg, and the GPU pipeline
// refused the whole function. They now run as loop kernels beside the
// searched kernels (a remark says so, with the import's reason), and
// --verify-equivalence, whose field cannot evaluate them, cuts them out of
// both functions and compares the tensors they read.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=HOST < %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: mlsopt-translate --emit-launch-plan %t.sm_90.mlir | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 2>/dev/null | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// IMPORT-LABEL: func.func @embed_norm_proj(
// IMPORT: linalg.generic
// IMPORT: tensor.extract %arg1
// IMPORT: linalg.yield
// IMPORT-NOT: linalg.
// IMPORT: kernel.matmul
// IMPORT-LABEL: func.func @lm_head_argmax(
// IMPORT: kernel.matmul
// IMPORT: linalg.generic
// IMPORT-SAME: iterator_types = ["parallel", "reduction"]
// REMARK-DAG: remark: 'linalg.generic' runs as a loop kernel, one thread per result element (correct, not fast): --convert-linalg-to-kernel did not import it: payload op 'tensor.extract' reads a tensor at indices it computes (a gather)
// REMARK-DAG: remark: 'linalg.generic' runs as a loop kernel, one thread per result element (correct, not fast): --convert-linalg-to-kernel did not import it: has more than one result
// VERIFY: remark: @embed_norm_proj is equivalent to @embed_norm_proj_reference: {{.*}}; 1 linalg op the import left, the same in both, compared at its operands
// VERIFY: remark: @lm_head_argmax is equivalent to @lm_head_argmax_reference: {{.*}}; 1 linalg op the import left, the same in both, compared at its operands
// HOST-LABEL: func.func @embed_norm_proj(
// HOST-SAME: memref<3x7xi64>
// HOST: gpu.launch_func @mlsopt_kernels::@embed_norm_proj_kernel0 {{.*}} args(%arg0 : memref<3x7xi64>, %arg1 : memref<50x96xf32>,
// HOST: gpu.launch_func
// HOST-LABEL: func.func @lm_head_argmax(
// HOST: gpu.launch_func
// HOST: gpu.launch_func @mlsopt_kernels::@lm_head_argmax_kernel{{[0-9]+}} blocks in (%c1{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c256
// HOST-SAME: memref<3xi64>
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return
// PLAN: "name": "lm_head_argmax",
// PLAN: "dtype": "i64",

#ids = affine_map<(b, s, d) -> (b, s)>
#rows = affine_map<(b, s, d) -> (b, s, d)>
#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @embed_norm_proj(%ids: tensor<3x7xi64>, %table: tensor<50x96xf32>, %g: tensor<96xf32>, %w: tensor<96x80xf32>) -> tensor<21x80xf32> {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %n = arith.constant 96.0 : f32
  %e = tensor.empty() : tensor<3x7x96xf32>
  %emb = linalg.generic {indexing_maps = [#ids, #rows], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<3x7xi64>) outs(%e : tensor<3x7x96xf32>) {
  ^bb0(%id: i64, %out: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 2 : index
    %v = tensor.extract %table[%row, %col] : tensor<50x96xf32>
    linalg.yield %v : f32
  } -> tensor<3x7x96xf32>
  %h = tensor.collapse_shape %emb [[0, 1], [2]] : tensor<3x7x96xf32> into tensor<21x96xf32>
  %e1 = tensor.empty() : tensor<21xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<21xf32>) -> tensor<21xf32>
  %ss = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<21x96xf32>) outs(%z1 : tensor<21xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<21xf32>
  %e2 = tensor.empty() : tensor<21x96xf32>
  %normed = linalg.generic {indexing_maps = [#x, #row, affine_map<(i, j) -> (j)>, #x], iterator_types = ["parallel", "parallel"]}
      ins(%h, %ss, %g : tensor<21x96xf32>, tensor<21xf32>, tensor<96xf32>) outs(%e2 : tensor<21x96xf32>) {
  ^bb0(%a: f32, %s: f32, %gain: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %y = arith.mulf %a, %r : f32
    %z = arith.mulf %y, %gain : f32
    linalg.yield %z : f32
  } -> tensor<21x96xf32>
  %e3 = tensor.empty() : tensor<21x80xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<21x80xf32>) -> tensor<21x80xf32>
  %p = linalg.matmul ins(%normed, %w : tensor<21x96xf32>, tensor<96x80xf32>) outs(%z3 : tensor<21x80xf32>) -> tensor<21x80xf32>
  return %p : tensor<21x80xf32>
}

func.func @lm_head_argmax(%h: tensor<3x96xf32>, %w: tensor<96x500xf32>) -> tensor<3xi64> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<3x500xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x500xf32>) -> tensor<3x500xf32>
  %logits = linalg.matmul ins(%h, %w : tensor<3x96xf32>, tensor<96x500xf32>) outs(%f : tensor<3x500xf32>) -> tensor<3x500xf32>
  %e1 = tensor.empty() : tensor<3xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %e2 = tensor.empty() : tensor<3xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<3xi64>) -> tensor<3xi64>
  %r:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<3x500xf32>) outs(%m, %i : tensor<3xf32>, tensor<3xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %greater = arith.cmpf ogt, %in, %best : f32
    %max = arith.select %greater, %in, %best : f32
    %arg = arith.select %greater, %jj, %at : i64
    linalg.yield %max, %arg : f32, i64
  } -> (tensor<3xf32>, tensor<3xi64>)
  return %r#1 : tensor<3xi64>
}
