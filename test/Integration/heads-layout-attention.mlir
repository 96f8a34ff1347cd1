// Attention as a Hugging Face module hands it to torch-mlir: q, k and v in
// the projections' [b, s, h, d] layout, `transpose(1, 2)` to [b, h, s, d],
// the heads merged to [b h, s, d] for `torch.bmm` (a collapse of dims that
// are not adjacent in the source), softmax, the product by V expanded back
// to [b, h, s, d], `transpose(1, 2)` and a reshape to [b s, h d] for the
// output projection. The import computes both batch matmuls and the
// softmax on the uncollapsed [b, h] dims (the product by V joins the
// chain: its V is collapsed alike), so every transpose sits on an
// argument or on the result: the kernel loads q, k and v in their own
// layout and stores its tiles permuted. Collapsed, the transposes were
// four copy kernels of their own (five launches).
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @heads_layout
// IMPORT-NOT: linalg.
// IMPORT: kernel.transpose %arg0 [0, 2, 1, 3] : tensor<2x32x4x16xf32>
// IMPORT: kernel.transpose %arg1 [0, 2, 3, 1] : tensor<2x32x4x16xf32>
// IMPORT: kernel.transpose %arg2 [0, 2, 1, 3] : tensor<2x32x4x16xf32>
// IMPORT-NOT: tensor.collapse_shape
// IMPORT: kernel.matmul %{{.*}}, %{{.*}} : tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32>
// IMPORT: kernel.reduce_max %{{.*}} dim 3 : tensor<2x4x32x32xf32>
// IMPORT: kernel.matmul %{{.*}}, %{{.*}} : tensor<2x4x32x32xf32>, tensor<2x4x32x16xf32>
// IMPORT-NEXT: kernel.transpose %{{.*}} [0, 2, 1, 3] : tensor<2x4x32x16xf32>
// IMPORT-NEXT: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<2x32x4x16xf32> into tensor<64x64xf32>
// IMPORT-NOT: linalg.
// OPT-LABEL: func.func @heads_layout(
// OPT-NOT: kernel.transpose
// OPT: kernel.custom(%arg0, %arg1, %arg2)
// OPT-DAG: block.load %in0 {{.*}} : tensor<2x32x4x16xf32>
// OPT-DAG: block.load %in1 {{.*}} : tensor<2x32x4x16xf32>
// OPT-DAG: block.load %in2 {{.*}} : tensor<2x32x4x16xf32>
// OPT: block.store %{{.*}}, %out0 {{.*}} into tensor<2x32x4x16xf32>
// OPT-NOT: kernel.
// OPT: tensor.collapse_shape
// OPT-NEXT: return
// OPT-LABEL: func.func private @heads_layout_reference(
// VERIFY: remark: @heads_layout is equivalent to @heads_layout_reference
// HOST-LABEL: func.func @heads_layout(
// HOST: gpu.launch_func @mlsopt_kernels::@heads_layout_kernel0 {{.*}} args(%arg0 : memref<2x32x4x16xf16>, %arg1 : memref<2x32x4x16xf16>, %arg2 : memref<2x32x4x16xf16>
// HOST-NOT: gpu.launch_func
// HOST: return

#m3 = affine_map<(b, i, j) -> (b, i, j)>
func.func @heads_layout(%q: tensor<2x32x4x16xf32>, %k: tensor<2x32x4x16xf32>, %v: tensor<2x32x4x16xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %heads = tensor.empty() : tensor<2x4x32x16xf32>
  %keys = tensor.empty() : tensor<2x4x16x32xf32>
  %qt = linalg.transpose ins(%q : tensor<2x32x4x16xf32>) outs(%heads : tensor<2x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %kt = linalg.transpose ins(%k : tensor<2x32x4x16xf32>) outs(%keys : tensor<2x4x16x32xf32>) permutation = [0, 2, 3, 1]
  %vt = linalg.transpose ins(%v : tensor<2x32x4x16xf32>) outs(%heads : tensor<2x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %qb = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<2x4x32x16xf32> into tensor<8x32x16xf32>
  %kb = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x16x32xf32> into tensor<8x16x32xf32>
  %vb = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<2x4x32x16xf32> into tensor<8x32x16xf32>
  %s0 = tensor.empty() : tensor<8x32x32xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<8x32x32xf32>) -> tensor<8x32x32xf32>
  %s = linalg.batch_matmul ins(%qb, %kb : tensor<8x32x16xf32>, tensor<8x16x32xf32>) outs(%sf : tensor<8x32x32xf32>) -> tensor<8x32x32xf32>
  %ss = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x32x32xf32>) outs(%s0 : tensor<8x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 4.0 : f32
    %r = arith.divf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x32x32xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<8x32x32xf32>) outs(%s0 : tensor<8x32x32xf32>) -> tensor<8x32x32xf32>
  %o0 = tensor.empty() : tensor<8x32x16xf32>
  %of = linalg.fill ins(%zero : f32) outs(%o0 : tensor<8x32x16xf32>) -> tensor<8x32x16xf32>
  %o = linalg.batch_matmul ins(%p, %vb : tensor<8x32x32xf32>, tensor<8x32x16xf32>) outs(%of : tensor<8x32x16xf32>) -> tensor<8x32x16xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 4, 32, 16] : tensor<8x32x16xf32> into tensor<2x4x32x16xf32>
  %merged = tensor.empty() : tensor<2x32x4x16xf32>
  %ot = linalg.transpose ins(%o4 : tensor<2x4x32x16xf32>) outs(%merged : tensor<2x32x4x16xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %ot [[0, 1], [2, 3]] : tensor<2x32x4x16xf32> into tensor<64x64xf32>
  return %out : tensor<64x64xf32>
}
