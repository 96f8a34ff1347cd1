// An operand of lower rank than the result it broadcasts into (`[n]` against
// `[m, n]`: an imported linear layer's bias, a norm's gain, an attention
// bias shared by the heads) is read with its leading size-1 dims explicit,
// through a tensor.expand_shape before the search: the search unifies the
// dims of operands of equal rank only, and left every op with a lower-rank
// operand out of its subprograms, cutting the program around it (a linear
// layer with bias and ReLU stayed three kernels).
// RUN: mlsopt-opt %s --superoptimize="timeout=20 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// REMARK: remark: superoptimize: replaced 3 kernel ops {{.*}} by 1 kernels
// REMARK: remark: superoptimize: replaced 5 kernel ops {{.*}} by 1 kernels
// VERIFY: remark: @linear_bias_relu is equivalent to @linear_bias_relu_reference
// VERIFY: remark: @scores_with_bias is equivalent to @scores_with_bias_reference

// CHECK-LABEL: func.func @linear_bias_relu(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x48xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<48x80xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<80xf32>)
// CHECK: %[[B2:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [1, 80] : tensor<80xf32> into tensor<1x80xf32>
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom({{.*}}%[[B2]]{{.*}})
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
func.func @linear_bias_relu(%x: tensor<8x48xf32>, %w: tensor<48x80xf32>, %b: tensor<80xf32>) -> tensor<8x80xf32> {
  %h = kernel.matmul %x, %w : tensor<8x48xf32>, tensor<48x80xf32>
  %hb = kernel.add %h, %b : tensor<8x80xf32>, tensor<80xf32>
  %r = kernel.relu %hb : tensor<8x80xf32>
  return %r : tensor<8x80xf32>
}

// CHECK-LABEL: func.func @scores_with_bias(
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 16, 96] : tensor<16x96xf32> into tensor<1x16x96xf32>
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
func.func @scores_with_bias(%q: tensor<4x16x32xf32>, %kt: tensor<4x32x96xf32>, %bias: tensor<16x96xf32>) -> tensor<4x16x96xf32> {
  %s = kernel.matmul %q, %kt : tensor<4x16x32xf32>, tensor<4x32x96xf32>
  %sb = kernel.add %s, %bias : tensor<4x16x96xf32>, tensor<16x96xf32>
  %e = kernel.exp %sb : tensor<4x16x96xf32>
  %sum = kernel.reduce_sum %e dim 2 : tensor<4x16x96xf32>
  %p = kernel.div %e, %sum : tensor<4x16x96xf32>, tensor<4x16x1xf32>
  return %p : tensor<4x16x96xf32>
}
