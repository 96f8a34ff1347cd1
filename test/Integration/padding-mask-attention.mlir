// BERT-style attention at batch 2 as torch-mlir emits it: [b, h] heads
// merged for linalg.batch_matmul, and a [b, 1, 1, s] padding mask added to
// the scaled [b, h, s, s] scores. The mask varies along b and not h, so it
// cannot follow the merged [b h] rows: the add stayed 4-D between a
// collapse and an expand, and the search saw three pieces (3 launches).
// The import now computes both matmuls on the unmerged [b, h] dims, the
// softmax follows, and the scale moves onto Q (smaller than the scores);
// the mask is an input of the one attention kernel.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @padding_masked_attention(
// IMPORT-NOT: tensor.
// IMPORT: kernel.matmul %{{.*}}, %{{.*}} : tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32>
// IMPORT: kernel.add %{{.*}}, %arg3 : tensor<2x4x32x32xf32>, tensor<2x1x1x32xf32>
// IMPORT: kernel.reduce_max %{{.*}} dim 3 : tensor<2x4x32x32xf32>
// IMPORT: kernel.matmul %{{.*}}, %arg2 : tensor<2x4x32x32xf32>, tensor<2x4x32x16xf32>
// IMPORT-NOT: tensor.
// IMPORT: return

// OPT-LABEL: func.func @padding_masked_attention(
// OPT-NEXT: kernel.custom(%arg0, %arg1, %arg3, %arg2)
// OPT: block.load %in2 imap <x = 0> : tensor<2x1x1x32xf32>
// OPT: {{^ *}}return %

// VERIFY: remark: @padding_masked_attention is equivalent to @padding_masked_attention_reference

// HOST-LABEL: func.func @padding_masked_attention(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return

// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

func.func @padding_masked_attention(%q: tensor<2x4x32x16xf32>, %k: tensor<2x4x32x16xf32>, %v: tensor<2x4x32x16xf32>, %mask: tensor<2x1x1x32xf32>) -> tensor<2x4x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %kte = tensor.empty() : tensor<2x4x16x32xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x32x16xf32>) outs(%kte : tensor<2x4x16x32xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x32x16xf32> into tensor<8x32x16xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x16x32xf32> into tensor<8x16x32xf32>
  %se = tensor.empty() : tensor<8x32x32xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<8x32x32xf32>) -> tensor<8x32x32xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x32x16xf32>, tensor<8x16x32xf32>) outs(%sf : tensor<8x32x32xf32>) -> tensor<8x32x32xf32>
  %s4 = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 32, 32] : tensor<8x32x32xf32> into tensor<2x4x32x32xf32>
  %e1 = tensor.empty() : tensor<2x4x32x32xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,0,0,j)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4, %mask : tensor<2x4x32x32xf32>, tensor<2x1x1x32xf32>) outs(%e1 : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %c = arith.constant 0.25 : f32
    %x = arith.mulf %a, %c : f32
    %y = arith.addf %x, %m : f32
    linalg.yield %y : f32
  } -> tensor<2x4x32x32xf32>
  %e2 = tensor.empty() : tensor<2x4x32x1xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x4x32x1xf32>) -> tensor<2x4x32x1xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x32x32xf32>) outs(%mf : tensor<2x4x32x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.maximumf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<2x4x32x1xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %mx : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>) outs(%e1 : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %x = arith.subf %a, %m : f32
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4x32x32xf32>
  %sumf = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x32x1xf32>) -> tensor<2x4x32x1xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x4x32x32xf32>) outs(%sumf : tensor<2x4x32x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.addf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<2x4x32x1xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sm : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>) outs(%e1 : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %x = arith.divf %a, %m : f32
    linalg.yield %x : f32
  } -> tensor<2x4x32x32xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x4x32x32xf32> into tensor<8x32x32xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x32x16xf32> into tensor<8x32x16xf32>
  %oe = tensor.empty() : tensor<8x32x16xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<8x32x16xf32>) -> tensor<8x32x16xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x32x32xf32>, tensor<8x32x16xf32>) outs(%of : tensor<8x32x16xf32>) -> tensor<8x32x16xf32>
  %o4 = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 32, 16] : tensor<8x32x16xf32> into tensor<2x4x32x16xf32>
  return %o4 : tensor<2x4x32x16xf32>
}
