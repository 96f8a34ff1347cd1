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
