// A LLaMA-style MLP block on a [batch, seq, hidden] activation, as torch-mlir
// writes it: RMSNorm with a gain over the hidden dim, a gated MLP whose
// linear layers each collapse the rows, multiply and expand them back, and a
// residual add. The import moves every op onto the rows [8, ...], so the
// only reshapes left are views of the argument and of the result: the search
// partitions the program only by its op budget, and the GPU pipeline
// launches one kernel (six while the reshapes stood between the layers,
// three while the residual add, whose x the MLP's kernel did not make, was
// not its epilogue, two while the norm's sum of squares, a chain on the
// input, was searched before the MLP and became a kernel of its own).
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @mlp_block_3d
// IMPORT-NOT: linalg.
// IMPORT: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x4x64xf32> into tensor<8x64xf32>
// IMPORT-NOT: tensor.
// IMPORT-COUNT-3: kernel.matmul
// IMPORT-NOT: tensor.
// IMPORT: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [2, 4, 64]
// IMPORT-NEXT: return
// OPT-LABEL: func.func @mlp_block_3d(
// OPT-COUNT-1: kernel.custom
// OPT-NOT: kernel.custom
// OPT: return
// VERIFY: remark: @mlp_block_3d is equivalent to @mlp_block_3d_reference
// HOST-LABEL: func.func @mlp_block_3d(
// HOST: memref.collapse_shape %arg5 {{\[\[}}0, 1], [2]] : memref<2x4x64xf32> into memref<8x64xf32>
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: return

#id = affine_map<(b, i, j) -> (b, i, j)>
#red = affine_map<(b, i, j) -> (b, i)>
#g = affine_map<(b, i, j) -> (j)>
func.func @mlp_block_3d(%x: tensor<2x4x64xf32>, %gain: tensor<64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<64x128xf32>, %w3: tensor<128x64xf32>) -> tensor<2x4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ss = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x4x64xf32>) outs(%zs : tensor<2x4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %e0 = tensor.empty() : tensor<2x4x64xf32>
  %n = linalg.generic {indexing_maps = [#id, #red, #g, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %ss, %gain : tensor<2x4x64xf32>, tensor<2x4xf32>, tensor<64xf32>) outs(%e0 : tensor<2x4x64xf32>) {
  ^bb0(%a: f32, %s: f32, %gg: f32, %o: f32):
    %c64 = arith.constant 64.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %m = arith.divf %s, %c64 : f32
    %me = arith.addf %m, %eps : f32
    %rs = math.rsqrt %me : f32
    %y = arith.mulf %a, %rs : f32
    %yg = arith.mulf %y, %gg : f32
    linalg.yield %yg : f32
  } -> tensor<2x4x64xf32>
  %nf = tensor.collapse_shape %n [[0, 1], [2]] : tensor<2x4x64xf32> into tensor<8x64xf32>
  %e1 = tensor.empty() : tensor<8x128xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %g1 = linalg.matmul ins(%nf, %w1 : tensor<8x64xf32>, tensor<64x128xf32>) outs(%z1 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %g13 = tensor.expand_shape %g1 [[0, 1], [2]] output_shape [2, 4, 128] : tensor<8x128xf32> into tensor<2x4x128xf32>
  %nf2 = tensor.collapse_shape %n [[0, 1], [2]] : tensor<2x4x64xf32> into tensor<8x64xf32>
  %u1 = linalg.matmul ins(%nf2, %w2 : tensor<8x64xf32>, tensor<64x128xf32>) outs(%z1 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %u13 = tensor.expand_shape %u1 [[0, 1], [2]] output_shape [2, 4, 128] : tensor<8x128xf32> into tensor<2x4x128xf32>
  %e2 = tensor.empty() : tensor<2x4x128xf32>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g13, %u13 : tensor<2x4x128xf32>, tensor<2x4x128xf32>) outs(%e2 : tensor<2x4x128xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %a : f32
    %ex = math.exp %neg : f32
    %den = arith.addf %ex, %one : f32
    %sig = arith.divf %one, %den : f32
    %silu = arith.mulf %a, %sig : f32
    %r = arith.mulf %silu, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x4x128xf32>
  %hf = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x4x128xf32> into tensor<8x128xf32>
  %e3 = tensor.empty() : tensor<8x64xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %d = linalg.matmul ins(%hf, %w3 : tensor<8x128xf32>, tensor<128x64xf32>) outs(%z3 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %d3 = tensor.expand_shape %d [[0, 1], [2]] output_shape [2, 4, 64] : tensor<8x64xf32> into tensor<2x4x64xf32>
  %e4 = tensor.empty() : tensor<2x4x64xf32>
  %out = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %d3 : tensor<2x4x64xf32>, tensor<2x4x64xf32>) outs(%e4 : tensor<2x4x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64xf32>
  return %out : tensor<2x4x64xf32>
}
