// A 3-D linear layer and its SiLU, as --convert-linalg-to-kernel imports
// them: the matmul on the flattened rows, the SiLU on its result, then the
// expand_shape back to 3-D. The expand stays below the SiLU: moved above
// it (as an operand's expand goes up to the argument it views), it parted
// the SiLU from the matmul, which were then two subprograms, and the SiLU,
// on the expanded result, never joined the kernel as its epilogue (two
// launches).
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// REMARK: remark: superoptimize: replaced 2 kernel ops {{.*}} by 1 kernels
// REMARK-NOT: remark: superoptimize: {{replaced|kept}}
// REMARK: remark: superoptimize: replaced 2 kernel ops {{.*}} by 1 kernels
// REMARK: remark: superoptimize: fused across the cut: 1 launches fewer{{.*}}; @sum_with_init launches 1 kernels
// CHECK-LABEL: func.func @linear_silu_3d(
// CHECK: kernel.custom
// CHECK: thread.unary silu
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: tensor.expand_shape
// CHECK-NEXT: return

func.func @linear_silu_3d(%x: tensor<2x8x32xf32>, %w: tensor<32x64xf32>) -> tensor<2x8x64xf32> {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x8x32xf32> into tensor<16x32xf32>
  %m = kernel.matmul %c, %w : tensor<16x32xf32>, tensor<32x64xf32>
  %s = kernel.silu %m : tensor<16x64xf32>
  %e = tensor.expand_shape %s [[0, 1], [2]] output_shape [2, 8, 64] : tensor<16x64xf32> into tensor<2x8x64xf32>
  return %e : tensor<2x8x64xf32>
}

// torch's `init + x.sum((0, 2))`: the sum is [1, 8, 1], collapsed to [8]
// before the add. The collapse goes below the add, whose other operand is
// expanded to [1, 8, 1], so the add is the kernel's epilogue: one launch,
// where the add after the collapse was a second.
// CHECK-LABEL: func.func @sum_with_init(
// CHECK-SAME: %[[X:.*]]: tensor<4x8x16xf32>, %[[INIT:.*]]: tensor<8xf32>)
// CHECK: %[[WIDE:.*]] = tensor.expand_shape %[[INIT]] {{\[\[}}0, 1, 2]] output_shape [1, 8, 1]
// CHECK: %[[K:.*]] = kernel.custom(%[[X]], %[[WIDE]])
// CHECK: thread.binary add
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1, 2]]
// CHECK-NEXT: return %[[R]]

func.func @sum_with_init(%x: tensor<4x8x16xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %0 = kernel.reduce_sum %x dim 2 : tensor<4x8x16xf32>
  %1 = kernel.reduce_sum %0 dim 0 : tensor<4x8x1xf32>
  %c = tensor.collapse_shape %1 [[0, 1, 2]] : tensor<1x8x1xf32> into tensor<8xf32>
  %2 = kernel.add %init, %c : tensor<8xf32>, tensor<8xf32>
  return %2 : tensor<8xf32>
}
