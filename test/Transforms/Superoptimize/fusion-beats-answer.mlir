// A searched subprogram stays as it is when the function costs less with
// its ops computed in the kernels beside them than with the μGraph found.
// Here the rotary embedding of a LLaMA layer's keys, k * cos +
// rotate_half(k) * sin (three kernel ops), before the scores of grouped
// queries (the import reads repeat_kv's broadcast as two query heads per
// key head). Searched alone, the rotary embedding is one elementwise
// kernel over small tiles, which leaves the transpose of the heads and
// rotate_half's negation and concat a launch each: 5 launches, 10.02 us.
// Kept, its ops and the data movement in front of them join the scores'
// kernel, whose key tiles hold whole rows: 1 launch, 2.03 us. (A LLaMA
// decoder layer at the default timeout: 18 launches before, 12 now.)
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | mlsopt-opt --superoptimize="threads=1 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | mlsopt-opt --superoptimize="threads=1 timeout=20 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// REMARK: remark: superoptimize: kept the subprogram of 3 kernel ops: with the kernels beside it computing its ops, the 17 ops of @rope_k_scores within 16 steps of it cost 2.03 us (1 launches), with the best μGraph 10.02 us (5 launches);
// REMARK: @rope_k_scores launches 1 kernels (2.03 us), 8 before
// CHECK-LABEL: func.func @rope_k_scores(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: @rope_k_scores is equivalent to @rope_k_scores_reference

func.func @rope_k_scores(%q: tensor<4x8x16xf32>, %xk: tensor<8x32xf32>, %cos: tensor<8x16xf32>, %sin: tensor<8x16xf32>) -> tensor<4x8x8xf32> {
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
  return %s : tensor<4x8x8xf32>
}

// The same subprogram again is not searched again, and the remark names the
// subprogram whose μGraph the fusion beat.
// REMARK: remark: superoptimize: kept the subprogram of 3 kernel ops: with the kernels beside it computing its ops, the 17 ops of @rope_k_scores_again {{.*}}; the μGraph of the subprogram searched at <stdin>:{{[0-9]+:[0-9]+$}}
// REMARK: @rope_k_scores_again launches 1 kernels (2.03 us), 8 before
// CHECK-LABEL: func.func @rope_k_scores_again(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: @rope_k_scores_again is equivalent to @rope_k_scores_again_reference
func.func @rope_k_scores_again(%q: tensor<4x8x16xf32>, %xk: tensor<8x32xf32>, %cos: tensor<8x16xf32>, %sin: tensor<8x16xf32>) -> tensor<4x8x8xf32> {
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
  return %s : tensor<4x8x8xf32>
}
