// Elementwise ops on a lower-rank operand (a batch norm's per-channel
// sqrt(var + eps), a LayerNorm's gain converted to f32) are computed in
// the kernel that reads them. The operand is read at the result's rank
// through an expand_shape, which now goes up past those ops to the
// argument: between them and their reader it ended the subprogram, and the
// vector's two ops were a kernel of their own (2 launches, now 1).
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=20 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// REMARK: remark: superoptimize: replaced 3 kernel ops {{.*}} by 1 kernels
// REMARK-NOT: remark: superoptimize: {{replaced|kept}}
// CHECK-LABEL: func.func @batch_norm_inference(
// CHECK-NEXT: %[[V:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [1, 96] : tensor<96xf32> into tensor<1x96xf32>
// CHECK-NEXT: kernel.custom(%[[V]], %arg0)
// CHECK: thread.add_scalar
// CHECK: thread.unary sqrt
// CHECK: thread.binary div
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: @batch_norm_inference is equivalent to @batch_norm_inference_reference

func.func @batch_norm_inference(%x: tensor<128x96xf32>, %var: tensor<96xf32>) -> tensor<128x96xf32> {
  %ve = kernel.add_scalar %var, 1.000000e-05 : tensor<96xf32>
  %sd = kernel.sqrt %ve : tensor<96xf32>
  %y = kernel.div %x, %sd : tensor<128x96xf32>, tensor<96xf32>
  return %y : tensor<128x96xf32>
}
