// Two linear layers with a 1-D bias (a linalg.broadcast added by
// linalg.add) and ReLU (maximumf with 0), odd sizes 48 and 80. The biases
// are [n] against [m, n]: the search reads them as [1, n], so the adds and
// ReLUs fuse with the matmuls (the MLP was six kernels, every op with a
// bias left out of the search).
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @bias_relu_mlp
// IMPORT-NOT: linalg.
// IMPORT: kernel.add %{{.*}}, %arg2 : tensor<8x80xf32>, tensor<80xf32>
// IMPORT: kernel.relu
// IMPORT: kernel.add %{{.*}}, %arg4 : tensor<8x48xf32>, tensor<48xf32>
// SEARCH: remark: superoptimize: replaced {{[3-6]}} kernel ops
// OPT-LABEL: func.func @bias_relu_mlp(
// OPT-NOT: kernel.add
// OPT: return
// VERIFY: remark: @bias_relu_mlp is equivalent to @bias_relu_mlp_reference

#id = affine_map<(i, j) -> (i, j)>
func.func @bias_relu_mlp(%x: tensor<8x48xf32>, %w1: tensor<48x80xf32>, %b1: tensor<80xf32>, %w2: tensor<80x48xf32>, %b2: tensor<48xf32>) -> tensor<8x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x80xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x80xf32>) -> tensor<8x80xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x48xf32>, tensor<48x80xf32>) outs(%f1 : tensor<8x80xf32>) -> tensor<8x80xf32>
  %bb1 = linalg.broadcast ins(%b1 : tensor<80xf32>) outs(%e1 : tensor<8x80xf32>) dimensions = [0]
  %hb = linalg.add ins(%h, %bb1 : tensor<8x80xf32>, tensor<8x80xf32>) outs(%e1 : tensor<8x80xf32>) -> tensor<8x80xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hb : tensor<8x80xf32>) outs(%e1 : tensor<8x80xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %zero : f32
    linalg.yield %y : f32
  } -> tensor<8x80xf32>
  %e2 = tensor.empty() : tensor<8x48xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x48xf32>) -> tensor<8x48xf32>
  %o = linalg.matmul ins(%r, %w2 : tensor<8x80xf32>, tensor<80x48xf32>) outs(%f2 : tensor<8x48xf32>) -> tensor<8x48xf32>
  %bb2 = linalg.broadcast ins(%b2 : tensor<48xf32>) outs(%e2 : tensor<8x48xf32>) dimensions = [0]
  %ob = linalg.add ins(%o, %bb2 : tensor<8x48xf32>, tensor<8x48xf32>) outs(%e2 : tensor<8x48xf32>) -> tensor<8x48xf32>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ob : tensor<8x48xf32>) outs(%e2 : tensor<8x48xf32>) {
  ^bb0(%a: f32, %o2: f32):
    %y = arith.maximumf %a, %zero : f32
    linalg.yield %y : f32
  } -> tensor<8x48xf32>
  return %out : tensor<8x48xf32>
}
