// RUN: mlsopt-opt %s --convert-kernel-to-linalg | FileCheck %s

// Every kernel op kind lowered to linalg on tensors, block compute ops outside
// a block graph too, and custom kernels left alone. run-*.mlir execute the
// same lowerings and check the numbers.

// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$STRETCH1:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$STRETCH0:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[$R3_A:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[$R3_B:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[$DROP1:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[$MM_LHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$MM_RHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-DAG: #[[$MM_OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_f32
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<4x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[E]] : f32
// CHECK: return %[[EXP]]
func.func @unary_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kernel.exp %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// f16 computes in f32 and rounds once: silu(x) = x * 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @unary_f16
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[W]] : f32
// CHECK-NEXT: %[[EXP:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[DEN:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT: %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[SIG:.*]] = arith.divf %[[ONE2]], %[[DEN]] : f32
// CHECK-NEXT: %[[MUL:.*]] = arith.mulf %[[W]], %[[SIG]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[MUL]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK-NEXT: } -> tensor<4x8xf16>
func.func @unary_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = kernel.silu %x : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// CHECK-LABEL: func.func @binary_same_shape
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.subf %[[L]], %[[R]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @binary_same_shape(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kernel.sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A missing leading dim drops out of the map; a size-1 dim that stretches
// reads element 0.
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[V:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<2x1xf32>, %[[R:.*]]: tensor<1x3xf32>)
// CHECK: %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]], #[[$ID2]]], {{.*}}} ins(%[[A]], %[[V]] : tensor<2x3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: arith.addf
// CHECK: %[[DIV:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$STRETCH1]], #[[$ID2]]], {{.*}}} ins(%[[A]], %[[C]] : tensor<2x3xf32>, tensor<2x1xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: arith.divf
// CHECK: %[[MUL:.*]] = linalg.generic {indexing_maps = [#[[$STRETCH1]], #[[$STRETCH0]], #[[$ID2]]], {{.*}}} ins(%[[C]], %[[R]] : tensor<2x1xf32>, tensor<1x3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: arith.mulf
// CHECK: return %[[ADD]], %[[DIV]], %[[MUL]]
func.func @broadcast(%a: tensor<2x3xf32>, %v: tensor<3xf32>, %c: tensor<2x1xf32>,
                     %r: tensor<1x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kernel.add %a, %v : tensor<2x3xf32>, tensor<3xf32>
  %1 = kernel.div %a, %c : tensor<2x3xf32>, tensor<2x1xf32>
  %2 = kernel.mul %c, %r : tensor<2x1xf32>, tensor<1x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// 4x1x3 + 2x1 -> 4x2x3: both operands stretch, one also lacks a leading dim.
// CHECK-LABEL: func.func @broadcast_rank3_bf16
// CHECK-SAME: (%[[A:.*]]: tensor<4x1x3xbf16>, %[[B:.*]]: tensor<2x1xbf16>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[$R3_A]], #[[$R3_B]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x1x3xbf16>, tensor<2x1xbf16>) outs(%[[INIT]] : tensor<4x2x3xbf16>)
// CHECK-NEXT: ^bb0(%[[L:.*]]: bf16, %[[R:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[LW:.*]] = arith.extf %[[L]] : bf16 to f32
// CHECK-NEXT: %[[RW:.*]] = arith.extf %[[R]] : bf16 to f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[LW]], %[[RW]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
func.func @broadcast_rank3_bf16(%a: tensor<4x1x3xbf16>, %b: tensor<2x1xbf16>) -> tensor<4x2x3xbf16> {
  %0 = kernel.add %a, %b : tensor<4x1x3xbf16>, tensor<2x1xbf16>
  return %0 : tensor<4x2x3xbf16>
}

// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[MUL:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[C:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[IN]], %[[C]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[MUL]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[IN2]], %[[C2]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @scalar(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kernel.mul_scalar %x, 1.250000e-01 : tensor<4x8xf32>
  %1 = kernel.add_scalar %0, 2.000000e+00 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[ACC]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[MM]]
func.func @matmul_f32(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = kernel.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32>
  return %0 : tensor<4x16xf32>
}

// f16 products accumulate in f32; the sum rounds to f16 once.
// CHECK-LABEL: func.func @matmul_f16
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<8x16xf16>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf16>, tensor<8x16xf16>) outs(%[[ACC]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x16xf16>
// CHECK: %[[ROUND:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[MM]] : tensor<4x16xf32>) outs(%[[INIT]] : tensor<4x16xf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[IN]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[ROUND]]
func.func @matmul_f16(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %0 = kernel.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf16>
  return %0 : tensor<4x16xf16>
}

// CHECK-LABEL: func.func @matmul_batch_bf16
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xbf16>, %[[B:.*]]: tensor<2x8x16xbf16>)
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x16xf32>)
// CHECK: %[[MM:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x4x8xbf16>, tensor<2x8x16xbf16>) outs(%[[ACC]] : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]]], {{.*}}} ins(%[[MM]] : tensor<2x4x16xf32>) outs(%{{.*}} : tensor<2x4x16xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @matmul_batch_bf16(%a: tensor<2x4x8xbf16>, %b: tensor<2x8x16xbf16>) -> tensor<2x4x16xbf16> {
  %0 = kernel.matmul %a, %b : tensor<2x4x8xbf16>, tensor<2x8x16xbf16>
  return %0 : tensor<2x4x16xbf16>
}

// No named op for two batch dims: loops (b0, b1, m, n, k).
// CHECK-LABEL: func.func @matmul_rank4_f32
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4x8xf32>, %[[B:.*]]: tensor<2x3x8x16xf32>)
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x4x16xf32>)
// CHECK: %[[MM:.*]] = linalg.generic {indexing_maps = [#[[$MM_LHS]], #[[$MM_RHS]], #[[$MM_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3x4x8xf32>, tensor<2x3x8x16xf32>) outs(%[[ACC]] : tensor<2x3x4x16xf32>)
// CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[L]], %[[R]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[MM]]
func.func @matmul_rank4_f32(%a: tensor<2x3x4x8xf32>, %b: tensor<2x3x8x16xf32>) -> tensor<2x3x4x16xf32> {
  %0 = kernel.matmul %a, %b : tensor<2x3x4x8xf32>, tensor<2x3x8x16xf32>
  return %0 : tensor<2x3x4x16xf32>
}

// CHECK-LABEL: func.func @matmul_rank4_f16
// CHECK: linalg.generic {indexing_maps = [#[[$MM_LHS]], #[[$MM_RHS]], #[[$MM_OUT]]], {{.*}}} ins(%{{.*}}, %{{.*}} : tensor<1x2x4x8xf16>, tensor<1x2x8x16xf16>) outs(%{{.*}} : tensor<1x2x4x16xf32>)
// CHECK-NEXT: ^bb0(%[[L:.*]]: f16, %[[R:.*]]: f16, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[LW:.*]] = arith.extf %[[L]] : f16 to f32
// CHECK-NEXT: %[[RW:.*]] = arith.extf %[[R]] : f16 to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[LW]], %[[RW]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_rank4_f16(%a: tensor<1x2x4x8xf16>, %b: tensor<1x2x8x16xf16>) -> tensor<1x2x4x16xf16> {
  %0 = kernel.matmul %a, %b : tensor<1x2x4x8xf16>, tensor<1x2x8x16xf16>
  return %0 : tensor<1x2x4x16xf16>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// The reduced dim drops out of the accumulator and comes back by an
// expand_shape that groups it with the next dim.
// CHECK-LABEL: func.func @reduce_sum_middle
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$DROP1]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[ACC]] : tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[R:.*]] = tensor.expand_shape %[[SUM]] {{\[}}[0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK: return %[[R]]
func.func @reduce_sum_middle(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = kernel.reduce_sum %x dim 1 : tensor<2x3x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// f16 accumulates in f32 and rounds once, before the expand_shape.
// CHECK-LABEL: func.func @reduce_sum_f16
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<4x8xf16>) outs(%[[ACC]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[W]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[ROUND:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[R:.*]] = tensor.expand_shape %[[ROUND]] {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf16> into tensor<1x8xf16>
// CHECK: return %[[R]]
func.func @reduce_sum_f16(%x: tensor<4x8xf16>) -> tensor<1x8xf16> {
  %0 = kernel.reduce_sum %x dim 0 : tensor<4x8xf16>
  return %0 : tensor<1x8xf16>
}

// Max starts from -inf; the last dim joins the group of the one before it.
// CHECK-LABEL: func.func @reduce_max_last
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<4x8xf32>) outs(%[[ACC]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[OUT]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: %[[R:.*]] = tensor.expand_shape %[[MAX]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK: return %[[R]]
func.func @reduce_max_last(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = kernel.reduce_max %x dim 1 : tensor<4x8xf32>
  return %0 : tensor<4x1xf32>
}

// A rank-1 operand reduces to rank 0, which expands without groups.
// CHECK-LABEL: func.func @reduce_rank1
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$SCALAR]]], iterator_types = ["reduction"]} ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[SUM]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: return %[[R]]
func.func @reduce_rank1(%x: tensor<8xf32>) -> tensor<1xf32> {
  %0 = kernel.reduce_sum %x dim 0 : tensor<8xf32>
  return %0 : tensor<1xf32>
}

//===----------------------------------------------------------------------===//
// rms_norm
//===----------------------------------------------------------------------===//

// A reduction of squares over the last dim, then x / sqrt(sum / n + epsilon).
// CHECK-LABEL: func.func @rms_norm_f32
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[SUMSQ:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<4x8xf32>) outs(%[[ACC]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[SQ]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[SUMSQ]] : tensor<4x8xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[XE:.*]]: f32, %[[SE:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[MEAN:.*]] = arith.divf %[[SE]], %[[N]] : f32
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT: %[[SHIFTED:.*]] = arith.addf %[[MEAN]], %[[EPS]] : f32
// CHECK-NEXT: %[[RMS:.*]] = math.sqrt %[[SHIFTED]] : f32
// CHECK-NEXT: %[[NORM:.*]] = arith.divf %[[XE]], %[[RMS]] : f32
// CHECK-NEXT: linalg.yield %[[NORM]] : f32
// CHECK: return %[[Y]]
func.func @rms_norm_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kernel.rms_norm %x {epsilon = 1.000000e-05 : f64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// f16: the squares and the normalization compute in f32, the result rounds
// once. epsilon defaults to 0.
// CHECK-LABEL: func.func @rms_norm_f16
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
// CHECK: %[[SUMSQ:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[W]], %[[W]] : f32
// CHECK-NEXT: arith.addf %[[OUT]], %[[SQ]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[SUMSQ]] : tensor<4x8xf16>, tensor<4xf32>) outs(%{{.*}} : tensor<4x8xf16>)
// CHECK-NEXT: ^bb0(%[[XE:.*]]: f16, %[[SE:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT: %[[XW:.*]] = arith.extf %[[XE]] : f16 to f32
// CHECK: %[[EPS:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[RMS:.*]] = math.sqrt
// CHECK-NEXT: %[[NORM:.*]] = arith.divf %[[XW]], %[[RMS]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[NORM]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @rms_norm_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = kernel.rms_norm %x : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

//===----------------------------------------------------------------------===//
// concat, transpose
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<4x2xf16>, %[[C:.*]]: tensor<4x1xf16>)
// CHECK: %[[R:.*]] = tensor.concat dim(1) %[[A]], %[[B]], %[[C]] : (tensor<4x8xf16>, tensor<4x2xf16>, tensor<4x1xf16>) -> tensor<4x11xf16>
// CHECK: return %[[R]]
func.func @concat(%a: tensor<4x8xf16>, %b: tensor<4x2xf16>, %c: tensor<4x1xf16>) -> tensor<4x11xf16> {
  %0 = kernel.concat %a, %b, %c dim 1 : tensor<4x8xf16>, tensor<4x2xf16>, tensor<4x1xf16>
  return %0 : tensor<4x11xf16>
}

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = kernel.transpose %x [2, 0, 1] : tensor<2x3x4xf32>
  return %0 : tensor<4x2x3xf32>
}

//===----------------------------------------------------------------------===//
// Block ops outside a block graph, and custom kernels
//===----------------------------------------------------------------------===//

// Block compute ops lower like their kernel twins, e.g. once
// --convert-custom-kernel-to-loops has turned a block graph into loops.
// CHECK-LABEL: func.func @block_ops
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf16>, %[[W:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<1x32xf16>, %[[N:.*]]: index)
// CHECK-NOT: block.
// CHECK: scf.for
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<8x64xf16>, tensor<64x32xf16>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xf16>)
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$STRETCH0]], #[[$ID2]]], {{.*}}} ins(%[[M]], %[[B]] : tensor<8x32xf16>, tensor<1x32xf16>)
// CHECK: arith.addf
// CHECK: tensor.expand_shape
// CHECK: arith.subf
// CHECK: math.sqrt
// CHECK: tensor.concat dim(0)
// CHECK-NOT: block.
// CHECK: scf.yield
func.func @block_ops(%x: tensor<8x64xf16>, %w: tensor<64x32xf16>, %b: tensor<1x32xf16>,
                     %n: index) -> tensor<16x32xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = tensor.empty() : tensor<16x32xf16>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<16x32xf16> {
    %m = block.matmul %x, %w : tensor<8x64xf16>, tensor<64x32xf16>
    %y = block.add %m, %b : tensor<8x32xf16>, tensor<1x32xf16>
    %s = block.reduce_max %y dim 1 : tensor<8x32xf16>
    %e = block.sub %y, %s : tensor<8x32xf16>, tensor<8x1xf16>
    %nrm = block.rms_norm %e {epsilon = 1.0e-06 : f64} : tensor<8x32xf16>
    %c = block.concat %nrm, %e dim 0 : tensor<8x32xf16>, tensor<8x32xf16>
    scf.yield %c : tensor<16x32xf16>
  }
  return %r : tensor<16x32xf16>
}

// A custom kernel and everything in it stays as it is (even an op whose
// result is unused); the kernel ops around it lower.
// CHECK-LABEL: func.func @custom_untouched
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>)
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x64xf32>)
// CHECK: math.exp
// CHECK: %[[O:.*]] = kernel.custom(%[[E]]) grid <1, 1, 1> block <128, 1, 1>
// CHECK-NEXT: ^bb0(%[[IN0:.*]]: tensor<8x64xf32>, %[[OUT0:.*]]: tensor<8x64xf32>):
// CHECK-NEXT: %[[ACC:.*]] = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
// CHECK-NEXT: %[[T:.*]] = block.load %[[IN0]] imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
// CHECK-NEXT: %[[U:.*]] = block.exp %[[T]] : tensor<8x64xf32>
// CHECK-NEXT: block.neg %[[T]] : tensor<8x64xf32>
// CHECK-NEXT: block.yield %[[U]] : tensor<8x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[Y:.*]] = block.mul_scalar %[[ACC]], 2.000000e+00 : tensor<8x64xf32>
// CHECK-NEXT: block.store %[[Y]], %[[OUT0]] omap <> : tensor<8x64xf32> into tensor<8x64xf32>
// CHECK-NEXT: block.return
// CHECK-NEXT: }
// CHECK: linalg.generic {{.*}} ins(%[[O]] : tensor<8x64xf32>)
// CHECK: arith.negf
func.func @custom_untouched(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kernel.exp %x : tensor<8x64xf32>
  %o = kernel.custom (%e) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %t = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      %u = block.exp %t : tensor<8x64xf32>
      %unused = block.neg %t : tensor<8x64xf32>
      block.yield %u : tensor<8x64xf32>
    }
    %y = block.mul_scalar %acc, 2.0 : tensor<8x64xf32>
    block.store %y, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  %r = kernel.neg %o : tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
