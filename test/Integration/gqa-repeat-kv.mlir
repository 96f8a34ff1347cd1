// Grouped-query attention as Hugging Face writes it (repeat_kv): each of
// the 2 key and value heads is repeated for 2 query heads, by torch-mlir's
// aten.expand (a copy generic reading a size-1 dim at index 0) or by a
// linalg.broadcast, then collapsed to the 4 heads of the queries.
//
// @gqa_attention: the import stacks each group's query heads as rows
// ([2*2, 2*16, 16]) and multiplies them by the keys and values as they are
// (no repeat is left), the softmax follows the stacked rows, and the search
// finds one kernel that reads each group's keys once: one launch.
//
// @gqa_masked_attention: the mask [16, 32] varies along the queries of a
// head, which the stacked rows cannot broadcast, so the repeats stay (two
// copy kernels); the mask is then an input of the attention kernel, counted
// with its add, and the attention is one kernel still.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @gqa_attention(
// IMPORT-NOT: linalg.
// IMPORT: kernel.matmul %{{.*}}, %{{.*}} : tensor<4x32x16xf32>, tensor<4x16x32xf32>
// IMPORT: kernel.reduce_max %{{.*}} dim 2 : tensor<4x32x32xf32>
// IMPORT: kernel.matmul %{{.*}}, %{{.*}} : tensor<4x32x32xf32>, tensor<4x32x16xf32>
// IMPORT-NOT: linalg.
// IMPORT-LABEL: func.func @gqa_masked_attention(
// IMPORT-COUNT-2: linalg.broadcast
// IMPORT: kernel.matmul %{{.*}}, %{{.*}} : tensor<8x16x16xf32>, tensor<8x16x32xf32>
// IMPORT: kernel.add %{{.*}}, %{{.*}} : tensor<8x16x32xf32>, tensor<1x16x32xf32>
// IMPORT: kernel.matmul %{{.*}}, %{{.*}} : tensor<8x16x32xf32>, tensor<8x32x16xf32>

// OPT-LABEL: func.func @gqa_attention(
// OPT-COUNT-1: kernel.custom
// OPT-NOT: kernel.
// OPT: {{^ *}}return %
// OPT-LABEL: func.func @gqa_masked_attention(
// OPT-COUNT-1: kernel.custom
// OPT-NOT: kernel.
// OPT: {{^ *}}return %

// VERIFY: remark: @gqa_attention is equivalent to @gqa_attention_reference
// VERIFY: remark: @gqa_masked_attention is equivalent to @gqa_masked_attention_reference

// HOST-LABEL: func.func @gqa_attention(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return
// HOST-LABEL: func.func @gqa_masked_attention(
// HOST-COUNT-3: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return

func.func @gqa_attention(%q: tensor<2x4x16x16xf32>, %k: tensor<2x2x32x16xf32>, %v: tensor<2x2x32x16xf32>) -> tensor<2x4x16x16xf32> {
  %ku = tensor.expand_shape %k [[0], [1], [2, 3], [4]] output_shape [2, 2, 1, 32, 16] : tensor<2x2x32x16xf32> into tensor<2x2x1x32x16xf32>
  %ke = tensor.empty() : tensor<2x2x2x32x16xf32>
  %kb = linalg.generic {indexing_maps = [affine_map<(a,h,r,i,j)->(a,h,0,i,j)>, affine_map<(a,h,r,i,j)->(a,h,r,i,j)>], iterator_types = ["parallel","parallel","parallel","parallel","parallel"]} ins(%ku : tensor<2x2x1x32x16xf32>) outs(%ke : tensor<2x2x2x32x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x2x2x32x16xf32>
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<2x2x2x32x16xf32> into tensor<2x4x32x16xf32>
  %vu = tensor.expand_shape %v [[0], [1], [2, 3], [4]] output_shape [2, 2, 1, 32, 16] : tensor<2x2x32x16xf32> into tensor<2x2x1x32x16xf32>
  %ve = tensor.empty() : tensor<2x2x2x32x16xf32>
  %vb = linalg.generic {indexing_maps = [affine_map<(a,h,r,i,j)->(a,h,0,i,j)>, affine_map<(a,h,r,i,j)->(a,h,r,i,j)>], iterator_types = ["parallel","parallel","parallel","parallel","parallel"]} ins(%vu : tensor<2x2x1x32x16xf32>) outs(%ve : tensor<2x2x2x32x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x2x2x32x16xf32>
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<2x2x2x32x16xf32> into tensor<2x4x32x16xf32>
  %kte = tensor.empty() : tensor<2x4x16x32xf32>
  %kt = linalg.transpose ins(%kr : tensor<2x4x32x16xf32>) outs(%kte : tensor<2x4x16x32xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x16x32xf32> into tensor<8x16x32xf32>
  %z = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<8x16x32xf32>
  %sf = linalg.fill ins(%z : f32) outs(%se : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x16xf32>, tensor<8x16x32xf32>) outs(%sf : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 32] : tensor<8x16x32xf32> into tensor<2x4x16x32xf32>
  %e1 = tensor.empty() : tensor<2x4x16x32xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel","parallel","parallel","parallel"]} ins(%s4 : tensor<2x4x16x32xf32>) outs(%e1 : tensor<2x4x16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x32xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<2x4x16x1xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>], iterator_types = ["parallel","parallel","parallel","reduction"]} ins(%sc : tensor<2x4x16x32xf32>) outs(%mf : tensor<2x4x16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x1xf32>
  %e3 = tensor.empty() : tensor<2x4x16x32xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel","parallel","parallel","parallel"]} ins(%sc, %mx : tensor<2x4x16x32xf32>, tensor<2x4x16x1xf32>) outs(%e3 : tensor<2x4x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.subf %a, %b : f32
    %x = math.exp %m : f32
    linalg.yield %x : f32
  } -> tensor<2x4x16x32xf32>
  %e4 = tensor.empty() : tensor<2x4x16x1xf32>
  %sf2 = linalg.fill ins(%z : f32) outs(%e4 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>], iterator_types = ["parallel","parallel","parallel","reduction"]} ins(%ex : tensor<2x4x16x32xf32>) outs(%sf2 : tensor<2x4x16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x1xf32>
  %e5 = tensor.empty() : tensor<2x4x16x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel","parallel","parallel","parallel"]} ins(%ex, %sm : tensor<2x4x16x32xf32>, tensor<2x4x16x1xf32>) outs(%e5 : tensor<2x4x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.divf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x32xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x4x16x32xf32> into tensor<8x16x32xf32>
  %v3 = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<2x4x32x16xf32> into tensor<8x32x16xf32>
  %oe = tensor.empty() : tensor<8x16x16xf32>
  %of = linalg.fill ins(%z : f32) outs(%oe : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x32xf32>, tensor<8x32x16xf32>) outs(%of : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %o4 = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  return %o4 : tensor<2x4x16x16xf32>
}

func.func @gqa_masked_attention(%q: tensor<2x4x16x16xf32>, %k: tensor<2x2x32x16xf32>, %v: tensor<2x2x32x16xf32>, %mask: tensor<16x32xf32>) -> tensor<2x4x16x16xf32> {
  %ke = tensor.empty() : tensor<2x2x2x32x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<2x2x32x16xf32>) outs(%ke : tensor<2x2x2x32x16xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<2x2x2x32x16xf32> into tensor<2x4x32x16xf32>
  %ve = tensor.empty() : tensor<2x2x2x32x16xf32>
  %vb = linalg.broadcast ins(%v : tensor<2x2x32x16xf32>) outs(%ve : tensor<2x2x2x32x16xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<2x2x2x32x16xf32> into tensor<2x4x32x16xf32>
  %kte = tensor.empty() : tensor<2x4x16x32xf32>
  %kt = linalg.transpose ins(%kr : tensor<2x4x32x16xf32>) outs(%kte : tensor<2x4x16x32xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x16x32xf32> into tensor<8x16x32xf32>
  %z = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<8x16x32xf32>
  %sf = linalg.fill ins(%z : f32) outs(%se : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x16xf32>, tensor<8x16x32xf32>) outs(%sf : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 32] : tensor<8x16x32xf32> into tensor<2x4x16x32xf32>
  %e1 = tensor.empty() : tensor<2x4x16x32xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(i,j)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel","parallel","parallel","parallel"]} ins(%s4, %mask : tensor<2x4x16x32xf32>, tensor<16x32xf32>) outs(%e1 : tensor<2x4x16x32xf32>) {
  ^bb0(%a: f32, %mk: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %m = arith.mulf %a, %c : f32
    %mm = arith.addf %m, %mk : f32
    linalg.yield %mm : f32
  } -> tensor<2x4x16x32xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<2x4x16x1xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>], iterator_types = ["parallel","parallel","parallel","reduction"]} ins(%sc : tensor<2x4x16x32xf32>) outs(%mf : tensor<2x4x16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x1xf32>
  %e3 = tensor.empty() : tensor<2x4x16x32xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel","parallel","parallel","parallel"]} ins(%sc, %mx : tensor<2x4x16x32xf32>, tensor<2x4x16x1xf32>) outs(%e3 : tensor<2x4x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.subf %a, %b : f32
    %x = math.exp %m : f32
    linalg.yield %x : f32
  } -> tensor<2x4x16x32xf32>
  %e4 = tensor.empty() : tensor<2x4x16x1xf32>
  %sf2 = linalg.fill ins(%z : f32) outs(%e4 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>], iterator_types = ["parallel","parallel","parallel","reduction"]} ins(%ex : tensor<2x4x16x32xf32>) outs(%sf2 : tensor<2x4x16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x1xf32>
  %e5 = tensor.empty() : tensor<2x4x16x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel","parallel","parallel","parallel"]} ins(%ex, %sm : tensor<2x4x16x32xf32>, tensor<2x4x16x1xf32>) outs(%e5 : tensor<2x4x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.divf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x32xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x4x16x32xf32> into tensor<8x16x32xf32>
  %v3 = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<2x4x32x16xf32> into tensor<8x32x16xf32>
  %oe = tensor.empty() : tensor<8x16x16xf32>
  %of = linalg.fill ins(%z : f32) outs(%oe : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x32xf32>, tensor<8x32x16xf32>) outs(%of : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %o4 = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  return %o4 : tensor<2x4x16x16xf32>
}
