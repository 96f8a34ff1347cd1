// Whether a searched subprogram stays as it is depends on the ops around
// it, not on the rest of the function: the rotary embedding of
// fusion-beats-answer.mlir (kept, 2.03 us against 10.02 us with its
// μGraph) beside two unrelated broadcasts of 2 GiB each. Costed whole,
// the function was about 1300 us either way, the 8 us saved under the
// 1% a fusion must gain, so the μGraph's 5 launches replaced the one.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | mlsopt-opt --superoptimize="threads=1 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t

// REMARK: remark: superoptimize: kept the subprogram of 3 kernel ops: with the kernels beside it computing its ops, the 17 ops of @rope_k_scores_beside_copies within 16 steps of it cost 2.03 us (1 launches), with the best μGraph 10.02 us (5 launches);
// CHECK-LABEL: func.func @rope_k_scores_beside_copies(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return

func.func @rope_k_scores_beside_copies(%q: tensor<4x8x16xf32>, %xk: tensor<8x32xf32>, %cos: tensor<8x16xf32>, %sin: tensor<8x16xf32>, %row: tensor<65536xf32>) -> (tensor<4x8x8xf32>, tensor<8192x65536xf32>, tensor<8192x65536xf32>) {
  %e = tensor.expand_shape %xk [[0], [1, 2]] output_shape [8, 2, 16] : tensor<8x32xf32> into tensor<8x2x16xf32>
  %k = kernel.transpose %e [1, 0, 2] : tensor<8x2x16xf32>
  %lo = tensor.extract_slice %k[0, 0, 0] [2, 8, 8] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x8x8xf32>
  %hi = tensor.extract_slice %k[0, 0, 8] [2, 8, 8] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x8x8xf32>
  %n = kernel.neg %hi : tensor<2x8x8xf32>
  %r = kernel.concat %n, %lo dim 2 : tensor<2x8x8xf32>, tensor<2x8x8xf32>
  %a = kernel.mul %k, %cos : tensor<2x8x16xf32>, tensor<8x16xf32>
  %b = kernel.mul %r, %sin : tensor<2x8x16xf32>, tensor<8x16xf32>
  %kr = kernel.add %a, %b : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %init = tensor.empty() : tensor<2x2x8x16xf32>
  %bc = linalg.broadcast ins(%kr : tensor<2x8x16xf32>) outs(%init : tensor<2x2x8x16xf32>) dimensions = [1]
  %kk = tensor.collapse_shape %bc [[0, 1], [2], [3]] : tensor<2x2x8x16xf32> into tensor<4x8x16xf32>
  %kt = kernel.transpose %kk [0, 2, 1] : tensor<4x8x16xf32>
  %s = kernel.matmul %q, %kt : tensor<4x8x16xf32>, tensor<4x16x8xf32>
  %big = tensor.empty() : tensor<8192x65536xf32>
  %c1 = linalg.broadcast ins(%row : tensor<65536xf32>) outs(%big : tensor<8192x65536xf32>) dimensions = [0]
  %c2 = linalg.broadcast ins(%row : tensor<65536xf32>) outs(%big : tensor<8192x65536xf32>) dimensions = [0]
  return %s, %c1, %c2 : tensor<4x8x8xf32>, tensor<8192x65536xf32>, tensor<8192x65536xf32>
}
