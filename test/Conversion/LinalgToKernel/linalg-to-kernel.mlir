// RUN: mlsopt-opt %s --convert-linalg-to-kernel --split-input-file | FileCheck %s

// Linalg on tensors as front ends (torch-mlir, IREE) emit it, imported into
// the kernel dialect. Converted functions must have no linalg op left (the
// zero fills and tensor.empty ops that fed them die with them); what the
// kernel dialect cannot express must stay exactly as it was.

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_zero_fill
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<64x96xf16>)
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.empty
// CHECK: %[[C:.*]] = kernel.matmul %[[A]], %[[B]] : tensor<8x64xf16>, tensor<64x96xf16>
// CHECK-NEXT: return %[[C]] : tensor<8x96xf16>
func.func @matmul_zero_fill(%a: tensor<8x64xf16>, %b: tensor<64x96xf16>) -> tensor<8x96xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %empty = tensor.empty() : tensor<8x96xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%empty : tensor<8x96xf16>) -> tensor<8x96xf16>
  %r = linalg.matmul ins(%a, %b : tensor<8x64xf16>, tensor<64x96xf16>) outs(%fill : tensor<8x96xf16>) -> tensor<8x96xf16>
  return %r : tensor<8x96xf16>
}

// -----

// C += A B: the product, then the init added.
// CHECK-LABEL: func.func @matmul_accumulate
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<64x96xf32>, %[[C:[a-zA-Z0-9_]+]]: tensor<8x96xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[P:.*]] = kernel.matmul %[[A]], %[[B]] : tensor<8x64xf32>, tensor<64x96xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.add %[[C]], %[[P]] : tensor<8x96xf32>, tensor<8x96xf32>
// CHECK-NEXT: return %[[S]]
func.func @matmul_accumulate(%a: tensor<8x64xf32>, %b: tensor<64x96xf32>, %c: tensor<8x96xf32>) -> tensor<8x96xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x96xf32>) outs(%c : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %r : tensor<8x96xf32>
}

// -----

// A fill with a value other than zero is an init to add, not to drop: as
// a scalar, so that no linalg.fill is left beside the kernel ops (the GPU
// lowering takes none).
// CHECK-LABEL: func.func @matmul_one_fill
// CHECK-NOT: linalg.fill
// CHECK: %[[P:.*]] = kernel.matmul
// CHECK-NEXT: %[[S:.*]] = kernel.add_scalar %[[P]], 1.000000e+00
// CHECK-NEXT: return %[[S]]
func.func @matmul_one_fill(%a: tensor<8x64xf32>, %b: tensor<64x96xf32>) -> tensor<8x96xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %empty = tensor.empty() : tensor<8x96xf32>
  %fill = linalg.fill ins(%one : f32) outs(%empty : tensor<8x96xf32>) -> tensor<8x96xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x96xf32>) outs(%fill : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %r : tensor<8x96xf32>
}

// -----

// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<4x8x64xbf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<4x64x32xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[C:.*]] = kernel.matmul %[[A]], %[[B]] : tensor<4x8x64xbf16>, tensor<4x64x32xbf16>
// CHECK-NEXT: return %[[C]] : tensor<4x8x32xbf16>
func.func @batch_matmul(%a: tensor<4x8x64xbf16>, %b: tensor<4x64x32xbf16>) -> tensor<4x8x32xbf16> {
  %zero = arith.constant 0.000000e+00 : bf16
  %empty = tensor.empty() : tensor<4x8x32xbf16>
  %fill = linalg.fill ins(%zero : bf16) outs(%empty : tensor<4x8x32xbf16>) -> tensor<4x8x32xbf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x8x64xbf16>, tensor<4x64x32xbf16>) outs(%fill : tensor<4x8x32xbf16>) -> tensor<4x8x32xbf16>
  return %r : tensor<4x8x32xbf16>
}

// -----

// x W^T, as torch-mlir emits nn.Linear (MLIR 22 spells matmul_transpose_b
// as a matmul with indexing_maps).
// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<96x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[WT:.*]] = kernel.transpose %[[W]] [1, 0] : tensor<96x64xf16>
// CHECK-NEXT: %[[C:.*]] = kernel.matmul %[[X]], %[[WT]] : tensor<8x64xf16>, tensor<64x96xf16>
// CHECK-NEXT: return %[[C]]
func.func @matmul_transpose_b(%x: tensor<8x64xf16>, %w: tensor<96x64xf16>) -> tensor<8x96xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %empty = tensor.empty() : tensor<8x96xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%empty : tensor<8x96xf16>) -> tensor<8x96xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x64xf16>, tensor<96x64xf16>) outs(%fill : tensor<8x96xf16>) -> tensor<8x96xf16>
  return %r : tensor<8x96xf16>
}

// -----

// CHECK-LABEL: func.func @matmul_transpose_a
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<64x8xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<64x96xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[AT:.*]] = kernel.transpose %[[A]] [1, 0] : tensor<64x8xf32>
// CHECK-NEXT: %[[C:.*]] = kernel.matmul %[[AT]], %[[B]] : tensor<8x64xf32>, tensor<64x96xf32>
// CHECK-NEXT: return %[[C]]
func.func @matmul_transpose_a(%a: tensor<64x8xf32>, %b: tensor<64x96xf32>) -> tensor<8x96xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %empty = tensor.empty() : tensor<8x96xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x96xf32>) -> tensor<8x96xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x8xf32>, tensor<64x96xf32>) outs(%fill : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %r : tensor<8x96xf32>
}

// -----

// Q K^T of attention: batch_matmul_transpose_b.
// CHECK-LABEL: func.func @batch_matmul_transpose_b
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x16x64xf16>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x32x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[KT:.*]] = kernel.transpose %[[K]] [0, 2, 1] : tensor<2x32x64xf16>
// CHECK-NEXT: %[[S:.*]] = kernel.matmul %[[Q]], %[[KT]] : tensor<2x16x64xf16>, tensor<2x64x32xf16>
// CHECK-NEXT: return %[[S]] : tensor<2x16x32xf16>
func.func @batch_matmul_transpose_b(%q: tensor<2x16x64xf16>, %k: tensor<2x32x64xf16>) -> tensor<2x16x32xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %empty = tensor.empty() : tensor<2x16x32xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%empty : tensor<2x16x32xf16>) -> tensor<2x16x32xf16>
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x16x64xf16>, tensor<2x32x64xf16>) outs(%fill : tensor<2x16x32xf16>) -> tensor<2x16x32xf16>
  return %r : tensor<2x16x32xf16>
}

// -----

// linalg.contract, MLIR 22's general contraction op.
// CHECK-LABEL: func.func @contract
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<4x8x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<4x32x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[BT:.*]] = kernel.transpose %[[B]] [0, 2, 1] : tensor<4x32x64xf32>
// CHECK-NEXT: %[[C:.*]] = kernel.matmul %[[A]], %[[BT]] : tensor<4x8x64xf32>, tensor<4x64x32xf32>
// CHECK-NEXT: return %[[C]]
func.func @contract(%a: tensor<4x8x64xf32>, %b: tensor<4x32x64xf32>) -> tensor<4x8x32xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  %r = linalg.contract indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<4x8x64xf32>, tensor<4x32x64xf32>) outs(%z : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  return %r : tensor<4x8x32xf32>
}

// -----

// A linalg.generic matmul that writes its result transposed, with a splat
// constant as its zero init.
// CHECK-LABEL: func.func @generic_matmul_transposed_result
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<64x96xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[C:.*]] = kernel.matmul %[[A]], %[[B]] : tensor<8x64xf32>, tensor<64x96xf32>
// CHECK-NEXT: %[[CT:.*]] = kernel.transpose %[[C]] [1, 0] : tensor<8x96xf32>
// CHECK-NEXT: return %[[CT]] : tensor<96x8xf32>
func.func @generic_matmul_transposed_result(%a: tensor<8x64xf32>, %b: tensor<64x96xf32>) -> tensor<96x8xf32> {
  %zeros = arith.constant dense<0.000000e+00> : tensor<96x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x64xf32>, tensor<64x96xf32>) outs(%zeros : tensor<96x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<96x8xf32>
  return %r : tensor<96x8xf32>
}

// -----

// One weight applied to a batch of sequences, (b, m, k) x (k, n): b is a row
// dim the weight does not index. The rows are contiguous, so it is one
// matmul of the flattened rows.
// CHECK-LABEL: func.func @shared_weight
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3x16x48xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<48x80xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<3x16x48xf32> into tensor<48x48xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.matmul %[[F]], %[[W]] : tensor<48x48xf32>, tensor<48x80xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]] output_shape [3, 16, 80] : tensor<48x80xf32> into tensor<3x16x80xf32>
// CHECK-NEXT: return %[[R]]
func.func @shared_weight(%a: tensor<3x16x48xf32>, %w: tensor<48x80xf32>) -> tensor<3x16x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x16x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x16x80xf32>) -> tensor<3x16x80xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<3x16x48xf32>, tensor<48x80xf32>) outs(%f : tensor<3x16x80xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x16x80xf32>
  return %c : tensor<3x16x80xf32>
}

// -----

// torch's F.linear on a batch of sequences: the weight is stored [n, k].
// One matmul of the flattened rows, reading the weight through a transpose
// (which the kernel that loads it then permutes as it loads).
// CHECK-LABEL: func.func @shared_weight_stored_nk
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3x16x48xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<80x48xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<3x16x48xf32> into tensor<48x48xf32>
// CHECK-NEXT: %[[T:.*]] = kernel.transpose %[[W]] [1, 0] : tensor<80x48xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.matmul %[[F]], %[[T]] : tensor<48x48xf32>, tensor<48x80xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]] output_shape [3, 16, 80] : tensor<48x80xf32> into tensor<3x16x80xf32>
// CHECK-NEXT: return %[[R]]
func.func @shared_weight_stored_nk(%a: tensor<3x16x48xf32>, %w: tensor<80x48xf32>) -> tensor<3x16x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x16x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x16x80xf32>) -> tensor<3x16x80xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<3x16x48xf32>, tensor<80x48xf32>) outs(%f : tensor<3x16x80xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x16x80xf32>
  return %c : tensor<3x16x80xf32>
}

// -----

// The left operand orders its rows otherwise than the result (m before b):
// one matmul of the rows in the left operand's order, whose product is
// transposed into the result's.
// CHECK-LABEL: func.func @shared_weight_rows_apart
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<16x3x48xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<48x80xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<16x3x48xf32> into tensor<48x48xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.matmul %[[F]], %[[W]] : tensor<48x48xf32>, tensor<48x80xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]] output_shape [16, 3, 80] : tensor<48x80xf32> into tensor<16x3x80xf32>
// CHECK-NEXT: %[[R:.*]] = kernel.transpose %[[E]] [1, 0, 2] : tensor<16x3x80xf32>
// CHECK-NEXT: return %[[R]] : tensor<3x16x80xf32>
func.func @shared_weight_rows_apart(%a: tensor<16x3x48xf32>, %w: tensor<48x80xf32>) -> tensor<3x16x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x16x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x16x80xf32>) -> tensor<3x16x80xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (m, b, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<16x3x48xf32>, tensor<48x80xf32>) outs(%f : tensor<3x16x80xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x16x80xf32>
  return %c : tensor<3x16x80xf32>
}

// -----

// The product written transposed, [b, n, m]: the matmul of the flattened
// rows, then a transpose of its last two dims.
// CHECK-LABEL: func.func @shared_weight_product_transposed
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<4x33x64xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x48xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<4x33x64xf16> into tensor<132x64xf16>
// CHECK-NEXT: %[[P:.*]] = kernel.matmul %[[F]], %[[W]] : tensor<132x64xf16>, tensor<64x48xf16>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]] output_shape [4, 33, 48] : tensor<132x48xf16> into tensor<4x33x48xf16>
// CHECK-NEXT: %[[R:.*]] = kernel.transpose %[[E]] [0, 2, 1] : tensor<4x33x48xf16>
// CHECK-NEXT: return %[[R]] : tensor<4x48x33xf16>
func.func @shared_weight_product_transposed(%a: tensor<4x33x64xf16>, %w: tensor<64x48xf16>) -> tensor<4x48x33xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x48x33xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x48x33xf16>) -> tensor<4x48x33xf16>
  %c = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, n, m)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<4x33x64xf16>, tensor<64x48xf16>) outs(%f : tensor<4x48x33xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %p = arith.mulf %x, %y : f16
    %s = arith.addf %o, %p : f16
    linalg.yield %s : f16
  } -> tensor<4x48x33xf16>
  return %c : tensor<4x48x33xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Transposes
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x16x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[T:.*]] = kernel.transpose %[[X]] [0, 2, 1] : tensor<2x16x64xf16>
// CHECK-NEXT: return %[[T]] : tensor<2x64x16xf16>
func.func @transpose(%x: tensor<2x16x64xf16>) -> tensor<2x64x16xf16> {
  %empty = tensor.empty() : tensor<2x64x16xf16>
  %t = linalg.transpose ins(%x : tensor<2x16x64xf16>) outs(%empty : tensor<2x64x16xf16>) permutation = [0, 2, 1]
  return %t : tensor<2x64x16xf16>
}

// -----

// Result dim i is operand dim permutation[i] in both dialects.
// CHECK-LABEL: func.func @transpose_rotate
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x16x64xf32>)
// CHECK: %[[T:.*]] = kernel.transpose %[[X]] [2, 0, 1] : tensor<2x16x64xf32>
// CHECK-NEXT: return %[[T]] : tensor<64x2x16xf32>
func.func @transpose_rotate(%x: tensor<2x16x64xf32>) -> tensor<64x2x16xf32> {
  %empty = tensor.empty() : tensor<64x2x16xf32>
  %t = linalg.transpose ins(%x : tensor<2x16x64xf32>) outs(%empty : tensor<64x2x16xf32>) permutation = [2, 0, 1]
  return %t : tensor<64x2x16xf32>
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @named_binary_and_unary
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[ADD:.*]] = kernel.add %[[X]], %[[Y]] : tensor<8x64xf32>, tensor<8x64xf32>
// CHECK-NEXT: %[[SUB:.*]] = kernel.sub %[[X]], %[[Y]] : tensor<8x64xf32>, tensor<8x64xf32>
// CHECK-NEXT: %[[MUL:.*]] = kernel.mul %[[X]], %[[Y]] : tensor<8x64xf32>, tensor<8x64xf32>
// CHECK-NEXT: %[[DIV:.*]] = kernel.div %[[X]], %[[Y]] : tensor<8x64xf32>, tensor<8x64xf32>
// CHECK-NEXT: %[[EXP:.*]] = kernel.exp %[[X]] : tensor<8x64xf32>
// CHECK-NEXT: %[[LOG:.*]] = kernel.log %[[X]] : tensor<8x64xf32>
// CHECK-NEXT: %[[SQRT:.*]] = kernel.sqrt %[[X]] : tensor<8x64xf32>
// CHECK-NEXT: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[EXP]], %[[LOG]], %[[SQRT]]
func.func @named_binary_and_unary(%x: tensor<8x64xf32>, %y: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %add = linalg.add ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %sub = linalg.sub ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %mul = linalg.mul ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %div = linalg.div ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %exp = linalg.exp ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %log = linalg.log ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %sqrt = linalg.sqrt ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %add, %sub, %mul, %div, %exp, %log, %sqrt : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// CHECK-LABEL: func.func @named_unary_f16
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[RSQRT:.*]] = kernel.rsqrt %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: %[[TANH:.*]] = kernel.tanh %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: %[[ERF:.*]] = kernel.erf %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: %[[NEG:.*]] = kernel.neg %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: %[[SQUARE:.*]] = kernel.square %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: return %[[RSQRT]], %[[TANH]], %[[ERF]], %[[NEG]], %[[SQUARE]]
func.func @named_unary_f16(%x: tensor<8x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>) {
  %e = tensor.empty() : tensor<8x64xf16>
  %rsqrt = linalg.rsqrt ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %tanh = linalg.tanh ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %erf = linalg.erf ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %neg = linalg.negf ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %square = linalg.square ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %rsqrt, %tanh, %erf, %neg, %square : tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>
}

// -----

// linalg.max against a zero fill is relu.
// CHECK-LABEL: func.func @named_max_with_zeros_is_relu
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.*]] = kernel.relu %[[X]] : tensor<8x64xf32>
// CHECK-NEXT: return %[[R]]
func.func @named_max_with_zeros_is_relu(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %r = linalg.max ins(%x, %zeros : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// MLIR 22's category op, with a broadcast map.
// CHECK-LABEL: func.func @elementwise_category_op
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[EXP:.*]] = kernel.exp %[[X]] : tensor<8x64xf32>
// CHECK-NEXT: %[[ADD:.*]] = kernel.add %[[X]], %[[B]] : tensor<8x64xf32>, tensor<64xf32>
// CHECK-NEXT: return %[[EXP]], %[[ADD]]
func.func @elementwise_category_op(%x: tensor<8x64xf32>, %b: tensor<64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %exp = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %add = linalg.elementwise kind=#linalg.elementwise_kind<add>
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
      ins(%x, %b : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %exp, %add : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// CHECK-LABEL: func.func @map
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<64xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<64xf32>)
// CHECK: %[[M:.*]] = kernel.mul %[[X]], %[[Y]] : tensor<64xf32>, tensor<64xf32>
// CHECK-NEXT: return %[[M]]
func.func @map(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.map { arith.mulf } ins(%x, %y : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>)
  return %r : tensor<64xf32>
}

// -----

// Bias add with a 1-D bias, as torch-mlir broadcasts it: numpy broadcasting
// stretches the [96] bias over the rows as it is.
// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x96xf16>, %[[BIAS:[a-zA-Z0-9_]+]]: tensor<96xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[Y:.*]] = kernel.add %[[X]], %[[BIAS]] : tensor<8x96xf16>, tensor<96xf16>
// CHECK-NEXT: return %[[Y]]
func.func @bias_add(%x: tensor<8x96xf16>, %bias: tensor<96xf16>) -> tensor<8x96xf16> {
  %e = tensor.empty() : tensor<8x96xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<8x96xf16>, tensor<96xf16>) outs(%e : tensor<8x96xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  } -> tensor<8x96xf16>
  return %r : tensor<8x96xf16>
}

// -----

// Row scale by a [M] vector: it needs a trailing size-1 dim to broadcast
// along the columns.
// CHECK-LABEL: func.func @row_scale
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x96xf32>, %[[S:[a-zA-Z0-9_]+]]: tensor<8xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[S1:.*]] = tensor.expand_shape %[[S]] {{\[}}[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// CHECK-NEXT: %[[Y:.*]] = kernel.mul %[[X]], %[[S1]] : tensor<8x96xf32>, tensor<8x1xf32>
// CHECK-NEXT: return %[[Y]]
func.func @row_scale(%x: tensor<8x96xf32>, %s: tensor<8xf32>) -> tensor<8x96xf32> {
  %e = tensor.empty() : tensor<8x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<8x96xf32>, tensor<8xf32>) outs(%e : tensor<8x96xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x96xf32>
  return %r : tensor<8x96xf32>
}

// -----

// Each operand broadcasts along the loop of the other.
// CHECK-LABEL: func.func @outer_difference
// CHECK-SAME: (%[[R:[a-zA-Z0-9_]+]]: tensor<8xf32>, %[[C:[a-zA-Z0-9_]+]]: tensor<96xf32>)
// CHECK: %[[R1:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [8, 1]
// CHECK-NEXT: %[[D:.*]] = kernel.sub %[[R1]], %[[C]] : tensor<8x1xf32>, tensor<96xf32>
// CHECK-NEXT: return %[[D]] : tensor<8x96xf32>
func.func @outer_difference(%r: tensor<8xf32>, %c: tensor<96xf32>) -> tensor<8x96xf32> {
  %e = tensor.empty() : tensor<8x96xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r, %c : tensor<8xf32>, tensor<96xf32>) outs(%e : tensor<8x96xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x96xf32>
  return %o : tensor<8x96xf32>
}

// -----

// An operand read through a permuted map is transposed first; one read at
// the constant index 0 of a size-1 dim (keepdim style) is used as it is.
// CHECK-LABEL: func.func @transposed_and_keepdim_operands
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x96xf32>, %[[T:[a-zA-Z0-9_]+]]: tensor<96x8xf32>, %[[K:[a-zA-Z0-9_]+]]: tensor<8x1xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[TT:.*]] = kernel.transpose %[[T]] [1, 0] : tensor<96x8xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.add %[[X]], %[[TT]] : tensor<8x96xf32>, tensor<8x96xf32>
// CHECK-NEXT: %[[D:.*]] = kernel.div %[[S]], %[[K]] : tensor<8x96xf32>, tensor<8x1xf32>
// CHECK-NEXT: return %[[D]]
func.func @transposed_and_keepdim_operands(%x: tensor<8x96xf32>, %t: tensor<96x8xf32>, %k: tensor<8x1xf32>) -> tensor<8x96xf32> {
  %e = tensor.empty() : tensor<8x96xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t, %k : tensor<8x96xf32>, tensor<96x8xf32>, tensor<8x1xf32>) outs(%e : tensor<8x96xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %d = arith.divf %s, %c : f32
    linalg.yield %d : f32
  } -> tensor<8x96xf32>
  return %o : tensor<8x96xf32>
}

// -----

// An elementwise op that writes its result transposed.
// CHECK-LABEL: func.func @transposed_result
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x96xf32>)
// CHECK: %[[E:.*]] = kernel.exp %[[X]] : tensor<8x96xf32>
// CHECK-NEXT: %[[T:.*]] = kernel.transpose %[[E]] [1, 0] : tensor<8x96xf32>
// CHECK-NEXT: return %[[T]] : tensor<96x8xf32>
func.func @transposed_result(%x: tensor<8x96xf32>) -> tensor<96x8xf32> {
  %e = tensor.empty() : tensor<96x8xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x96xf32>) outs(%e : tensor<96x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %ex = math.exp %a : f32
    linalg.yield %ex : f32
  } -> tensor<96x8xf32>
  return %o : tensor<96x8xf32>
}

// -----

// Constants, defined in or outside the payload, in every operand position:
// x - c is x + (-c), c - x is (-x) + c, x / c is x * (1/c) for c = 4, and
// max(x, 0) is relu.
// CHECK-LABEL: func.func @scalar_operands
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[V0:.*]] = kernel.mul_scalar %[[X]], 3.000000e+00 : tensor<8x64xf32>
// CHECK-NEXT: %[[V1:.*]] = kernel.mul_scalar %[[V0]], 2.000000e+00
// CHECK-NEXT: %[[V2:.*]] = kernel.add_scalar %[[V1]], 5.000000e-01
// CHECK-NEXT: %[[V3:.*]] = kernel.add_scalar %[[V2]], 7.000000e+00
// CHECK-NEXT: %[[V4:.*]] = kernel.add_scalar %[[V3]], -2.000000e+00
// CHECK-NEXT: %[[V5:.*]] = kernel.neg %[[V4]]
// CHECK-NEXT: %[[V6:.*]] = kernel.add_scalar %[[V5]], 3.000000e+00
// CHECK-NEXT: %[[V7:.*]] = kernel.mul_scalar %[[V6]], 2.500000e-01
// CHECK-NEXT: %[[V8:.*]] = kernel.relu %[[V7]]
// CHECK-NEXT: return %[[V8]]
func.func @scalar_operands(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %c3 = arith.constant 3.000000e+00 : f32
  %c2 = arith.constant 2.000000e+00 : f32
  %c4 = arith.constant 4.000000e+00 : f32
  %c7 = arith.constant 7.000000e+00 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %out: f32):
    %half = arith.constant 5.000000e-01 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %0 = arith.mulf %a, %c3 : f32
    %1 = arith.mulf %c2, %0 : f32
    %2 = arith.addf %1, %half : f32
    %3 = arith.addf %c7, %2 : f32
    %4 = arith.subf %3, %c2 : f32
    %5 = arith.subf %c3, %4 : f32
    %6 = arith.divf %5, %c4 : f32
    %7 = arith.maximumf %6, %zero : f32
    linalg.yield %7 : f32
  } -> tensor<8x64xf32>
  return %o : tensor<8x64xf32>
}

// -----

// A splat operand (a fill, or a dense splat constant) is a scalar too.
// CHECK-LABEL: func.func @splat_operands
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[A:.*]] = kernel.add_scalar %[[X]], 1.000000e+00 : tensor<8x64xf16>
// CHECK-NEXT: %[[M:.*]] = kernel.mul_scalar %[[A]], 1.250000e-01 : tensor<8x64xf16>
// CHECK-NEXT: return %[[M]]
func.func @splat_operands(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %one = arith.constant 1.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %ones = linalg.fill ins(%one : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %eighths = arith.constant dense<1.250000e-01> : tensor<64xf16>
  %a = linalg.add ins(%x, %ones : tensor<8x64xf16>, tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %eighths : tensor<8x64xf16>, tensor<64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%in: f16, %c: f16, %out: f16):
    %p = arith.mulf %in, %c : f16
    linalg.yield %p : f16
  } -> tensor<8x64xf16>
  return %m : tensor<8x64xf16>
}

// -----

// A payload that reads its init: out + x * x, with one kernel op per op and
// the same operand twice as a square.
// CHECK-LABEL: func.func @reads_init
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[INIT:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK: %[[SQ:.*]] = kernel.square %[[X]]
// CHECK-NEXT: %[[S:.*]] = kernel.add %[[INIT]], %[[SQ]]
// CHECK-NEXT: return %[[S]]
func.func @reads_init(%x: tensor<8x64xf32>, %init: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%init : tensor<8x64xf32>) {
  ^bb0(%a: f32, %out: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %out, %sq : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %o : tensor<8x64xf32>
}

// -----

// Kernel ops on f16 and bf16 compute in f32 and round once: a payload that
// extends to f32, computes one op (or one idiom) and truncates back is that
// kernel op, as --convert-kernel-to-linalg writes it.
// CHECK-LABEL: func.func @computed_in_f32
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<64xf16>, %[[Z:[a-zA-Z0-9_]+]]: tensor<8x64xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[E:.*]] = kernel.exp %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: %[[A:.*]] = kernel.add %[[X]], %[[Y]] : tensor<8x64xf16>, tensor<64xf16>
// CHECK-NEXT: %[[S:.*]] = kernel.silu %[[Z]] : tensor<8x64xbf16>
// CHECK-NEXT: %[[M:.*]] = kernel.mul_scalar %[[Z]], 5.000000e-01 : tensor<8x64xbf16>
// CHECK-NEXT: return %[[E]], %[[A]], %[[S]], %[[M]]
func.func @computed_in_f32(%x: tensor<8x64xf16>, %y: tensor<64xf16>, %z: tensor<8x64xbf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xbf16>, tensor<8x64xbf16>) {
  %e = tensor.empty() : tensor<8x64xf16>
  %eb = tensor.empty() : tensor<8x64xbf16>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %w = arith.extf %in : f16 to f32
    %r = math.exp %w : f32
    %n = arith.truncf %r : f32 to f16
    linalg.yield %n : f16
  } -> tensor<8x64xf16>
  %add = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x64xf16>, tensor<64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %wa = arith.extf %a : f16 to f32
    %wb = arith.extf %b : f16 to f32
    %r = arith.addf %wa, %wb : f32
    %n = arith.truncf %r : f32 to f16
    linalg.yield %n : f16
  } -> tensor<8x64xf16>
  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<8x64xbf16>) outs(%eb : tensor<8x64xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %one = arith.constant 1.000000e+00 : f32
    %w = arith.extf %in : bf16 to f32
    %neg = arith.negf %w : f32
    %ex = math.exp %neg : f32
    %den = arith.addf %ex, %one : f32
    %sig = arith.divf %one, %den : f32
    %r = arith.mulf %w, %sig : f32
    %n = arith.truncf %r : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<8x64xbf16>
  %half = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<8x64xbf16>) outs(%eb : tensor<8x64xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %c = arith.constant 2.000000e+00 : f32
    %w = arith.extf %in : bf16 to f32
    %r = arith.divf %w, %c : f32
    %n = arith.truncf %r : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<8x64xbf16>
  return %exp, %add, %silu, %half : tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xbf16>, tensor<8x64xbf16>
}

// -----

// Rank-0 tensors, and a rank-0 operand broadcast over a matrix as a scalar
// tensor.
// CHECK-LABEL: func.func @rank_0
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<f32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[E:.*]] = kernel.exp %[[X]] : tensor<f32>
// CHECK-NEXT: %[[S:.*]] = kernel.sub %[[Y]], %[[X]] : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: return %[[E]], %[[S]]
func.func @rank_0(%x: tensor<f32>, %y: tensor<4x8xf32>) -> (tensor<f32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<f32>
  %ex = linalg.exp ins(%x : tensor<f32>) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y, %x : tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %ex, %s : tensor<f32>, tensor<4x8xf32>
}

// -----

// gelu written out in f32, with 1/sqrt(2) as a constant: one kernel.gelu.
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[G:.*]] = kernel.gelu %[[X]] : tensor<8x64xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %half = arith.constant 5.000000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %rsqrt2 = arith.constant 0.707106769 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.mulf %in, %rsqrt2 : f32
    %erf = math.erf %a : f32
    %cdf = arith.addf %erf, %one : f32
    %hcdf = arith.mulf %cdf, %half : f32
    %r = arith.mulf %in, %hcdf : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %g : tensor<8x64xf32>
}

// -----

// With a constant other than 1/sqrt(2) it is no gelu: primitive kernel ops
// in f32, and in f16 computed in f32 the same ops in f32 between
// conversions (f16 kernel ops would round between the ops).
// CHECK-LABEL: func.func @not_gelu
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NOT: kernel.gelu
// CHECK: %[[A:.*]] = kernel.mul_scalar %[[X]], 7.500000e-01
// CHECK-NEXT: %[[E:.*]] = kernel.erf %[[A]]
// CHECK-NEXT: %[[C:.*]] = kernel.add_scalar %[[E]], 1.000000e+00
// CHECK-NEXT: %[[H:.*]] = kernel.mul_scalar %[[C]], 5.000000e-01
// CHECK-NEXT: %[[G:.*]] = kernel.mul %[[X]], %[[H]]
// CHECK: %[[W:.*]] = kernel.convert %[[Y]] : tensor<8x64xf16> to tensor<8x64xf32>
// CHECK-NEXT: kernel.mul_scalar %[[W]], 7.500000e-01
// CHECK-NEXT: kernel.erf
// CHECK: %[[P:.*]] = kernel.mul %[[W]], %{{.*}} : tensor<8x64xf32>
// CHECK-NEXT: %[[F:.*]] = kernel.convert %[[P]] : tensor<8x64xf32> to tensor<8x64xf16>
// CHECK-NOT: linalg.
// CHECK: return %[[G]], %[[F]]
func.func @not_gelu(%x: tensor<8x64xf32>, %y: tensor<8x64xf16>) -> (tensor<8x64xf32>, tensor<8x64xf16>) {
  %half = arith.constant 5.000000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %c = arith.constant 7.500000e-01 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.mulf %in, %c : f32
    %erf = math.erf %a : f32
    %cdf = arith.addf %erf, %one : f32
    %hcdf = arith.mulf %cdf, %half : f32
    %r = arith.mulf %in, %hcdf : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %eh = tensor.empty() : tensor<8x64xf16>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x64xf16>) outs(%eh : tensor<8x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %w = arith.extf %in : f16 to f32
    %a = arith.mulf %w, %c : f32
    %erf = math.erf %a : f32
    %cdf = arith.addf %erf, %one : f32
    %hcdf = arith.mulf %cdf, %half : f32
    %r = arith.mulf %w, %hcdf : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x64xf16>
  return %g, %f : tensor<8x64xf32>, tensor<8x64xf16>
}

// -----

// 1 / sqrt(x) written out is rsqrt(x): in f32, and in f16 computed in f32
// and truncated once (as kernel.rsqrt computes it).
// CHECK-LABEL: func.func @rsqrt_idiom
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.*]] = kernel.rsqrt %[[X]] : tensor<8x64xf32>
// CHECK-NEXT: %[[H:.*]] = kernel.rsqrt %[[Y]] : tensor<8x64xf16>
// CHECK-NEXT: return %[[R]], %[[H]]
func.func @rsqrt_idiom(%x: tensor<8x64xf32>, %y: tensor<8x64xf16>) -> (tensor<8x64xf32>, tensor<8x64xf16>) {
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sqrt %in : f32
    %q = arith.divf %one, %s : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  %eh = tensor.empty() : tensor<8x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x64xf16>) outs(%eh : tensor<8x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %w = arith.extf %in : f16 to f32
    %s = math.sqrt %w : f32
    %q = arith.divf %one, %s : f32
    %t = arith.truncf %q : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x64xf16>
  return %r, %h : tensor<8x64xf32>, tensor<8x64xf16>
}

// -----

// Not rsqrt: a numerator other than exactly 1, and 1 / sqrt(x) computed in
// f16 (two roundings in f16, where kernel.rsqrt rounds once from f32).
// Each is a sqrt, then a splat constant divided by it, which rounds as the
// payload does.
// CHECK-LABEL: func.func @not_rsqrt
// CHECK-NOT: kernel.rsqrt
// CHECK: %[[S:.*]] = kernel.sqrt %arg0 : tensor<8x64xf32>
// CHECK-NEXT: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT: %[[A:.*]] = kernel.div %[[TWO]], %[[S]] : tensor<1x1xf32>, tensor<8x64xf32>
// CHECK-NEXT: %[[SH:.*]] = kernel.sqrt %arg1 : tensor<8x64xf16>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<1x1xf16>
// CHECK-NEXT: %[[B:.*]] = kernel.div %[[ONE]], %[[SH]] : tensor<1x1xf16>, tensor<8x64xf16>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @not_rsqrt(%x: tensor<8x64xf32>, %y: tensor<8x64xf16>) -> (tensor<8x64xf32>, tensor<8x64xf16>) {
  %two = arith.constant 2.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sqrt %in : f32
    %q = arith.divf %two, %s : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  %eh = tensor.empty() : tensor<8x64xf16>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x64xf16>) outs(%eh : tensor<8x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %s = math.sqrt %in : f16
    %q = arith.divf %one, %s : f16
    linalg.yield %q : f16
  } -> tensor<8x64xf16>
  return %a, %b : tensor<8x64xf32>, tensor<8x64xf16>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

// linalg.reduce drops the reduced dim; kernel.reduce_sum keeps it as size 1.
// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[S:.*]] = kernel.reduce_sum %[[X]] dim 1 : tensor<8x64xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
// CHECK-NEXT: return %[[C]] : tensor<8xf32>
func.func @reduce_sum(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%x : tensor<8x64xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_dim0
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[M:.*]] = kernel.reduce_max %[[X]] dim 0 : tensor<8x64xf16>
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[M]] {{\[}}[0, 1]] : tensor<1x64xf16> into tensor<64xf16>
// CHECK-NEXT: return %[[C]]
func.func @reduce_max_dim0(%x: tensor<8x64xf16>) -> tensor<64xf16> {
  %ninf = arith.constant 0xFC00 : f16
  %e = tensor.empty() : tensor<64xf16>
  %init = linalg.fill ins(%ninf : f16) outs(%e : tensor<64xf16>) -> tensor<64xf16>
  %r = linalg.reduce ins(%x : tensor<8x64xf16>) outs(%init : tensor<64xf16>) dimensions = [0]
    (%in: f16, %acc: f16) {
      %m = arith.maximumf %acc, %in : f16
      linalg.yield %m : f16
    }
  return %r : tensor<64xf16>
}

// -----

// The reduced dim kept at the constant index 0 (torch-mlir's keepdim=True):
// the kernel result is the linalg result; the lowest finite value is a max
// identity too.
// CHECK-LABEL: func.func @reduce_max_keepdim
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[M:.*]] = kernel.reduce_max %[[X]] dim 2 : tensor<2x8x64xf32>
// CHECK-NEXT: return %[[M]] : tensor<2x8x1xf32>
func.func @reduce_max_keepdim(%x: tensor<2x8x64xf32>) -> tensor<2x8x1xf32> {
  %lowest = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<2x8x1xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, 0)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x8x64xf32>) outs(%init : tensor<2x8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2x8x1xf32>
  return %r : tensor<2x8x1xf32>
}

// -----

// A permuted input and a permuted result around the reduction.
// CHECK-LABEL: func.func @reduce_sum_permuted
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<64x8x4xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[XT:.*]] = kernel.transpose %[[X]] [1, 0, 2] : tensor<64x8x4xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.reduce_sum %[[XT]] dim 1 : tensor<8x64x4xf32>
// CHECK-NEXT: %[[ST:.*]] = kernel.transpose %[[S]] [2, 0, 1] : tensor<8x1x4xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[ST]] {{\[}}[0], [1, 2]] : tensor<4x8x1xf32> into tensor<4x8xf32>
// CHECK-NEXT: return %[[C]]
func.func @reduce_sum_permuted(%x: tensor<64x8x4xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (k, i, j)>, affine_map<(i, k, j) -> (j, i)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<64x8x4xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A payload that computes before it reduces: the sum of squares of RMSNorm,
// fused in one generic as IREE emits it.
// CHECK-LABEL: func.func @reduce_sum_of_squares
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[SQ:.*]] = kernel.square %[[X]] : tensor<8x64xbf16>
// CHECK-NEXT: %[[S:.*]] = kernel.reduce_sum %[[SQ]] dim 1 : tensor<8x64xbf16>
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[S]]
// CHECK-NEXT: return %[[C]] : tensor<8xbf16>
func.func @reduce_sum_of_squares(%x: tensor<8x64xbf16>) -> tensor<8xbf16> {
  %zero = arith.constant 0.000000e+00 : bf16
  %e = tensor.empty() : tensor<8xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<8xbf16>) -> tensor<8xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xbf16>) outs(%init : tensor<8xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %sq = arith.mulf %in, %in : bf16
    %s = arith.addf %sq, %acc : bf16
    linalg.yield %s : bf16
  } -> tensor<8xbf16>
  return %r : tensor<8xbf16>
}

// -----

// Matrix-vector and dot products: a product summed over one loop.
// CHECK-LABEL: func.func @matvec_and_dot
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[P:.*]] = kernel.mul %[[A]], %[[V]] : tensor<8x64xf32>, tensor<64xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.reduce_sum %[[P]] dim 1 : tensor<8x64xf32>
// CHECK-NEXT: %[[MV:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
// CHECK: %[[Q:.*]] = kernel.mul %[[V]], %[[V]] : tensor<64xf32>, tensor<64xf32>
// CHECK-NEXT: %[[T:.*]] = kernel.reduce_sum %[[Q]] dim 0 : tensor<64xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.collapse_shape %[[T]] [] : tensor<1xf32> into tensor<f32>
// CHECK-NEXT: return %[[MV]], %[[D]]
func.func @matvec_and_dot(%a: tensor<8x64xf32>, %v: tensor<64xf32>) -> (tensor<8xf32>, tensor<f32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %mv = linalg.matvec ins(%a, %v : tensor<8x64xf32>, tensor<64xf32>) outs(%init : tensor<8xf32>) -> tensor<8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %init0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%v, %v : tensor<64xf32>, tensor<64xf32>) outs(%init0 : tensor<f32>) -> tensor<f32>
  return %mv, %d : tensor<8xf32>, tensor<f32>
}

//===----------------------------------------------------------------------===//
// Model blocks, as front ends emit them
//===----------------------------------------------------------------------===//

// -----

// Softmax as torch-mlir emits it: amax and sum keep the reduced dim and are
// read back through (d0, 0).
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[MAX:.*]] = kernel.reduce_max %[[X]] dim 1 : tensor<8x64xf32>
// CHECK-NEXT: %[[D:.*]] = kernel.sub %[[X]], %[[MAX]] : tensor<8x64xf32>, tensor<8x1xf32>
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[D]] : tensor<8x64xf32>
// CHECK-NEXT: %[[SUM:.*]] = kernel.reduce_sum %[[E]] dim 1 : tensor<8x64xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.div %[[E]], %[[SUM]] : tensor<8x64xf32>, tensor<8x1xf32>
// CHECK-NEXT: return %[[P]]
func.func @softmax(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<8x1xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8x1xf32>) -> tensor<8x1xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%minit : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8x1xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<8x64xf32>, tensor<8x1xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<8x64xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x1xf32>) -> tensor<8x1xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<8x64xf32>) outs(%sinit : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x1xf32>
  %div = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<8x64xf32>, tensor<8x1xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  return %div : tensor<8x64xf32>
}

// -----

// Softmax whose sum drops the reduced dim and is broadcast back through
// (d0): the collapse after the reduction and the expand before the division
// fold away.
// CHECK-LABEL: func.func @softmax_dropped_dim
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[E:.*]] = kernel.exp %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: %[[SUM:.*]] = kernel.reduce_sum %[[E]] dim 1 : tensor<8x64xf16>
// CHECK-NEXT: %[[P:.*]] = kernel.div %[[E]], %[[SUM]] : tensor<8x64xf16>, tensor<8x1xf16>
// CHECK-NEXT: return %[[P]]
func.func @softmax_dropped_dim(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %e1 = tensor.empty() : tensor<8xf16>
  %e = tensor.empty() : tensor<8x64xf16>
  %exp = linalg.exp ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %sinit = linalg.fill ins(%zero : f16) outs(%e1 : tensor<8xf16>) -> tensor<8xf16>
  %sum = linalg.reduce ins(%exp : tensor<8x64xf16>) outs(%sinit : tensor<8xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %s = arith.addf %in, %acc : f16
      linalg.yield %s : f16
    }
  %div = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<8x64xf16>, tensor<8xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%in: f16, %s: f16, %out: f16):
    %q = arith.divf %in, %s : f16
    linalg.yield %q : f16
  } -> tensor<8x64xf16>
  return %div : tensor<8x64xf16>
}

// -----

// RMSNorm as a front end writes it: square, mean (a sum, then a division by
// the power-of-two width: exactly a multiplication by its inverse), add
// epsilon, rsqrt, scale each row, scale by the weight.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x4096xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4096xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[SQ:.*]] = kernel.square %[[X]] : tensor<8x4096xf32>
// CHECK-NEXT: %[[SUM:.*]] = kernel.reduce_sum %[[SQ]] dim 1 : tensor<8x4096xf32>
// CHECK-NEXT: %[[MEAN:.*]] = kernel.mul_scalar %[[SUM]], 2.44140625E-4 : tensor<8x1xf32>
// CHECK-NEXT: %[[VAR:.*]] = kernel.add_scalar %[[MEAN]], 9.9999999747524271E-7 : tensor<8x1xf32>
// CHECK-NEXT: %[[RSTD:.*]] = kernel.rsqrt %[[VAR]] : tensor<8x1xf32>
// CHECK-NEXT: %[[XN:.*]] = kernel.mul %[[X]], %[[RSTD]] : tensor<8x4096xf32>, tensor<8x1xf32>
// CHECK-NEXT: %[[Y:.*]] = kernel.mul %[[XN]], %[[W]] : tensor<8x4096xf32>, tensor<4096xf32>
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm(%x: tensor<8x4096xf32>, %w: tensor<4096xf32>) -> tensor<8x4096xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 4.096000e+03 : f32
  %eps = arith.constant 9.99999997E-7 : f32
  %e = tensor.empty() : tensor<8x4096xf32>
  %e1 = tensor.empty() : tensor<8x1xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x4096xf32>) outs(%e : tensor<8x4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<8x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x1xf32>) -> tensor<8x1xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%sq : tensor<8x4096xf32>) outs(%init : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8x1xf32>
  %rstd = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<8x1xf32>) outs(%e1 : tensor<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    linalg.yield %2 : f32
  } -> tensor<8x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %rstd, %w : tensor<8x4096xf32>, tensor<8x1xf32>, tensor<4096xf32>) outs(%e : tensor<8x4096xf32>) {
  ^bb0(%in: f32, %r: f32, %wt: f32, %out: f32):
    %0 = arith.mulf %in, %r : f32
    %1 = arith.mulf %0, %wt : f32
    linalg.yield %1 : f32
  } -> tensor<8x4096xf32>
  return %y : tensor<8x4096xf32>
}

// -----

// Gated MLP (LLaMA): silu(x Wg) * (x Wu), then Wd. silu is written as
// x * sigmoid(x) with sigmoid spelled 1 / (1 + exp(-x)): one kernel.silu.
// CHECK-LABEL: func.func @gated_mlp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x256xf16>, %[[WG:[a-zA-Z0-9_]+]]: tensor<256x512xf16>, %[[WU:[a-zA-Z0-9_]+]]: tensor<256x512xf16>, %[[WD:[a-zA-Z0-9_]+]]: tensor<512x256xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[G:.*]] = kernel.matmul %[[X]], %[[WG]]
// CHECK-NEXT: %[[U:.*]] = kernel.matmul %[[X]], %[[WU]]
// CHECK-NEXT: %[[S:.*]] = kernel.silu %[[G]] : tensor<8x512xf16>
// CHECK-NEXT: %[[H:.*]] = kernel.mul %[[S]], %[[U]] : tensor<8x512xf16>, tensor<8x512xf16>
// CHECK-NEXT: %[[O:.*]] = kernel.matmul %[[H]], %[[WD]] : tensor<8x512xf16>, tensor<512x256xf16>
// CHECK-NEXT: return %[[O]]
func.func @gated_mlp(%x: tensor<8x256xf16>, %wg: tensor<256x512xf16>, %wu: tensor<256x512xf16>, %wd: tensor<512x256xf16>) -> tensor<8x256xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %one = arith.constant 1.000000e+00 : f16
  %eh = tensor.empty() : tensor<8x512xf16>
  %zh = linalg.fill ins(%zero : f16) outs(%eh : tensor<8x512xf16>) -> tensor<8x512xf16>
  %g = linalg.matmul ins(%x, %wg : tensor<8x256xf16>, tensor<256x512xf16>) outs(%zh : tensor<8x512xf16>) -> tensor<8x512xf16>
  %u = linalg.matmul ins(%x, %wu : tensor<8x256xf16>, tensor<256x512xf16>) outs(%zh : tensor<8x512xf16>) -> tensor<8x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x512xf16>, tensor<8x512xf16>) outs(%eh : tensor<8x512xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %n = arith.negf %a : f16
    %ex = math.exp %n : f16
    %den = arith.addf %ex, %one : f16
    %sig = arith.divf %one, %den : f16
    %silu = arith.mulf %a, %sig : f16
    %p = arith.mulf %silu, %b : f16
    linalg.yield %p : f16
  } -> tensor<8x512xf16>
  %eo = tensor.empty() : tensor<8x256xf16>
  %zo = linalg.fill ins(%zero : f16) outs(%eo : tensor<8x256xf16>) -> tensor<8x256xf16>
  %o = linalg.matmul ins(%h, %wd : tensor<8x512xf16>, tensor<512x256xf16>) outs(%zo : tensor<8x256xf16>) -> tensor<8x256xf16>
  return %o : tensor<8x256xf16>
}

// -----

// silu as x / (1 + exp(-x)) is kernel.silu, as 1 / (1 + exp(-x)) is
// kernel.sigmoid: one op that rounds once, not four (which, in a gated MLP,
// would pass max-kernel-ops).
// CHECK-LABEL: func.func @silu_as_division
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x512xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[S:.*]] = kernel.silu %[[X]] : tensor<8x512xf32>
// CHECK-NEXT: return %[[S]]
func.func @silu_as_division(%x: tensor<8x512xf32>) -> tensor<8x512xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<8x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e : tensor<8x512xf32>) {
  ^bb0(%a: f32, %out: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %den = arith.addf %one, %ex : f32
    %s = arith.divf %a, %den : f32
    linalg.yield %s : f32
  } -> tensor<8x512xf32>
  return %r : tensor<8x512xf32>
}

// -----

// The negation under exp written as 0 - x (silu) or x * -1 (sigmoid), as
// some front ends do: the same idioms.
// CHECK-LABEL: func.func @negation_spellings
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NEXT: %[[S:.*]] = kernel.silu %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: %[[G:.*]] = kernel.sigmoid %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: return %[[S]], %[[G]]
func.func @negation_spellings(%x: tensor<8x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  %e = tensor.empty() : tensor<8x64xf16>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %out: f16):
    %zero = arith.constant 0.0 : f16
    %one = arith.constant 1.0 : f16
    %n = arith.subf %zero, %a : f16
    %ex = math.exp %n : f16
    %den = arith.addf %ex, %one : f16
    %r = arith.divf %a, %den : f16
    linalg.yield %r : f16
  } -> tensor<8x64xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %out: f16):
    %m1 = arith.constant -1.0 : f16
    %one = arith.constant 1.0 : f16
    %n = arith.mulf %a, %m1 : f16
    %ex = math.exp %n : f16
    %den = arith.addf %one, %ex : f16
    %r = arith.divf %one, %den : f16
    linalg.yield %r : f16
  } -> tensor<8x64xf16>
  return %s, %g : tensor<8x64xf16>, tensor<8x64xf16>
}

// -----

// The same quotient computed in f32 on bf16 values (torch-mlir's form for
// bf16): primitive kernel ops would round every step to bf16, the payload
// rounds once, as kernel.silu does. A bf16 matmul before it imports too.
// CHECK-LABEL: func.func @silu_as_division_bf16
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x96xbf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<96x48xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[H:.*]] = kernel.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[S:.*]] = kernel.silu %[[H]] : tensor<8x48xbf16>
// CHECK-NEXT: return %[[S]]
func.func @silu_as_division_bf16(%x: tensor<8x96xbf16>, %w: tensor<96x48xbf16>) -> tensor<8x48xbf16> {
  %zero = arith.constant 0.0 : bf16
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x48xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<8x48xbf16>) -> tensor<8x48xbf16>
  %h = linalg.matmul ins(%x, %w : tensor<8x96xbf16>, tensor<96x48xbf16>) outs(%f : tensor<8x48xbf16>) -> tensor<8x48xbf16>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x48xbf16>) outs(%e : tensor<8x48xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %n = arith.negf %af : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %y = arith.divf %af, %d : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x48xbf16>
  return %o : tensor<8x48xbf16>
}

// -----

// A sigmoid whose exp(-x) is used again: the sigmoid is one op, and the exp
// it shares is computed for its other use.
// CHECK-LABEL: func.func @sigmoid_with_shared_exp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x512xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[N:.*]] = kernel.neg %[[X]]
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[N]]
// CHECK-NEXT: %[[S:.*]] = kernel.sigmoid %[[X]]
// CHECK-NEXT: %[[M:.*]] = kernel.mul %[[S]], %[[E]]
// CHECK-NEXT: return %[[M]]
func.func @sigmoid_with_shared_exp(%x: tensor<8x512xf32>) -> tensor<8x512xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<8x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e : tensor<8x512xf32>) {
  ^bb0(%a: f32, %out: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %den = arith.addf %one, %ex : f32
    %s = arith.divf %one, %den : f32
    %t = arith.mulf %s, %ex : f32
    linalg.yield %t : f32
  } -> tensor<8x512xf32>
  return %r : tensor<8x512xf32>
}

// -----

// LoRA: X W + (X A) B, with the low-rank product accumulated into X W.
// CHECK-LABEL: func.func @lora
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x256xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<256x256xf16>, %[[A:[a-zA-Z0-9_]+]]: tensor<256x16xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<16x256xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[XW:.*]] = kernel.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[XA:.*]] = kernel.matmul %[[X]], %[[A]] : tensor<8x256xf16>, tensor<256x16xf16>
// CHECK-NEXT: %[[XAB:.*]] = kernel.matmul %[[XA]], %[[B]] : tensor<8x16xf16>, tensor<16x256xf16>
// CHECK-NEXT: %[[Y:.*]] = kernel.add %[[XW]], %[[XAB]]
// CHECK-NEXT: return %[[Y]]
func.func @lora(%x: tensor<8x256xf16>, %w: tensor<256x256xf16>, %a: tensor<256x16xf16>, %b: tensor<16x256xf16>) -> tensor<8x256xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x256xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<8x256xf16>) -> tensor<8x256xf16>
  %xw = linalg.matmul ins(%x, %w : tensor<8x256xf16>, tensor<256x256xf16>) outs(%z : tensor<8x256xf16>) -> tensor<8x256xf16>
  %er = tensor.empty() : tensor<8x16xf16>
  %zr = linalg.fill ins(%zero : f16) outs(%er : tensor<8x16xf16>) -> tensor<8x16xf16>
  %xa = linalg.matmul ins(%x, %a : tensor<8x256xf16>, tensor<256x16xf16>) outs(%zr : tensor<8x16xf16>) -> tensor<8x16xf16>
  %y = linalg.matmul ins(%xa, %b : tensor<8x16xf16>, tensor<16x256xf16>) outs(%xw : tensor<8x256xf16>) -> tensor<8x256xf16>
  return %y : tensor<8x256xf16>
}

// -----

// LoRA with the branches added by linalg.add.
// CHECK-LABEL: func.func @lora_add
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x256xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<256x256xf32>, %[[A:[a-zA-Z0-9_]+]]: tensor<256x16xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<16x256xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[XW:.*]] = kernel.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[XA:.*]] = kernel.matmul %[[X]], %[[A]]
// CHECK-NEXT: %[[XAB:.*]] = kernel.matmul %[[XA]], %[[B]]
// CHECK-NEXT: %[[Y:.*]] = kernel.add %[[XW]], %[[XAB]]
// CHECK-NEXT: return %[[Y]]
func.func @lora_add(%x: tensor<8x256xf32>, %w: tensor<256x256xf32>, %a: tensor<256x16xf32>, %b: tensor<16x256xf32>) -> tensor<8x256xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  %xw = linalg.matmul ins(%x, %w : tensor<8x256xf32>, tensor<256x256xf32>) outs(%z : tensor<8x256xf32>) -> tensor<8x256xf32>
  %er = tensor.empty() : tensor<8x16xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<8x16xf32>) -> tensor<8x16xf32>
  %xa = linalg.matmul ins(%x, %a : tensor<8x256xf32>, tensor<256x16xf32>) outs(%zr : tensor<8x16xf32>) -> tensor<8x16xf32>
  %xab = linalg.matmul ins(%xa, %b : tensor<8x16xf32>, tensor<16x256xf32>) outs(%z : tensor<8x256xf32>) -> tensor<8x256xf32>
  %y = linalg.add ins(%xw, %xab : tensor<8x256xf32>, tensor<8x256xf32>) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// -----

// Softmax over dim 0: the statistics are rows `[1, n]` that the linalg
// types hold as `[n]`; the kernel ops read the rows themselves, so no reshape
// is left between the kernel ops (it would cut the program for the search).
// CHECK-LABEL: func.func @softmax_dim0
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<96x80xf32>)
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[M:.*]] = kernel.reduce_max %[[X]] dim 0 : tensor<96x80xf32>
// CHECK-NEXT: %[[D:.*]] = kernel.sub %[[X]], %[[M]] : tensor<96x80xf32>, tensor<1x80xf32>
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[D]]
// CHECK-NEXT: %[[S:.*]] = kernel.reduce_sum %[[E]] dim 0 : tensor<96x80xf32>
// CHECK-NEXT: %[[R:.*]] = kernel.div %[[E]], %[[S]] : tensor<96x80xf32>, tensor<1x80xf32>
// CHECK-NEXT: return %[[R]]
#sm0_id = affine_map<(i, j) -> (i, j)>
#sm0_col = affine_map<(i, j) -> (j)>
func.func @softmax_dim0(%x: tensor<96x80xf32>) -> tensor<96x80xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<80xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<80xf32>) -> tensor<80xf32>
  %mx = linalg.generic {indexing_maps = [#sm0_id, #sm0_col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<96x80xf32>) outs(%mf : tensor<80xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<80xf32>
  %e1 = tensor.empty() : tensor<96x80xf32>
  %e = linalg.generic {indexing_maps = [#sm0_id, #sm0_col, #sm0_id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx : tensor<96x80xf32>, tensor<80xf32>) outs(%e1 : tensor<96x80xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<96x80xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%e0 : tensor<80xf32>) -> tensor<80xf32>
  %s = linalg.generic {indexing_maps = [#sm0_id, #sm0_col], iterator_types = ["reduction", "parallel"]}
      ins(%e : tensor<96x80xf32>) outs(%zf : tensor<80xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<80xf32>
  %out = linalg.generic {indexing_maps = [#sm0_id, #sm0_col, #sm0_id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<96x80xf32>, tensor<80xf32>) outs(%e1 : tensor<96x80xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %y = arith.divf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<96x80xf32>
  return %out : tensor<96x80xf32>
}

// -----

// Row sums `[4, 1]` held as `[4]` and read along the other dim of a 4x4
// tensor: numpy broadcasting would stretch `[4, 1]` along dim 1, not dim 0,
// so the kernel op keeps reading the reshape.
// CHECK-LABEL: func.func @row_sums_read_as_columns
// CHECK: %[[S:.*]] = kernel.reduce_sum %{{.*}} dim 1 : tensor<4x4xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[S]] {{\[\[}}0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK: kernel.sub %{{.*}}, %[[C]] : tensor<4x4xf32>, tensor<4xf32>
#rc_id = affine_map<(i, j) -> (i, j)>
#rc_row = affine_map<(i, j) -> (i)>
#rc_col = affine_map<(i, j) -> (j)>
func.func @row_sums_read_as_columns(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#rc_id, #rc_row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4xf32>) outs(%zf : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %out = linalg.generic {indexing_maps = [#rc_id, #rc_col, #rc_id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<4x4xf32>, tensor<4xf32>) outs(%e1 : tensor<4x4xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %y = arith.subf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %out : tensor<4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// What the kernel dialect cannot express stays as it was
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @conv_2d_stays
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<1x8x16x16xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x8x3x3xf32>)
// CHECK-NOT: kernel.
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[Y:.*]] = linalg.conv_2d_nchw_fchw ins(%[[X]], %[[W]] : {{.*}}) outs(%[[INIT]] : {{.*}})
// CHECK-NEXT: return %[[Y]]
func.func @conv_2d_stays(%x: tensor<1x8x16x16xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<1x4x14x14xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x4x14x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x14x14xf32>) -> tensor<1x4x14x14xf32>
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x16x16xf32>, tensor<4x8x3x3xf32>) outs(%init : tensor<1x4x14x14xf32>) -> tensor<1x4x14x14xf32>
  return %r : tensor<1x4x14x14xf32>
}

// -----

// A payload reading its loop indices: the float it converts them to is a
// table of the column index (see @index_tables).
// CHECK-LABEL: func.func @index_payload
// CHECK-NOT: linalg.
// CHECK: %[[T:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, {{.*}}, 6.300000e+01]> : tensor<64xf32>
// CHECK: %[[Y:.*]] = kernel.add %arg0, %[[T]] : tensor<8x64xf32>, tensor<64xf32>
// CHECK: return %[[Y]]
func.func @index_payload(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic_shapes_stay
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<?x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<64x96xf32>, %[[C:[a-zA-Z0-9_]+]]: tensor<?x96xf32>, %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xf32>)
// CHECK-NOT: kernel.
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[C]] : {{.*}})
// CHECK: %[[E:.*]] = linalg.exp ins(%[[X]] : tensor<?x64xf32>)
// CHECK: return %[[M]], %[[E]]
func.func @dynamic_shapes_stay(%a: tensor<?x64xf32>, %b: tensor<64x96xf32>, %c: tensor<?x96xf32>, %x: tensor<?x64xf32>) -> (tensor<?x96xf32>, tensor<?x64xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x96xf32>) outs(%c : tensor<?x96xf32>) -> tensor<?x96xf32>
  %e = linalg.exp ins(%x : tensor<?x64xf32>) outs(%x : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r, %e : tensor<?x96xf32>, tensor<?x64xf32>
}

// -----

// torch.matmul of a batch by a weight, as torch-mlir writes it: the weight
// broadcast over the batch, then batch_matmul. The matmul reads the weight
// itself, one matmul of the flattened rows; the broadcast goes. A broadcast
// left operand is read as a batched operand, as before.
// CHECK-LABEL: func.func @batch_times_broadcast_weight
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<4x64x256xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<256x512xf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<64x256xf16>, %[[V:[a-zA-Z0-9_]+]]: tensor<4x256x512xf16>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<4x64x256xf16> into tensor<256x256xf16>
// CHECK-NEXT: %[[M:.*]] = kernel.matmul %[[R]], %[[W]] : tensor<256x256xf16>, tensor<256x512xf16>
// CHECK-NEXT: %[[O:.*]] = tensor.expand_shape %[[M]]
// CHECK: %[[B:.*]] = linalg.broadcast ins(%[[Y]]
// CHECK-NEXT: %[[N:.*]] = kernel.matmul %[[B]], %[[V]] : tensor<4x64x256xf16>, tensor<4x256x512xf16>
// CHECK-NEXT: return %[[O]], %[[N]]
func.func @batch_times_broadcast_weight(%x: tensor<4x64x256xf16>, %w: tensor<256x512xf16>, %y: tensor<64x256xf16>, %v: tensor<4x256x512xf16>) -> (tensor<4x64x512xf16>, tensor<4x64x512xf16>) {
  %zero = arith.constant 0.0 : f16
  %eb = tensor.empty() : tensor<4x256x512xf16>
  %wb = linalg.broadcast ins(%w : tensor<256x512xf16>) outs(%eb : tensor<4x256x512xf16>) dimensions = [0]
  %e0 = tensor.empty() : tensor<4x64x512xf16>
  %z0 = linalg.fill ins(%zero : f16) outs(%e0 : tensor<4x64x512xf16>) -> tensor<4x64x512xf16>
  %o = linalg.batch_matmul ins(%x, %wb : tensor<4x64x256xf16>, tensor<4x256x512xf16>) outs(%z0 : tensor<4x64x512xf16>) -> tensor<4x64x512xf16>
  %ey = tensor.empty() : tensor<4x64x256xf16>
  %yb = linalg.broadcast ins(%y : tensor<64x256xf16>) outs(%ey : tensor<4x64x256xf16>) dimensions = [0]
  %n = linalg.batch_matmul ins(%yb, %v : tensor<4x64x256xf16>, tensor<4x256x512xf16>) outs(%z0 : tensor<4x64x512xf16>) -> tensor<4x64x512xf16>
  return %o, %n : tensor<4x64x512xf16>, tensor<4x64x512xf16>
}

// -----

// torch-mlir's aten.expand is a copy generic. One that adds a dim is the
// linalg.broadcast an elementwise op reads through (numpy broadcasting);
// one that reads a size-1 dim at index 0 is the broadcast of its input
// without that dim. A copy that also transposes is the transpose, then the
// broadcast (which stays: kernel ops have none, and only the function's
// return reads it).
// CHECK-LABEL: func.func @expand_copies
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<2x4x8xf32>, %[[Z:[a-zA-Z0-9_]+]]: tensor<4x1x8xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x3x8xf32>, %[[T:[a-zA-Z0-9_]+]]: tensor<8x4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[A:.*]] = kernel.add %[[X]], %[[Y]] : tensor<4x8xf32>, tensor<2x4x8xf32>
// CHECK: %[[B:.*]] = kernel.add %[[Z]], %[[W]] : tensor<4x1x8xf32>, tensor<4x3x8xf32>
// CHECK: %[[TT:.*]] = kernel.transpose %[[T]] [1, 0] : tensor<8x4xf32>
// CHECK: %[[TB:.*]] = linalg.broadcast ins(%[[TT]] : tensor<4x8xf32>) outs({{.*}} : tensor<2x4x8xf32>) dimensions = [0]
// CHECK: return %[[A]], %[[B]], %[[TB]]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @expand_copies(%x: tensor<4x8xf32>, %y: tensor<2x4x8xf32>, %z: tensor<4x1x8xf32>, %w: tensor<4x3x8xf32>, %t: tensor<8x4xf32>) -> (tensor<2x4x8xf32>, tensor<4x3x8xf32>, tensor<2x4x8xf32>) {
  %e = tensor.empty() : tensor<2x4x8xf32>
  %xb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x8xf32>
  %a = linalg.add ins(%xb, %y : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%e : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %e2 = tensor.empty() : tensor<4x3x8xf32>
  %zb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%z : tensor<4x1x8xf32>) outs(%e2 : tensor<4x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x3x8xf32>
  %b = linalg.add ins(%zb, %w : tensor<4x3x8xf32>, tensor<4x3x8xf32>) outs(%e2 : tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %tb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t : tensor<8x4xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x8xf32>
  return %a, %b, %tb : tensor<2x4x8xf32>, tensor<4x3x8xf32>, tensor<2x4x8xf32>
}

// -----

// A generic whose inputs all leave a loop out computes the same value at
// every point of it: it is computed once over the loops it reads, and the
// broadcast left is read through numpy broadcasting. An addmm whose init
// is the bias written `b + 0.0` broadcast to every row is the add_scalar
// of the bias, then the add to the product; an exp of a weight read
// transposed into every batch is the exp of its transpose, multiplied in.
// CHECK-LABEL: func.func @computed_broadcasts
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<16x32xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<32x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<64xf32>, %[[T:[a-zA-Z0-9_]+]]: tensor<64x16xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<2x16x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[INIT:.*]] = kernel.add_scalar %[[B]], 0.000000e+00 : tensor<64xf32>
// CHECK: %[[P:.*]] = kernel.matmul %[[X]], %[[W]]
// CHECK: %[[R:.*]] = kernel.add %[[INIT]], %[[P]] : tensor<64xf32>, tensor<16x64xf32>
// CHECK: %[[TT:.*]] = kernel.transpose %[[T]] [1, 0] : tensor<64x16xf32>
// CHECK: %[[E:.*]] = kernel.exp %[[TT]] : tensor<16x64xf32>
// CHECK: %[[S:.*]] = kernel.mul %[[E]], %[[Y]] : tensor<16x64xf32>, tensor<2x16x64xf32>
// CHECK-NOT: linalg.
// CHECK: return %[[R]], %[[S]]
#rows = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @computed_broadcasts(%x: tensor<16x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>, %t: tensor<64x16xf32>, %y: tensor<2x16x64xf32>) -> (tensor<16x64xf32>, tensor<2x16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %init = linalg.generic {indexing_maps = [#cols, #rows], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %zero : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  %r = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x64xf32>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e3 = tensor.empty() : tensor<2x16x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t : tensor<64x16xf32>) outs(%e3 : tensor<2x16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<2x16x64xf32>
  %m = linalg.mul ins(%g, %y : tensor<2x16x64xf32>, tensor<2x16x64xf32>) outs(%e3 : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %r, %m : tensor<16x64xf32>, tensor<2x16x64xf32>
}

// -----

// Grouped-query scores on 3-D heads: the keys of 4 groups repeated for 2
// heads each. The queries' heads are stacked as rows of their group, the
// matmul reads the keys as they are (transposed), and the scores are
// reshaped back to the heads; no broadcast is left.
// CHECK-LABEL: func.func @grouped_scores
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<8x16x16xf32>, %[[K:[a-zA-Z0-9_]+]]: tensor<4x32x16xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0, 1], [2], [3]] output_shape [4, 2, 16, 16]
// CHECK-NEXT: %[[STACKED:.*]] = tensor.collapse_shape %[[SPLIT]] {{\[}}[0], [1, 2], [3]] : tensor<4x2x16x16xf32> into tensor<4x32x16xf32>
// CHECK-NEXT: %[[KT:.*]] = kernel.transpose %[[K]] [0, 2, 1] : tensor<4x32x16xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.matmul %[[STACKED]], %[[KT]] : tensor<4x32x16xf32>, tensor<4x16x32xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[S]] {{\[}}[0], [1, 2], [3]] output_shape [4, 2, 16, 32]
// CHECK-NEXT: %[[R:.*]] = tensor.collapse_shape %[[E]] {{\[}}[0, 1], [2], [3]] : tensor<4x2x16x32xf32> into tensor<8x16x32xf32>
// CHECK-NEXT: return %[[R]]
func.func @grouped_scores(%q: tensor<8x16x16xf32>, %k: tensor<4x32x16xf32>) -> tensor<8x16x32xf32> {
  %e = tensor.empty() : tensor<4x2x32x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<4x32x16xf32>) outs(%e : tensor<4x2x32x16xf32>) dimensions = [1]
  %kr = tensor.collapse_shape %kb [[0, 1], [2], [3]] : tensor<4x2x32x16xf32> into tensor<8x32x16xf32>
  %kte = tensor.empty() : tensor<8x16x32xf32>
  %kt = linalg.transpose ins(%kr : tensor<8x32x16xf32>) outs(%kte : tensor<8x16x32xf32>) permutation = [0, 2, 1]
  %z = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<8x16x32xf32>
  %sf = linalg.fill ins(%z : f32) outs(%se : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x16x16xf32>, tensor<8x16x32xf32>) outs(%sf : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  return %s : tensor<8x16x32xf32>
}

// -----

// CHECK-LABEL: func.func @i32_stays
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xi32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x64xi32>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x8xi32>)
// CHECK-NOT: kernel.
// CHECK: %[[S:.*]] = linalg.add ins(%[[X]], %[[Y]] : tensor<8x64xi32>, tensor<8x64xi32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<8x64xi32>, tensor<64x8xi32>)
// CHECK: return %[[S]], %[[M]]
func.func @i32_stays(%x: tensor<8x64xi32>, %y: tensor<8x64xi32>, %w: tensor<64x8xi32>) -> (tensor<8x64xi32>, tensor<8x8xi32>) {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8x64xi32>
  %s = linalg.add ins(%x, %y : tensor<8x64xi32>, tensor<8x64xi32>) outs(%e : tensor<8x64xi32>) -> tensor<8x64xi32>
  %e2 = tensor.empty() : tensor<8x8xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e2 : tensor<8x8xi32>) -> tensor<8x8xi32>
  %m = linalg.matmul ins(%x, %w : tensor<8x64xi32>, tensor<64x8xi32>) outs(%z : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %s, %m : tensor<8x64xi32>, tensor<8x8xi32>
}

// -----

// CHECK-LABEL: func.func @f64_stays
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf64>)
// CHECK-NOT: kernel.
// CHECK: %[[E:.*]] = linalg.exp ins(%[[X]] : tensor<8x64xf64>)
// CHECK: %[[S:.*]] = linalg.reduce ins(%[[E]] : tensor<8x64xf64>)
// CHECK: return %[[S]]
func.func @f64_stays(%x: tensor<8x64xf64>) -> tensor<8xf64> {
  %zero = arith.constant 0.000000e+00 : f64
  %e = tensor.empty() : tensor<8x64xf64>
  %ex = linalg.exp ins(%x : tensor<8x64xf64>) outs(%e : tensor<8x64xf64>) -> tensor<8x64xf64>
  %e1 = tensor.empty() : tensor<8xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e1 : tensor<8xf64>) -> tensor<8xf64>
  %r = linalg.reduce ins(%ex : tensor<8x64xf64>) outs(%init : tensor<8xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  return %r : tensor<8xf64>
}

// -----

// A select that passes on another value than it compares (exp(x) where
// x > 0) and a powf of a tensor exponent have no kernel op: the whole
// generic stays, the exp in its payload included.
// CHECK-LABEL: func.func @unsupported_payload_stays
// CHECK-NOT: kernel.
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: arith.cmpf
// CHECK: arith.select
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: math.powf
// CHECK: return %[[R]], %[[P]]
func.func @unsupported_payload_stays(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %ex = math.exp %in : f32
    %c = arith.cmpf ugt, %in, %zero : f32
    %s = arith.select %c, %ex, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = math.powf %in, %in : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  return %r, %p : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// A kernel op rounds its result once: an f16 payload that computes two ops
// in f32 before it truncates is split at its casts, into conversions and
// f32 ops; a matmul of f16 into f32 converts its operands.
// (run-mixed-precision.mlir checks the numbers.)
// CHECK-LABEL: func.func @mixed_precision
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<64x96xf16>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[AW:.*]] = kernel.convert %[[A]] : tensor<8x64xf16> to tensor<8x64xf32>
// CHECK-DAG: %[[BW:.*]] = kernel.convert %[[B]] : tensor<64x96xf16> to tensor<64x96xf32>
// CHECK-DAG: %[[M:.*]] = kernel.matmul %[[AW]], %[[BW]] : tensor<8x64xf32>, tensor<64x96xf32>
// CHECK-DAG: %[[E:.*]] = kernel.exp %{{.*}} : tensor<8x64xf32>
// CHECK-DAG: %[[T:.*]] = kernel.tanh %[[E]] : tensor<8x64xf32>
// CHECK-DAG: %[[G:.*]] = kernel.convert %[[T]] : tensor<8x64xf32> to tensor<8x64xf16>
// CHECK-NOT: linalg.
// CHECK: return %[[M]], %[[G]]
func.func @mixed_precision(%a: tensor<8x64xf16>, %b: tensor<64x96xf16>) -> (tensor<8x96xf32>, tensor<8x64xf16>) {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x96xf32>) -> tensor<8x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x64xf16>, tensor<64x96xf16>) outs(%init : tensor<8x96xf32>) -> tensor<8x96xf32>
  %eh = tensor.empty() : tensor<8x64xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x64xf16>) outs(%eh : tensor<8x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %w = arith.extf %in : f16 to f32
    %x = math.exp %w : f32
    %t = math.tanh %x : f32
    %n = arith.truncf %t : f32 to f16
    linalg.yield %n : f16
  } -> tensor<8x64xf16>
  return %m, %g : tensor<8x96xf32>, tensor<8x64xf16>
}

// -----

// x / 0.3 becomes x * (1 / 0.3), the reciprocal in f64: within an ulp of
// the quotient, as a mean's x * (1 / n) is (an attention's scores divided
// by sqrt(128) stayed linalg before). c / x, which stayed linalg, is
// kernel.div of a splat constant by x, exact.
// max(x, -0.0) is not relu (they differ at -0.0) but max_scalar; linalg.max
// of two tensors is kernel.max.
// CHECK-LABEL: func.func @inexpressible_constants_stay
// CHECK-NOT: linalg.
// CHECK: %[[D:.*]] = kernel.mul_scalar %arg0, 3.333333{{[0-9]*}} : tensor<8x64xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<3.000000e-01> : tensor<1x1xf32>
// CHECK-NEXT: %[[R:.*]] = kernel.div %[[C]], %arg0 : tensor<1x1xf32>, tensor<8x64xf32>
// CHECK-NOT: kernel.relu
// CHECK: %[[N:.*]] = kernel.max_scalar %{{.*}}, -0.000000e+00 : tensor<8x64xf32>
// CHECK: %[[M:.*]] = kernel.max %arg0, %arg1 : tensor<8x64xf32>, tensor<8x64xf32>
// CHECK: return %[[D]], %[[R]], %[[N]], %[[M]]
func.func @inexpressible_constants_stay(%x: tensor<8x64xf32>, %y: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %three = arith.constant 3.000000e-01 : f32
  %nzero = arith.constant -0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %in, %three : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %three, %in : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  // max(x, -0.0) differs from relu at x = -0.0.
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.maximumf %in, %nzero : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  %m = linalg.max ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %d, %r, %n, %m : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// A mean as torch-mlir spells it, a sum and then a division by the count 96
// (in a named linalg.div by a splat constant too): x * (1.0 / 96), within
// an ulp of the quotient and, over the verifier's field, the same program
// (a rounded 1/n stands for 1/n). The mean is then read along dim 1 by a
// sub, with no reshape left between the kernel ops.
// CHECK-LABEL: func.func @mean_by_division
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<96x48xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[S:.*]] = kernel.reduce_sum %[[X]] dim 0 : tensor<96x48xf32>
// CHECK-NEXT: %[[M:.*]] = kernel.mul_scalar %[[S]], 0.010416666666666666 : tensor<1x48xf32>
// CHECK-NEXT: %[[C:.*]] = kernel.sub %[[X]], %[[M]] : tensor<96x48xf32>, tensor<1x48xf32>
// CHECK-NEXT: %[[G:.*]] = kernel.mul_scalar %[[C]], 0.010416666666666666 : tensor<96x48xf32>
// CHECK-NEXT: return %[[C]], %[[G]]
func.func @mean_by_division(%x: tensor<96x48xf32>) -> (tensor<96x48xf32>, tensor<96x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant dense<96.0> : tensor<48xf32>
  %n2 = arith.constant 96.0 : f32
  %e0 = tensor.empty() : tensor<48xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<48xf32>) -> tensor<48xf32>
  %s = linalg.reduce ins(%x : tensor<96x48xf32>) outs(%z0 : tensor<48xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %y = arith.addf %in, %acc : f32
      linalg.yield %y : f32
    }
  %m = linalg.div ins(%s, %n : tensor<48xf32>, tensor<48xf32>) outs(%e0 : tensor<48xf32>) -> tensor<48xf32>
  %e1 = tensor.empty() : tensor<96x48xf32>
  %mb = linalg.broadcast ins(%m : tensor<48xf32>) outs(%e1 : tensor<96x48xf32>) dimensions = [0]
  %c = linalg.sub ins(%x, %mb : tensor<96x48xf32>, tensor<96x48xf32>) outs(%e1 : tensor<96x48xf32>) -> tensor<96x48xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<96x48xf32>) outs(%e1 : tensor<96x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %in, %n2 : f32
    linalg.yield %q : f32
  } -> tensor<96x48xf32>
  return %c, %g : tensor<96x48xf32>, tensor<96x48xf32>
}

// -----

// linalg.softmax (IREE's, and torch-mlir's through it), decomposed as
// upstream does it: its max reduction combines with arith.maxnumf, which
// differs from arith.maximumf on NaN only, and imports as reduce_max.
// CHECK-LABEL: func.func @softmax_named
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<16x80xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[M:.*]] = kernel.reduce_max %[[X]] dim 1 : tensor<16x80xf32>
// CHECK-NEXT: %[[D:.*]] = kernel.sub %[[X]], %[[M]] : tensor<16x80xf32>, tensor<16x1xf32>
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[D]]
// CHECK-NEXT: %[[S:.*]] = kernel.reduce_sum %[[E]] dim 1 : tensor<16x80xf32>
// CHECK-NEXT: %[[R:.*]] = kernel.div %[[E]], %[[S]] : tensor<16x80xf32>, tensor<16x1xf32>
// CHECK-NEXT: return %[[R]]
func.func @softmax_named(%x: tensor<16x80xf32>) -> tensor<16x80xf32> {
  %e = tensor.empty() : tensor<16x80xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<16x80xf32>) outs(%e : tensor<16x80xf32>) -> tensor<16x80xf32>
  return %s : tensor<16x80xf32>
}

// -----

// A softmax over a dynamic dim stays as it is.
// CHECK-LABEL: func.func @softmax_dynamic_stays
// CHECK: linalg.softmax
func.func @softmax_dynamic_stays(%x: tensor<?x80xf32>, %e: tensor<?x80xf32>) -> tensor<?x80xf32> {
  %s = linalg.softmax dimension(1) ins(%x : tensor<?x80xf32>) outs(%e : tensor<?x80xf32>) -> tensor<?x80xf32>
  return %s : tensor<?x80xf32>
}

// -----

// A row max with arith.maxnumf into -inf, and one into 0 (no identity),
// which is the row max bounded below by 0.
// CHECK-LABEL: func.func @maxnumf_reduction
// CHECK: %[[M:.*]] = kernel.reduce_max %{{.*}} dim 1 : tensor<16x80xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[M]]
// CHECK: %[[M0:.*]] = kernel.reduce_max %{{.*}} dim 1 : tensor<16x80xf32>
// CHECK: %[[Z:.*]] = kernel.max_scalar %[[M0]], 0.000000e+00
// CHECK: %[[ZC:.*]] = tensor.collapse_shape %[[Z]]
// CHECK: return %[[C]], %[[ZC]]
func.func @maxnumf_reduction(%x: tensor<16x80xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.reduce ins(%x : tensor<16x80xf32>) outs(%f : tensor<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %y = arith.maxnumf %in, %acc : f32
      linalg.yield %y : f32
    }
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %z = linalg.reduce ins(%x : tensor<16x80xf32>) outs(%f0 : tensor<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %y = arith.maxnumf %in, %acc : f32
      linalg.yield %y : f32
    }
  return %m, %z : tensor<16xf32>, tensor<16xf32>
}

// -----

// A maximum into a tensor init is the reduction's maximum, then the
// maximum of it and the init, on the reduction's shape (the init expanded
// to it) so that no reshape parts the two kernel ops. A reduction that
// multiplies stays; one over two dims is two reductions, the innermost
// first.
// CHECK-LABEL: func.func @other_reductions_stay
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x16x64xf32>, %[[INIT:[a-zA-Z0-9_]+]]: tensor<8x16xf32>)
// CHECK: %[[A2:.*]] = kernel.reduce_max %[[X]] dim 2 : tensor<8x16x64xf32>
// CHECK: %[[I:.*]] = tensor.expand_shape %[[INIT]] {{\[\[}}0], [1, 2]] output_shape [8, 16, 1]
// CHECK: %[[A1:.*]] = kernel.max %[[A2]], %[[I]] : tensor<8x16x1xf32>, tensor<8x16x1xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[A1]] {{\[\[}}0], [1, 2]]
// CHECK: %[[B2:.*]] = kernel.reduce_sum %[[X]] dim 2 : tensor<8x16x64xf32>
// CHECK: %[[B1:.*]] = kernel.reduce_sum %[[B2]] dim 1 : tensor<8x16x1xf32>
// CHECK: %[[B:.*]] = tensor.collapse_shape %[[B1]] {{\[\[}}0, 1, 2]] : tensor<8x1x1xf32> into tensor<8xf32>
// CHECK: %[[C:.*]] = linalg.reduce ins(%[[X]] : {{.*}}) dimensions = [2]
// CHECK: arith.mulf
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @other_reductions_stay(%x: tensor<8x16x64xf32>, %init: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %a = linalg.reduce ins(%x : tensor<8x16x64xf32>) outs(%init : tensor<8x16xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e = tensor.empty() : tensor<8xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %b = linalg.reduce ins(%x : tensor<8x16x64xf32>) outs(%zeros : tensor<8xf32>) dimensions = [1, 2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<8x16xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = linalg.reduce ins(%x : tensor<8x16x64xf32>) outs(%ones : tensor<8x16xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %acc : f32
      linalg.yield %p : f32
    }
  return %a, %b, %c : tensor<8x16xf32>, tensor<8xf32>, tensor<8x16xf32>
}

// -----

// Contractions with several loops in a group are one matmul of the
// flattened groups. A batch-reduce matmul sums over the batch and K: the
// lhs is transposed so that they are adjacent, and both are flattened into
// one K of 4 x 64. An einsum `bhsd,hdo->bso` (a multi-head output
// projection as one op) sums over the heads and the head dim: M is (b, s)
// and K is (h, d), which the rhs already holds adjacent.
// CHECK-LABEL: func.func @grouped_contractions
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<4x8x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<4x64x32xf32>, %[[C:[a-zA-Z0-9_]+]]: tensor<8x32xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<2x4x16x8xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x8x32xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[AT:.*]] = kernel.transpose %[[A]] [1, 0, 2] : tensor<4x8x64xf32>
// CHECK-NEXT: %[[AF:.*]] = tensor.collapse_shape %[[AT]] {{\[\[}}0], [1, 2]] : tensor<8x4x64xf32> into tensor<8x256xf32>
// CHECK-NEXT: %[[BF:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0, 1], [2]] : tensor<4x64x32xf32> into tensor<256x32xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.matmul %[[AF]], %[[BF]] : tensor<8x256xf32>, tensor<256x32xf32>
// CHECK-NEXT: %[[R:.*]] = kernel.add %[[C]], %[[P]]
// CHECK: %[[OT:.*]] = kernel.transpose %[[O]] [0, 2, 1, 3] : tensor<2x4x16x8xf32>
// CHECK-NEXT: %[[OF:.*]] = tensor.collapse_shape %[[OT]] {{\[\[}}0, 1], [2, 3]] : tensor<2x16x4x8xf32> into tensor<32x32xf32>
// CHECK-NEXT: %[[WF:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<4x8x32xf32> into tensor<32x32xf32>
// CHECK-NEXT: %[[Q:.*]] = kernel.matmul %[[OF]], %[[WF]] : tensor<32x32xf32>, tensor<32x32xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0, 1], [2]] output_shape [2, 16, 32] : tensor<32x32xf32> into tensor<2x16x32xf32>
// CHECK-NEXT: return %[[R]], %[[E]]
func.func @grouped_contractions(%a: tensor<4x8x64xf32>, %b: tensor<4x64x32xf32>, %c: tensor<8x32xf32>, %o: tensor<2x4x16x8xf32>, %w: tensor<4x8x32xf32>) -> (tensor<8x32xf32>, tensor<2x16x32xf32>) {
  %r = linalg.batch_reduce_matmul ins(%a, %b : tensor<4x8x64xf32>, tensor<4x64x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<2x16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, s, o, h, d) -> (b, h, s, d)>, affine_map<(b, s, o, h, d) -> (h, d, o)>, affine_map<(b, s, o, h, d) -> (b, s, o)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%o, %w : tensor<2x4x16x8xf32>, tensor<4x8x32xf32>) outs(%z : tensor<2x16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x16x32xf32>
  return %r, %p : tensor<8x32xf32>, tensor<2x16x32xf32>
}

// -----

// The kernel dialect has no broadcast op: a linalg.broadcast that no kernel
// binary op reads stays (see below). A batch matmul whose lhs does not
// vary along the batch has the batch as a second N loop: one matmul of the
// lhs by the rhs's batches side by side, transposed back.
// CHECK-LABEL: func.func @unbatched_lhs
// CHECK-SAME: (%[[V:[a-zA-Z0-9_]+]]: tensor<96xf32>, %[[A:[a-zA-Z0-9_]+]]: tensor<16x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<4x64x32xf32>)
// CHECK: %[[R:.*]] = linalg.broadcast
// CHECK-NEXT: %[[BT:.*]] = kernel.transpose %[[B]] [1, 0, 2] : tensor<4x64x32xf32>
// CHECK-NEXT: %[[BF:.*]] = tensor.collapse_shape %[[BT]] {{\[\[}}0], [1, 2]] : tensor<64x4x32xf32> into tensor<64x128xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.matmul %[[A]], %[[BF]] : tensor<16x64xf32>, tensor<64x128xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0], [1, 2]] output_shape [16, 4, 32]
// CHECK-NEXT: %[[M:.*]] = kernel.transpose %[[E]] [1, 0, 2] : tensor<16x4x32xf32>
// CHECK-NEXT: return %[[R]], %[[M]]
func.func @unbatched_lhs(%v: tensor<96xf32>, %a: tensor<16x64xf32>, %b: tensor<4x64x32xf32>) -> (tensor<8x96xf32>, tensor<4x16x32xf32>) {
  %e = tensor.empty() : tensor<8x96xf32>
  %r = linalg.broadcast ins(%v : tensor<96xf32>) outs(%e : tensor<8x96xf32>) dimensions = [0]
  %zero = arith.constant 0.000000e+00 : f32
  %e3 = tensor.empty() : tensor<4x16x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  %m = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<16x64xf32>, tensor<4x64x32xf32>) outs(%init : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %r, %m : tensor<8x96xf32>, tensor<4x16x32xf32>
}

// -----

// Softmax as StableHLO/IREE write it: the row max and sum drop the reduced
// dim and linalg.broadcast puts it back for the elementwise ops. The
// kernel ops read the reduction through size-1 dims instead (the collapse
// after it and the expand fold away), and the broadcasts die.
// CHECK-LABEL: func.func @softmax_linalg_broadcast
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[MAX:.*]] = kernel.reduce_max %[[X]] dim 1 : tensor<8x64xf32>
// CHECK-NEXT: %[[D:.*]] = kernel.sub %[[X]], %[[MAX]] : tensor<8x64xf32>, tensor<8x1xf32>
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[D]] : tensor<8x64xf32>
// CHECK-NEXT: %[[SUM:.*]] = kernel.reduce_sum %[[E]] dim 1 : tensor<8x64xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.div %[[E]], %[[SUM]] : tensor<8x64xf32>, tensor<8x1xf32>
// CHECK-NEXT: return %[[P]]
func.func @softmax_linalg_broadcast(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %max = linalg.reduce ins(%x : tensor<8x64xf32>) outs(%minit : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %bmax = linalg.broadcast ins(%max : tensor<8xf32>) outs(%e : tensor<8x64xf32>) dimensions = [1]
  %d = linalg.sub ins(%x, %bmax : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %exp = linalg.exp ins(%d : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.reduce ins(%exp : tensor<8x64xf32>) outs(%sinit : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %bsum = linalg.broadcast ins(%sum : tensor<8xf32>) outs(%e : tensor<8x64xf32>) dimensions = [1]
  %p = linalg.div ins(%exp, %bsum : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %p : tensor<8x64xf32>
}

// -----

// Broadcasts read by kernel binary ops in either position: a bias broadcast
// over rows needs no reshape (numpy supplies the leading dim), a rank-3
// broadcast over its middle dim gets a size-1 dim there, and two broadcasts
// along different dims both go (the result is their outer sum).
// CHECK-LABEL: func.func @broadcast_operands
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<64xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<2x8x64xf32>, %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf32>, %[[R:[a-zA-Z0-9_]+]]: tensor<8xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[A:.*]] = kernel.mul %[[B]], %[[X]] : tensor<64xf32>, tensor<8x64xf32>
// CHECK-DAG: %[[S3:.*]] = tensor.expand_shape %[[S]] {{\[}}[0], [1, 2]] output_shape [2, 1, 64]
// CHECK-DAG: %[[C:.*]] = kernel.sub %[[Y]], %[[S3]] : tensor<2x8x64xf32>, tensor<2x1x64xf32>
// CHECK-DAG: %[[R2:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [8, 1]
// CHECK-DAG: %[[O:.*]] = kernel.add %[[R2]], %[[B]] : tensor<8x1xf32>, tensor<64xf32>
// CHECK: return %[[A]], %[[C]], %[[O]]
func.func @broadcast_operands(%x: tensor<8x64xf32>, %b: tensor<64xf32>, %y: tensor<2x8x64xf32>, %s: tensor<2x64xf32>, %r: tensor<8xf32>) -> (tensor<8x64xf32>, tensor<2x8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %e3 = tensor.empty() : tensor<2x8x64xf32>
  %bb = linalg.broadcast ins(%b : tensor<64xf32>) outs(%e : tensor<8x64xf32>) dimensions = [0]
  %a = linalg.mul ins(%bb, %x : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %sb = linalg.broadcast ins(%s : tensor<2x64xf32>) outs(%e3 : tensor<2x8x64xf32>) dimensions = [1]
  %c = linalg.sub ins(%y, %sb : tensor<2x8x64xf32>, tensor<2x8x64xf32>) outs(%e3 : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %rb = linalg.broadcast ins(%r : tensor<8xf32>) outs(%e : tensor<8x64xf32>) dimensions = [1]
  %o = linalg.add ins(%rb, %bb : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %a, %c, %o : tensor<8x64xf32>, tensor<2x8x64xf32>, tensor<8x64xf32>
}

// -----

// A linalg.broadcast stays where something other than a kernel binary op
// reads it: a matmul, or a binary op whose other operand also has size 1
// along the added dim (the result would shrink). A broadcast read by both a
// matmul and an add stays for the matmul only. A unary op computes on the
// broadcast's input and is broadcast after (kernel.exp of 8 elements, not
// of 8x64).
// CHECK-LABEL: func.func @broadcast_readers_stay
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x32xf32>, %[[K:[a-zA-Z0-9_]+]]: tensor<8x1xf32>, %[[R:[a-zA-Z0-9_]+]]: tensor<8xf32>)
// CHECK: %[[VB:.*]] = linalg.broadcast ins(%[[V]] : tensor<64xf32>) outs(%{{.*}} : tensor<8x64xf32>) dimensions = [0]
// CHECK: %[[M:.*]] = kernel.matmul %[[VB]], %[[W]]
// CHECK: %[[A:.*]] = kernel.add %[[X]], %[[V]] : tensor<8x64xf32>, tensor<64xf32>
// CHECK: %[[RB:.*]] = linalg.broadcast ins(%[[R]] : tensor<8xf32>) outs(%{{.*}} : tensor<8x64xf32>) dimensions = [1]
// CHECK: %[[E0:.*]] = kernel.exp %[[R]] : tensor<8xf32>
// CHECK: %[[E:.*]] = linalg.broadcast ins(%[[E0]] : tensor<8xf32>) outs(%{{.*}} : tensor<8x64xf32>) dimensions = [1]
// CHECK: %[[G:.*]] = kernel.mul %[[RB]], %[[K]] : tensor<8x64xf32>, tensor<8x1xf32>
// CHECK: return %[[M]], %[[A]], %[[E]], %[[G]]
func.func @broadcast_readers_stay(%x: tensor<8x64xf32>, %v: tensor<64xf32>, %w: tensor<64x32xf32>, %k: tensor<8x1xf32>, %r: tensor<8xf32>) -> (tensor<8x32xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %vb = linalg.broadcast ins(%v : tensor<64xf32>) outs(%e : tensor<8x64xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%vb, %w : tensor<8x64xf32>, tensor<64x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %vb : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %rb = linalg.broadcast ins(%r : tensor<8xf32>) outs(%e : tensor<8x64xf32>) dimensions = [1]
  %ex = linalg.exp ins(%rb : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%rb, %k : tensor<8x64xf32>, tensor<8x1xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %s = arith.mulf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %m, %a, %ex, %g : tensor<8x32xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Kernel ops take no tensor with a zero-sized dim.
// CHECK-LABEL: func.func @zero_sized_stays
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<0x4xf32>)
// CHECK-NOT: kernel.
// CHECK: %[[E:.*]] = linalg.exp ins(%[[X]] : tensor<0x4xf32>)
// CHECK: %[[S:.*]] = linalg.reduce ins(%[[X]] : tensor<0x4xf32>)
// CHECK: return %[[E]], %[[S]]
func.func @zero_sized_stays(%x: tensor<0x4xf32>) -> (tensor<0x4xf32>, tensor<0xf32>) {
  %e = tensor.empty() : tensor<0x4xf32>
  %ex = linalg.exp ins(%x : tensor<0x4xf32>) outs(%e : tensor<0x4xf32>) -> tensor<0x4xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<0xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<0xf32>) -> tensor<0xf32>
  %r = linalg.reduce ins(%x : tensor<0x4xf32>) outs(%init : tensor<0xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %ex, %r : tensor<0x4xf32>, tensor<0xf32>
}

// -----

// Fills have no kernel op: a linalg.fill of a constant, or a generic
// yielding one, that no linalg op reads is the splat constant
// (constant-fills.mlir); a fill of a scalar argument is the broadcast of
// its 0-d tensor, and a generic that takes the scalar as an input takes
// that tensor (run-scalar-arguments.mlir); with no operand of its own
// shape, the generic stays.
// CHECK-LABEL: func.func @fills_of_scalars
// CHECK-SAME: (%[[S:[a-zA-Z0-9_]+]]: f32)
// CHECK: %[[T:.*]] = tensor.from_elements %[[S]] : tensor<f32>
// CHECK-NOT: kernel.
// CHECK-DAG: %[[F:.*]] = arith.constant dense<2.000000e+00> : tensor<8x64xf32>
// CHECK-DAG: %[[G:.*]] = arith.constant dense<2.000000e+00> : tensor<8x64xf32>
// CHECK: %[[H:.*]] = linalg.generic
// CHECK-SAME: ins(%[[T]] : tensor<f32>)
// CHECK: %[[FS:.*]] = linalg.broadcast ins(%[[T]] : tensor<f32>)
// CHECK: return %[[F]], %[[G]], %[[H]], %[[FS]]
func.func @fills_of_scalars(%s: f32) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %two = arith.constant 2.000000e+00 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %f = linalg.fill ins(%two : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<8x64xf32>) {
  ^bb0(%out: f32):
    linalg.yield %two : f32
  } -> tensor<8x64xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : f32) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<8x64xf32>
  %fs = linalg.fill ins(%s : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %f, %g, %h, %fs : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// A generic yielding a constant through an output map that is no
// permutation writes some elements only (the diagonal here, the init's
// values elsewhere): it stays, not a splat.
// CHECK-LABEL: func.func @partial_constant_write_stays
// CHECK-NOT: arith.constant dense
// CHECK: linalg.generic
func.func @partial_constant_write_stays(%x: tensor<4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = arith.constant 2.0 : f32
  %h = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i, i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%y : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %c : f32
  } -> tensor<4x4xf32>
  return %h : tensor<4x4xf32>
}

// -----

// linalg on buffers stays.
// CHECK-LABEL: func.func @buffers_stay
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<8x64xf32>, %[[Y:[a-zA-Z0-9_]+]]: memref<8x64xf32>)
// CHECK-NOT: kernel.
// CHECK: linalg.exp ins(%[[X]] : memref<8x64xf32>) outs(%[[Y]] : memref<8x64xf32>)
func.func @buffers_stay(%x: memref<8x64xf32>, %y: memref<8x64xf32>) {
  linalg.exp ins(%x : memref<8x64xf32>) outs(%y : memref<8x64xf32>)
  return
}

// -----

// Only the part of a function that converts does: the i32 add keeps its
// tensor.empty, the exp's dies.
// CHECK-LABEL: func.func @partial
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x64xi32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x64xi32>
// CHECK-NOT: tensor.empty
// CHECK: %[[A:.*]] = kernel.exp %[[X]] : tensor<8x64xf32>
// CHECK: %[[B:.*]] = linalg.add ins(%[[Y]], %[[Y]] : {{.*}}) outs(%[[E]] : tensor<8x64xi32>)
// CHECK: return %[[A]], %[[B]]
func.func @partial(%x: tensor<8x64xf32>, %y: tensor<8x64xi32>) -> (tensor<8x64xf32>, tensor<8x64xi32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %ei = tensor.empty() : tensor<8x64xi32>
  %a = linalg.exp ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %b = linalg.add ins(%y, %y : tensor<8x64xi32>, tensor<8x64xi32>) outs(%ei : tensor<8x64xi32>) -> tensor<8x64xi32>
  return %a, %b : tensor<8x64xf32>, tensor<8x64xi32>
}

// -----

// torch.clamp(x, -1.5, 2.0) as torch-mlir lowers it: a maximum and a minimum
// with constants, Mirage's clamp, max_scalar then min_scalar.
// CHECK-LABEL: func.func @clamp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[LO:.*]] = kernel.max_scalar %[[X]], -1.500000e+00 : tensor<8x64xf16>
// CHECK-NEXT: %[[HI:.*]] = kernel.min_scalar %[[LO]], 2.000000e+00 : tensor<8x64xf16>
// CHECK-NEXT: return %[[HI]]
func.func @clamp(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %lo = arith.constant -1.5 : f16
  %hi = arith.constant 2.0 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %a = arith.maximumf %in, %lo : f16
    %b = arith.minimumf %a, %hi : f16
    linalg.yield %b : f16
  } -> tensor<8x64xf16>
  return %c : tensor<8x64xf16>
}

// -----

// torch-mlir's relu, clamp and leaky relu are selects on a comparison of
// their own operands: relu is select(x > 0, x, 0), a clamp's bounds
// select(x < lo, lo, x) and select(x > hi, hi, x), a leaky relu
// select(x > 0, x, x * a), which is relu(x) - a * relu(-x). A comparison
// written the other way round (0 < x) is the same relu.
// CHECK-LABEL: func.func @torch_selects
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.*]] = kernel.relu %[[X]]
// CHECK: %[[LO:.*]] = kernel.max_scalar %[[X]], -1.000000e+00
// CHECK: %[[HI:.*]] = kernel.min_scalar %[[LO]], 6.000000e+00
// CHECK: %[[P:.*]] = kernel.relu %[[X]]
// CHECK: %[[N:.*]] = kernel.neg %[[X]]
// CHECK: %[[NR:.*]] = kernel.relu %[[N]]
// CHECK: %[[S:.*]] = kernel.mul_scalar %[[NR]], -0.0099999997764825821
// CHECK: %[[L:.*]] = kernel.add %[[P]], %[[S]]
// CHECK: %[[R2:.*]] = kernel.relu %[[X]]
// CHECK: return %[[R]], %[[HI]], %[[L]], %[[R2]]
#id2 = affine_map<(i, j) -> (i, j)>
func.func @torch_selects(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ugt, %a, %z : f32
    %s = arith.select %p, %a, %z : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %clamp = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %lo = arith.constant -1.0 : f32
    %hi = arith.constant 6.0 : f32
    %p = arith.cmpf ult, %a, %lo : f32
    %s = arith.select %p, %lo, %a : f32
    %q = arith.cmpf ugt, %s, %hi : f32
    %t = arith.select %q, %hi, %s : f32
    linalg.yield %t : f32
  } -> tensor<8x64xf32>
  %leaky = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %alpha = arith.constant 0.01 : f32
    %p = arith.cmpf ugt, %a, %z : f32
    %m = arith.mulf %a, %alpha : f32
    %s = arith.select %p, %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %mirror = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf olt, %z, %a : f32
    %s = arith.select %p, %a, %z : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %relu, %clamp, %leaky, %mirror : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// torch's softplus computed in f32 on f16 values (extf, the select on the
// threshold, truncf) is one kernel.softplus, which computes in f32 and
// rounds once. With beta = 2 the scalings would round in between: the
// generic is computed in f32 instead, between converts.
// CHECK-LABEL: func.func @softplus_in_f32
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[SP:.*]] = kernel.softplus %[[X]] : tensor<8x64xf16>
// CHECK: %[[W:.*]] = kernel.convert %[[X]] : tensor<8x64xf16> to tensor<8x64xf32>
// CHECK: %[[BX:.*]] = kernel.mul_scalar %[[W]], 2.000000e+00 : tensor<8x64xf32>
// CHECK: %[[BSP:.*]] = kernel.softplus %[[BX]] : tensor<8x64xf32>
// CHECK: %[[B:.*]] = kernel.mul_scalar %[[BSP]], 5.000000e-01 : tensor<8x64xf32>
// CHECK: %[[N:.*]] = kernel.convert %[[B]] : tensor<8x64xf32> to tensor<8x64xf16>
// CHECK: return %[[SP]], %[[N]]
#id2 = affine_map<(i, j) -> (i, j)>
func.func @softplus_in_f32(%x: tensor<8x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  %e = tensor.empty() : tensor<8x64xf16>
  %sp = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%h: f16, %o: f16):
    %a = arith.extf %h : f16 to f32
    %t = arith.constant 20.0 : f32
    %ex = math.exp %a : f32
    %l = math.log1p %ex : f32
    %c = arith.cmpf ogt, %a, %t : f32
    %r = arith.select %c, %a, %l : f32
    %y = arith.truncf %r : f32 to f16
    linalg.yield %y : f16
  } -> tensor<8x64xf16>
  %beta = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%h: f16, %o: f16):
    %a = arith.extf %h : f16 to f32
    %b = arith.constant 2.0 : f32
    %t = arith.constant 20.0 : f32
    %y2 = arith.mulf %a, %b : f32
    %ex = math.exp %y2 : f32
    %l = math.log1p %ex : f32
    %d = arith.divf %l, %b : f32
    %c = arith.cmpf ogt, %y2, %t : f32
    %r = arith.select %c, %a, %d : f32
    %y = arith.truncf %r : f32 to f16
    linalg.yield %y : f16
  } -> tensor<8x64xf16>
  return %sp, %beta : tensor<8x64xf16>, tensor<8x64xf16>
}

// -----

// A select between two values that are not what it compares (a mask), and
// a leaky relu whose slope is above 1 (then the maximum is not x), stay.
// CHECK-LABEL: func.func @other_selects_stay
// CHECK-NOT: kernel.
// CHECK: arith.select
// CHECK: arith.select
// CHECK: return
#id2 = affine_map<(i, j) -> (i, j)>
func.func @other_selects_stay(%x: tensor<8x64xf32>, %y: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %masked = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %b, %z : f32
    %s = arith.select %p, %a, %z : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %steep = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %alpha = arith.constant 2.0 : f32
    %p = arith.cmpf ugt, %a, %z : f32
    %m = arith.mulf %a, %alpha : f32
    %s = arith.select %p, %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %masked, %steep : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// torch-mlir's exact GELU divides by sqrt(2) inside the erf, where the
// other form multiplies by 1/sqrt(2): both are kernel.gelu.
// CHECK-LABEL: func.func @torch_gelu
// CHECK-NOT: linalg.
// CHECK: %[[G:.*]] = kernel.gelu %arg0 : tensor<16x128xf32>
// CHECK-NEXT: return %[[G]]
func.func @torch_gelu(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %e = tensor.empty() : tensor<16x128xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x128xf32>) outs(%e : tensor<16x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sqrt2 = arith.constant 1.41421354 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %d = arith.divf %a, %sqrt2 : f32
    %erf = math.erf %d : f32
    %p = arith.addf %one, %erf : f32
    %h = arith.mulf %half, %p : f32
    %r = arith.mulf %a, %h : f32
    linalg.yield %r : f32
  } -> tensor<16x128xf32>
  return %g : tensor<16x128xf32>
}

// -----

// torch.maximum and torch.minimum of two tensors (maximumf / minimumf, one
// of them broadcast along the rows), and torch.where on their comparison in
// its mirror images: select(x > y, y, x) is min(x, y), select(y < x, x, y)
// max(x, y). A comparison of two values that a select does not pass on as
// they are stays.
// CHECK-LABEL: func.func @torch_max_min
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<64xf32>)
// CHECK: %[[MAX:.*]] = kernel.max %[[X]], %[[B]] : tensor<8x64xf32>, tensor<64xf32>
// CHECK: %[[MIN:.*]] = kernel.min %[[MAX]], %[[Y]] : tensor<8x64xf32>, tensor<8x64xf32>
// CHECK: %[[SMIN:.*]] = kernel.min %[[X]], %[[Y]] : tensor<8x64xf32>, tensor<8x64xf32>
// CHECK: %[[SMAX:.*]] = kernel.max %[[Y]], %[[X]] : tensor<8x64xf32>, tensor<8x64xf32>
// CHECK: linalg.generic
// CHECK: arith.select
// CHECK: return %[[MIN]], %[[SMIN]], %[[SMAX]], %{{.*}}
#idm = affine_map<(i, j) -> (i, j)>
#colm = affine_map<(i, j) -> (j)>
func.func @torch_max_min(%x: tensor<8x64xf32>, %y: tensor<8x64xf32>, %b: tensor<64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %mm = linalg.generic {indexing_maps = [#idm, #colm, #idm, #idm], iterator_types = ["parallel", "parallel"]} ins(%x, %b, %y : tensor<8x64xf32>, tensor<64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %o: f32):
    %hi = arith.maximumf %a, %c : f32
    %lo = arith.minimumf %hi, %d : f32
    linalg.yield %lo : f32
  } -> tensor<8x64xf32>
  %smin = linalg.generic {indexing_maps = [#idm, #idm, #idm], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %gt = arith.cmpf ogt, %a, %d : f32
    %s = arith.select %gt, %d, %a : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %smax = linalg.generic {indexing_maps = [#idm, #idm, #idm], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %lt = arith.cmpf ult, %d, %a : f32
    %s = arith.select %lt, %a, %d : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %other = linalg.generic {indexing_maps = [#idm, #idm, #idm], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %lt = arith.cmpf olt, %a, %d : f32
    %n = arith.negf %a : f32
    %s = arith.select %lt, %n, %d : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %mm, %smin, %smax, %other : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// GELU's tanh approximation, 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x +
// 0.044715 * x^3))), as GPT-2's MLP writes it in f16 (constants rounded to
// f16) after a bias, and in f32 associated otherwise (x * (0.5 + 0.5 *
// tanh(...)), the cube as x * x * x): nine kernel ops each, one gelu_tanh.
// The bias is not part of it. A coefficient of 0.5 on the cube is another
// function: its ops stay.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-SAME: (%[[H:[a-zA-Z0-9_]+]]: tensor<8x64xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[X:.*]] = kernel.add %[[H]], %[[B]]
// CHECK-NEXT: %[[G:.*]] = kernel.gelu_tanh %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: %[[G32:.*]] = kernel.gelu_tanh %[[Y]] : tensor<8x64xf32>
// CHECK-NOT: gelu_tanh
// CHECK: kernel.tanh
// CHECK: return %[[G]], %[[G32]], %{{.*}}
#idg = affine_map<(i, j) -> (i, j)>
#colg = affine_map<(i, j) -> (j)>
func.func @gelu_tanh(%h: tensor<8x64xf16>, %b: tensor<64xf16>, %y: tensor<8x64xf32>) -> (tensor<8x64xf16>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf16>
  %x = linalg.generic {indexing_maps = [#idg, #colg, #idg], iterator_types = ["parallel", "parallel"]} ins(%h, %b : tensor<8x64xf16>, tensor<64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<8x64xf16>
  %g = linalg.generic {indexing_maps = [#idg, #idg], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %k1 = arith.constant 5.000000e-01 : f16
    %t2 = arith.mulf %a, %k1 : f16
    %t3 = arith.mulf %a, %a : f16
    %t4 = arith.mulf %t3, %a : f16
    %k5 = arith.constant 4.471500e-02 : f16
    %t6 = arith.mulf %t4, %k5 : f16
    %t7 = arith.addf %a, %t6 : f16
    %k8 = arith.constant 7.978845608e-01 : f16
    %t9 = arith.mulf %t7, %k8 : f16
    %t10 = math.tanh %t9 : f16
    %k11 = arith.constant 1.000000e+00 : f16
    %t12 = arith.addf %t10, %k11 : f16
    %t13 = arith.mulf %t2, %t12 : f16
    linalg.yield %t13 : f16
  } -> tensor<8x64xf16>
  %e32 = tensor.empty() : tensor<8x64xf32>
  %g32 = linalg.generic {indexing_maps = [#idg, #idg], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<8x64xf32>) outs(%e32 : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %xx = arith.mulf %a, %a : f32
    %cube = arith.mulf %xx, %a : f32
    %k = arith.constant 0.044715 : f32
    %c = arith.mulf %k, %cube : f32
    %in = arith.addf %c, %a : f32
    %beta = arith.constant 0.7978845608028654 : f32
    %s = arith.mulf %beta, %in : f32
    %t = math.tanh %s : f32
    %half = arith.constant 0.5 : f32
    %ht = arith.mulf %t, %half : f32
    %w = arith.addf %ht, %half : f32
    %r = arith.mulf %a, %w : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %other = linalg.generic {indexing_maps = [#idg, #idg], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<8x64xf32>) outs(%e32 : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %xx = arith.mulf %a, %a : f32
    %cube = arith.mulf %xx, %a : f32
    %k = arith.constant 0.5 : f32
    %c = arith.mulf %k, %cube : f32
    %in = arith.addf %c, %a : f32
    %beta = arith.constant 0.7978845608028654 : f32
    %s = arith.mulf %beta, %in : f32
    %t = math.tanh %s : f32
    %one = arith.constant 1.0 : f32
    %p = arith.addf %t, %one : f32
    %half = arith.constant 0.5 : f32
    %hx = arith.mulf %a, %half : f32
    %r = arith.mulf %hx, %p : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %g, %g32, %other : tensor<8x64xf16>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// GELU's tanh form as five torch ops on f16 values, two of them computed in
// f32 (pow and tanh, between extf and truncf; a constant truncated from
// f64): the conversions are part of the chain, and the GELU is one
// gelu_tanh on the f16 values.
// CHECK-LABEL: func.func @gelu_tanh_f32_steps
// CHECK-SAME: (%[[H:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NEXT: %[[G:.*]] = kernel.gelu_tanh %[[H]] : tensor<8x64xf16>
// CHECK-NEXT: return %[[G]]
#ids = affine_map<(i, j) -> (i, j)>
func.func @gelu_tanh_f32_steps(%h: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %e = tensor.empty() : tensor<8x64xf16>
  %cube = linalg.generic {indexing_maps = [#ids, #ids], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %af = arith.extf %a : f16 to f32
    %three = arith.constant 3.0 : f32
    %p = math.powf %af, %three : f32
    %t = arith.truncf %p : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x64xf16>
  %mul1 = linalg.generic {indexing_maps = [#ids, #ids], iterator_types = ["parallel", "parallel"]}
      ins(%cube : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %c = arith.constant 4.471500e-02 : f64
    %cf = arith.truncf %c : f64 to f16
    %t = arith.mulf %a, %cf : f16
    linalg.yield %t : f16
  } -> tensor<8x64xf16>
  %add1 = linalg.generic {indexing_maps = [#ids, #ids, #ids], iterator_types = ["parallel", "parallel"]}
      ins(%h, %mul1 : tensor<8x64xf16>, tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %t = arith.addf %a, %b : f16
    linalg.yield %t : f16
  } -> tensor<8x64xf16>
  %th = linalg.generic {indexing_maps = [#ids, #ids], iterator_types = ["parallel", "parallel"]}
      ins(%add1 : tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %af = arith.extf %a : f16 to f32
    %c = arith.constant 0.797884583 : f32
    %s = arith.mulf %af, %c : f32
    %t = math.tanh %s : f32
    %one = arith.constant 1.0 : f32
    %p = arith.addf %t, %one : f32
    %tt = arith.truncf %p : f32 to f16
    linalg.yield %tt : f16
  } -> tensor<8x64xf16>
  %g = linalg.generic {indexing_maps = [#ids, #ids, #ids], iterator_types = ["parallel", "parallel"]}
      ins(%h, %th : tensor<8x64xf16>, tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %half = arith.constant 0.5 : f16
    %ha = arith.mulf %a, %half : f16
    %t = arith.mulf %ha, %b : f16
    linalg.yield %t : f16
  } -> tensor<8x64xf16>
  return %g : tensor<8x64xf16>
}

// -----

// Near misses of GELU's tanh form stay spelled out: 0.05 for 0.044715 in
// f16 and 0.9 for sqrt(2 / pi) in bf16 agree with gelu_tanh within a few
// ulps of their types at sample points, but their constants are not
// GELU's.
// CHECK-LABEL: func.func @gelu_tanh_near_misses
// CHECK-NOT: gelu_tanh
// CHECK: kernel.tanh
// CHECK-NOT: gelu_tanh
// CHECK: kernel.tanh
// CHECK-NOT: gelu_tanh
// CHECK: return
#idn = affine_map<(i, j) -> (i, j)>
func.func @gelu_tanh_near_misses(%xf16: tensor<8x64xf16>, %xbf16: tensor<8x64xbf16>) -> (tensor<8x64xf16>, tensor<8x64xbf16>) {
  %ef16 = tensor.empty() : tensor<8x64xf16>
  %ebf16 = tensor.empty() : tensor<8x64xbf16>
  %alpha = linalg.generic {indexing_maps = [#idn, #idn], iterator_types = ["parallel", "parallel"]} ins(%xf16 : tensor<8x64xf16>) outs(%ef16 : tensor<8x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %k1 = arith.constant 5.000000e-01 : f16
    %t2 = arith.mulf %a, %k1 : f16
    %t3 = arith.mulf %a, %a : f16
    %t4 = arith.mulf %t3, %a : f16
    %k5 = arith.constant 5.000000e-02 : f16
    %t6 = arith.mulf %t4, %k5 : f16
    %t7 = arith.addf %a, %t6 : f16
    %k8 = arith.constant 7.978845608e-01 : f16
    %t9 = arith.mulf %t7, %k8 : f16
    %t10 = math.tanh %t9 : f16
    %k11 = arith.constant 1.000000e+00 : f16
    %t12 = arith.addf %t10, %k11 : f16
    %t13 = arith.mulf %t2, %t12 : f16
    linalg.yield %t13 : f16
  } -> tensor<8x64xf16>
  %beta = linalg.generic {indexing_maps = [#idn, #idn], iterator_types = ["parallel", "parallel"]} ins(%xbf16 : tensor<8x64xbf16>) outs(%ebf16 : tensor<8x64xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %k1 = arith.constant 5.000000e-01 : bf16
    %t2 = arith.mulf %a, %k1 : bf16
    %t3 = arith.mulf %a, %a : bf16
    %t4 = arith.mulf %t3, %a : bf16
    %k5 = arith.constant 4.471500e-02 : bf16
    %t6 = arith.mulf %t4, %k5 : bf16
    %t7 = arith.addf %a, %t6 : bf16
    %k8 = arith.constant 9.000000e-01 : bf16
    %t9 = arith.mulf %t7, %k8 : bf16
    %t10 = math.tanh %t9 : bf16
    %k11 = arith.constant 1.000000e+00 : bf16
    %t12 = arith.addf %t10, %k11 : bf16
    %t13 = arith.mulf %t2, %t12 : bf16
    linalg.yield %t13 : bf16
  } -> tensor<8x64xbf16>
  return %alpha, %beta : tensor<8x64xf16>, tensor<8x64xbf16>
}

// -----

// Powers torch-mlir writes: x.pow(2) (math.powf or math.fpowi) is square(x),
// exact; x^3 (the tanh form of gelu) square(x) * x, within an ulp; a vector
// norm's |x|^2 square(x) and its s^0.5 sqrt(s), a norm's x.pow(-0.5)
// rsqrt(x). A clamp_min whose bound is
// an f64 scalar truncated in the body, and compared and selected as two
// constant ops of one value, is max_scalar.
// CHECK-LABEL: func.func @torch_powers
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[SQ:.*]] = kernel.square %[[X]]
// CHECK: %[[S2:.*]] = kernel.square %[[X]]
// CHECK: %[[C:.*]] = kernel.mul %[[S2]], %[[X]]
// CHECK: %[[N:.*]] = kernel.square %[[X]]
// CHECK: %[[R:.*]] = kernel.sqrt %[[N]]
// CHECK: %[[M:.*]] = kernel.max_scalar %[[X]], 9.999999960041972E-13
// CHECK: %[[RS:.*]] = kernel.rsqrt %[[X]]
// CHECK: return %[[SQ]], %[[C]], %[[R]], %[[M]], %[[RS]]
#id3 = affine_map<(i, j) -> (i, j)>
func.func @torch_powers(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %eps = arith.constant 9.9999999999999998E-13 : f64
  %sq = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %p = math.powf %a, %two : f32
    linalg.yield %p : f32
  } -> tensor<8x64xf32>
  %cube = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %three = arith.constant 3 : i64
    %p = math.fpowi %a, %three : f32, i64
    linalg.yield %p : f32
  } -> tensor<8x64xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %half = arith.constant 0.5 : f32
    %abs = math.absf %a : f32
    %p = math.powf %abs, %two : f32
    %r = math.powf %p, %half : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %clamp = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %lo = arith.truncf %eps : f64 to f32
    %lo2 = arith.truncf %eps : f64 to f32
    %p = arith.cmpf ult, %a, %lo : f32
    %r = arith.select %p, %lo2, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %rs = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m_half = arith.constant -0.5 : f32
    %p = math.powf %a, %m_half : f32
    linalg.yield %p : f32
  } -> tensor<8x64xf32>
  return %sq, %cube, %norm, %clamp, %rs : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Other constant powers, computed in the element type: an integer power by
// squaring (x^5 = square(square(x)) * x), a negative one its reciprocal
// (x^-2 = 1 / square(x)), any other exp(c log x) (NaN for a negative x, as
// powf). One in f32 on f16 values is computed in f32 between conversions.
// CHECK-LABEL: func.func @constant_powers
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[H:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK: %[[S1:.*]] = kernel.square %[[X]]
// CHECK: %[[S2:.*]] = kernel.square %[[S1]]
// CHECK: %[[P5:.*]] = kernel.mul %[[X]], %[[S2]]
// CHECK: %[[T:.*]] = kernel.square %[[X]]
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<1x1xf32>
// CHECK: %[[PM2:.*]] = kernel.div %[[ONE]], %[[T]]
// CHECK: %[[L:.*]] = kernel.log %[[X]]
// CHECK: %[[M:.*]] = kernel.mul_scalar %[[L]], 1.500000e+00
// CHECK: %[[P15:.*]] = kernel.exp %[[M]]
// CHECK: %[[HF:.*]] = kernel.convert %[[H]] : tensor<8x64xf16> to tensor<8x64xf32>
// CHECK: %[[HL:.*]] = kernel.log %[[HF]]
// CHECK: %[[HM:.*]] = kernel.mul_scalar %[[HL]], 1.500000e+00
// CHECK: %[[HE:.*]] = kernel.exp %[[HM]]
// CHECK: %[[W:.*]] = kernel.convert %[[HE]] : tensor<8x64xf32> to tensor<8x64xf16>
// CHECK-NOT: linalg.
// CHECK: return %[[P5]], %[[PM2]], %[[P15]], %[[W]]
#idp = affine_map<(i, j) -> (i, j)>
func.func @constant_powers(%x: tensor<8x64xf32>, %h: tensor<8x64xf16>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf16>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %p5 = linalg.generic {indexing_maps = [#idp, #idp], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %five = arith.constant 5 : i64
    %p = math.fpowi %a, %five : f32, i64
    linalg.yield %p : f32
  } -> tensor<8x64xf32>
  %pm2 = linalg.generic {indexing_maps = [#idp, #idp], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m2 = arith.constant -2.0 : f32
    %p = math.powf %a, %m2 : f32
    linalg.yield %p : f32
  } -> tensor<8x64xf32>
  %p15 = linalg.generic {indexing_maps = [#idp, #idp], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 1.5 : f32
    %p = math.powf %a, %c : f32
    linalg.yield %p : f32
  } -> tensor<8x64xf32>
  %eh = tensor.empty() : tensor<8x64xf16>
  %wide = linalg.generic {indexing_maps = [#idp, #idp], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<8x64xf16>) outs(%eh : tensor<8x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %af = arith.extf %a : f16 to f32
    %c = arith.constant 1.5 : f32
    %p = math.powf %af, %c : f32
    %t = arith.truncf %p : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x64xf16>
  return %p5, %pm2, %p15, %wide : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf16>
}

// -----

// Linear layers on a [batch, seq, hidden] activation, as torch-mlir writes
// them: rows collapsed, a matmul, the rows expanded back. The gate and the
// product compute on the flat rows and the expand moves to the result, so
// no reshape stands between the matmuls and the ops that read them; the
// activation is collapsed once for both layers.
// CHECK-LABEL: func.func @gated_linears_on_3d_rows
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x4x16xf32>, %[[W1:[a-zA-Z0-9_]+]]: tensor<16x32xf32>, %[[W2:[a-zA-Z0-9_]+]]: tensor<16x32xf32>)
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
// CHECK-NEXT: %[[G:.*]] = kernel.matmul %[[F]], %[[W1]]
// CHECK-NEXT: %[[U:.*]] = kernel.matmul %[[F]], %[[W2]]
// CHECK-NEXT: %[[S:.*]] = kernel.silu %[[G]] : tensor<8x32xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.mul %[[S]], %[[U]] : tensor<8x32xf32>, tensor<8x32xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 32]
// CHECK-NEXT: return %[[O]]
#id3d = affine_map<(b, i, j) -> (b, i, j)>
func.func @gated_linears_on_3d_rows(%x: tensor<2x4x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<16x32xf32>) -> tensor<2x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x32xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %xf = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
  %g = linalg.matmul ins(%xf, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %g3 = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 4, 32] : tensor<8x32xf32> into tensor<2x4x32xf32>
  %xf2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
  %u = linalg.matmul ins(%xf2, %w2 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %u3 = tensor.expand_shape %u [[0, 1], [2]] output_shape [2, 4, 32] : tensor<8x32xf32> into tensor<2x4x32xf32>
  %e1 = tensor.empty() : tensor<2x4x32xf32>
  %o = linalg.generic {indexing_maps = [#id3d, #id3d, #id3d], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g3, %u3 : tensor<2x4x32xf32>, tensor<2x4x32xf32>) outs(%e1 : tensor<2x4x32xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %a : f32
    %ex = math.exp %neg : f32
    %den = arith.addf %ex, %one : f32
    %sig = arith.divf %one, %den : f32
    %silu = arith.mulf %a, %sig : f32
    %r = arith.mulf %silu, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x4x32xf32>
  return %o : tensor<2x4x32xf32>
}

// -----

// An RMSNorm over the hidden dim of [batch, seq, hidden] (sum of squares,
// gain [hidden]) feeding a linear layer, and a residual add of the layer's
// output: the collapse the layer reads rises through the normalization to
// the argument, the expand sinks through the residual add to the result,
// and every kernel op works on the rows [8, ...].
// CHECK-LABEL: func.func @rmsnorm_linear_residual_on_3d_rows
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x4x16xf32>, %[[G:[a-zA-Z0-9_]+]]: tensor<16xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<16x16xf32>)
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
// CHECK-NOT: tensor.
// CHECK: kernel.reduce_sum %{{.*}} dim 1 : tensor<8x16xf32>
// CHECK-NOT: tensor.
// CHECK: kernel.mul %{{.*}}, %[[G]] : tensor<8x16xf32>, tensor<16xf32>
// CHECK-NOT: tensor.
// CHECK: %[[M:.*]] = kernel.matmul %{{.*}}, %[[W]] : tensor<8x16xf32>, tensor<16x16xf32>
// CHECK-NEXT: %[[A:.*]] = kernel.add %[[F]], %[[M]] : tensor<8x16xf32>, tensor<8x16xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 16]
// CHECK-NEXT: return %[[O]]
#id3r = affine_map<(b, i, j) -> (b, i, j)>
#red3r = affine_map<(b, i, j) -> (b, i)>
#gain3r = affine_map<(b, i, j) -> (j)>
func.func @rmsnorm_linear_residual_on_3d_rows(%x: tensor<2x4x16xf32>, %gain: tensor<16xf32>, %w: tensor<16x16xf32>) -> tensor<2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ss = linalg.generic {indexing_maps = [#id3r, #red3r], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x4x16xf32>) outs(%zs : tensor<2x4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %e0 = tensor.empty() : tensor<2x4x16xf32>
  %n = linalg.generic {indexing_maps = [#id3r, #red3r, #gain3r, #id3r], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %ss, %gain : tensor<2x4x16xf32>, tensor<2x4xf32>, tensor<16xf32>) outs(%e0 : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %c16 = arith.constant 16.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %m = arith.divf %s, %c16 : f32
    %me = arith.addf %m, %eps : f32
    %rs = math.rsqrt %me : f32
    %y = arith.mulf %a, %rs : f32
    %yg = arith.mulf %y, %g : f32
    linalg.yield %yg : f32
  } -> tensor<2x4x16xf32>
  %nf = tensor.collapse_shape %n [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %d = linalg.matmul ins(%nf, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %d3 = tensor.expand_shape %d [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
  %o = linalg.add ins(%x, %d3 : tensor<2x4x16xf32>, tensor<2x4x16xf32>) outs(%e0 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// Where the dims do not allow it the ops stay on [batch, seq, hidden]: a
// softmax over the sequence reduces a dim the rows merge, and a per-batch
// scale [2, 1, 32] varies along the batch but not the sequence.
// CHECK-LABEL: func.func @ops_across_rows_stay_3d
// CHECK: %[[M:.*]] = kernel.matmul %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 32]
// CHECK-DAG: kernel.reduce_max %[[O]] dim 1 : tensor<2x4x32xf32>
// CHECK-DAG: kernel.mul %[[O]], %{{.*}} : tensor<2x4x32xf32>, tensor<2x1x32xf32>
func.func @ops_across_rows_stay_3d(%x: tensor<2x4x16xf32>, %w: tensor<16x32xf32>, %s: tensor<2x1x32xf32>) -> (tensor<2x4x32xf32>, tensor<2x4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x32xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %xf = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
  %m = linalg.matmul ins(%xf, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m3 = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 4, 32] : tensor<8x32xf32> into tensor<2x4x32xf32>
  %e1 = tensor.empty() : tensor<2x4x32xf32>
  %p = linalg.softmax dimension(1) ins(%m3 : tensor<2x4x32xf32>) outs(%e1 : tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  %sb = tensor.collapse_shape %s [[0, 1], [2]] : tensor<2x1x32xf32> into tensor<2x32xf32>
  %bs = linalg.broadcast ins(%sb : tensor<2x32xf32>) outs(%e1 : tensor<2x4x32xf32>) dimensions = [1]
  %q = linalg.mul ins(%m3, %bs : tensor<2x4x32xf32>, tensor<2x4x32xf32>) outs(%e1 : tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  return %p, %q : tensor<2x4x32xf32>, tensor<2x4x32xf32>
}

// -----

// torch.cat as tensor.concat is a kernel op; a dynamic one stays.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x32xf16>, %[[D:[a-zA-Z0-9_]+]]: tensor<?x32xf16>)
// CHECK-NEXT: %[[C:.*]] = kernel.concat %[[X]], %[[Y]] dim 1 : tensor<8x64xf16>, tensor<8x32xf16>
// CHECK-NEXT: %[[S:.*]] = tensor.concat dim(0) %[[Y]], %[[D]]
// CHECK-NEXT: return %[[C]], %[[S]]
func.func @concat(%x: tensor<8x64xf16>, %y: tensor<8x32xf16>, %d: tensor<?x32xf16>) -> (tensor<8x96xf16>, tensor<?x32xf16>) {
  %c = tensor.concat dim(1) %x, %y : (tensor<8x64xf16>, tensor<8x32xf16>) -> tensor<8x96xf16>
  %s = tensor.concat dim(0) %y, %d : (tensor<8x32xf16>, tensor<?x32xf16>) -> tensor<?x32xf16>
  return %c, %s : tensor<8x96xf16>, tensor<?x32xf16>
}

// -----

// torch.cat as tensor.insert_slice ops filling a tensor.empty along one
// dim (rotate_half's halves swapped, written out of order) is the concat
// of the slabs in offset order. Slabs that leave a gap stay.
// CHECK-LABEL: func.func @insert_slices
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<4x8x16xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<4x8x16xf32>)
// CHECK-NEXT: %[[C:.*]] = kernel.concat %[[Y]], %[[X]] dim 2 : tensor<4x8x16xf32>, tensor<4x8x16xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4x8x48xf32>
// CHECK-NEXT: %[[I:.*]] = tensor.insert_slice %[[X]] into %[[E]][0, 0, 0]
// CHECK-NEXT: %[[J:.*]] = tensor.insert_slice %[[Y]] into %[[I]][0, 0, 32]
// CHECK-NEXT: return %[[C]], %[[J]]
func.func @insert_slices(%x: tensor<4x8x16xf32>, %y: tensor<4x8x16xf32>) -> (tensor<4x8x32xf32>, tensor<4x8x48xf32>) {
  %e = tensor.empty() : tensor<4x8x32xf32>
  %a = tensor.insert_slice %x into %e[0, 0, 16] [4, 8, 16] [1, 1, 1] : tensor<4x8x16xf32> into tensor<4x8x32xf32>
  %b = tensor.insert_slice %y into %a[0, 0, 0] [4, 8, 16] [1, 1, 1] : tensor<4x8x16xf32> into tensor<4x8x32xf32>
  %g = tensor.empty() : tensor<4x8x48xf32>
  %c = tensor.insert_slice %x into %g[0, 0, 0] [4, 8, 16] [1, 1, 1] : tensor<4x8x16xf32> into tensor<4x8x48xf32>
  %d = tensor.insert_slice %y into %c[0, 0, 32] [4, 8, 16] [1, 1, 1] : tensor<4x8x16xf32> into tensor<4x8x48xf32>
  return %b, %d : tensor<4x8x32xf32>, tensor<4x8x48xf32>
}

// -----

// A decode step's KV-cache write: new rows inserted into the cache, an
// argument, here in the middle and at the end. The rows the inserts leave
// are slices of the cache, concatenated around the new ones.
// CHECK-LABEL: func.func @cache_writes
// CHECK-SAME: (%[[C:[a-zA-Z0-9_]+]]: tensor<32x16xf32>, %[[N:[a-zA-Z0-9_]+]]: tensor<8x16xf32>, %[[M:[a-zA-Z0-9_]+]]: tensor<4x16xf32>)
// CHECK-NOT: insert_slice
// CHECK: %[[A:.*]] = tensor.extract_slice %[[C]][0, 0] [8, 16] [1, 1]
// CHECK: %[[B:.*]] = tensor.extract_slice %[[C]][16, 0] [12, 16] [1, 1]
// CHECK: %[[W:.*]] = kernel.concat %[[A]], %[[N]], %[[B]], %[[M]] dim 0
// CHECK: return %[[W]]
func.func @cache_writes(%cache: tensor<32x16xf32>, %new: tensor<8x16xf32>, %last: tensor<4x16xf32>) -> tensor<32x16xf32> {
  %a = tensor.insert_slice %new into %cache[8, 0] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<32x16xf32>
  %b = tensor.insert_slice %last into %a[28, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<32x16xf32>
  return %b : tensor<32x16xf32>
}

// -----

// Overlapping writes into an argument (the second overwrites rows 6 and 7
// of the first) are no concatenation: they stay, and the import leaves no
// op behind. It made the cache's slices before it saw the overlap, never
// converged, and failed with no message.
// CHECK-LABEL: func.func @overlapping_cache_writes
// CHECK-NOT: extract_slice
// CHECK-NOT: kernel.
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
func.func @overlapping_cache_writes(%c: tensor<16x4xf32>, %n: tensor<6x4xf32>, %m: tensor<4x4xf32>) -> tensor<16x4xf32> {
  %a = tensor.insert_slice %n into %c[2, 0] [6, 4] [1, 1] : tensor<6x4xf32> into tensor<16x4xf32>
  %b = tensor.insert_slice %m into %a[6, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<16x4xf32>
  return %b : tensor<16x4xf32>
}

// -----

// F.pad by a constant: along each padded dim, the concat of splat
// constants around the tensor (zeros after 20 rows, -inf on both sides of
// the columns), which the matmul and the softmax then read.
// CHECK-LABEL: func.func @pads
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<20x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x16xf32>, %[[S:[a-zA-Z0-9_]+]]: tensor<8x20xf32>)
// CHECK-NOT: tensor.pad
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<12x64xf32>
// CHECK: %[[XP:.*]] = kernel.concat %[[X]], %[[Z]] dim 0
// CHECK: kernel.matmul %[[XP]], %[[W]]
// CHECK: %[[L:.*]] = arith.constant dense<0xFF800000> : tensor<8x4xf32>
// CHECK: %[[H:.*]] = arith.constant dense<0xFF800000> : tensor<8x8xf32>
// CHECK: %[[SP:.*]] = kernel.concat %[[L]], %[[S]], %[[H]] dim 1
// CHECK: kernel.reduce_max %[[SP]]
// CHECK-NOT: tensor.pad
func.func @pads(%x: tensor<20x64xf32>, %w: tensor<64x16xf32>, %s: tensor<8x20xf32>) -> (tensor<32x16xf32>, tensor<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %xp = tensor.pad %x low[0, 0] high[12, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<20x64xf32> to tensor<32x64xf32>
  %e = tensor.empty() : tensor<32x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %m = linalg.matmul ins(%xp, %w : tensor<32x64xf32>, tensor<64x16xf32>) outs(%z : tensor<32x16xf32>) -> tensor<32x16xf32>
  %sp = tensor.pad %s low[0, 4] high[0, 8] {
  ^bb0(%i: index, %j: index):
    tensor.yield %ninf : f32
  } : tensor<8x20xf32> to tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x32xf32>
  %p = linalg.softmax dimension(1) ins(%sp : tensor<8x32xf32>) outs(%e2 : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m, %p : tensor<32x16xf32>, tensor<8x32xf32>
}

// -----

// Generics with several results (IREE's fusions, norms written by hand):
// a row's sum and sum of squares in one reduction, and a gated product
// with its gate. Each result is a generic of its own, imported as usual.
// CHECK-LABEL: func.func @several_results
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[G:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[S:.*]] = kernel.reduce_sum %[[X]] dim 1
// CHECK: %[[SQ:.*]] = kernel.square %[[X]]
// CHECK: kernel.reduce_sum %[[SQ]] dim 1
// CHECK: %[[A:.*]] = kernel.silu %[[G]]
// CHECK: kernel.mul %[[X]], %[[A]]
// CHECK: kernel.silu %[[G]]
// CHECK-NOT: linalg.
// CHECK: return
func.func @several_results(%x: tensor<8x64xf32>, %g: tensor<8x64xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%z, %z : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%v: f32, %sum: f32, %sq: f32):
    %a = arith.addf %sum, %v : f32
    %m = arith.mulf %v, %v : f32
    %b = arith.addf %sq, %m : f32
    linalg.yield %a, %b : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  %e2 = tensor.empty() : tensor<8x64xf32>
  %t:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %g : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e2, %e2 : tensor<8x64xf32>, tensor<8x64xf32>) {
  ^bb0(%v: f32, %w: f32, %o1: f32, %o2: f32):
    %n = arith.negf %w : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %silu = arith.divf %w, %d : f32
    %p = arith.mulf %v, %silu : f32
    linalg.yield %p, %silu : f32, f32
  } -> (tensor<8x64xf32>, tensor<8x64xf32>)
  return %s#0, %s#1, %t#0, %t#1 : tensor<8xf32>, tensor<8xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// A result that reads another's output (a running max that a sum then
// rescales by) is no independent result: such a generic stays.
// CHECK-LABEL: func.func @dependent_results
// CHECK: linalg.generic
func.func @dependent_results(%x: tensor<8x64xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%z, %z : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%v: f32, %mx: f32, %sum: f32):
    %a = arith.maximumf %mx, %v : f32
    %b = arith.addf %sum, %mx : f32
    linalg.yield %a, %b : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %s#0, %s#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A value with a 3-D user before its collapse: the op flattens where it
// is, so the flat op comes before both users and the 3-D one reads it
// expanded back (and, being elementwise, flattens in turn).
// CHECK-LABEL: func.func @collapse_after_another_user
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>, %[[R:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[XF:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]]
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[XF]] : tensor<6x4xf32>
// CHECK-NEXT: %[[RF:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1], [2]]
// CHECK-NEXT: %[[A:.*]] = kernel.add %[[E]], %[[RF]] : tensor<6x4xf32>, tensor<6x4xf32>
// CHECK-NEXT: %[[A3:.*]] = tensor.expand_shape %[[A]]
// CHECK-NEXT: return %[[A3]], %[[E]]
func.func @collapse_after_another_user(%x: tensor<2x3x4xf32>, %r: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<6x4xf32>) {
  %e = tensor.empty() : tensor<2x3x4xf32>
  %a = linalg.exp ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u = linalg.add ins(%a, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>) outs(%e : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %af = tensor.collapse_shape %a [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  return %u, %af : tensor<2x3x4xf32>, tensor<6x4xf32>
}

// -----

// Conversions next to reshapes are the mixed-precision patterns' to move
// (towards the op that computes or reads them), except where the row
// patterns move the reshape on past the op that computes the converted
// value (@decode_norm_rows); the import ends.
// CHECK-LABEL: func.func @convert_of_expanded_argument
// CHECK-NEXT: %[[X:.*]] = tensor.expand_shape %arg0
// CHECK-NEXT: %[[C:.*]] = kernel.convert %[[X]] : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK-NEXT: return %[[C]]
func.func @convert_of_expanded_argument(%x: tensor<6xf32>) -> tensor<2x3xf16> {
  %r = tensor.expand_shape %x [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf16>
  %a = linalg.map { arith.truncf } ins(%r : tensor<2x3xf32>) outs(%e : tensor<2x3xf16>)
  return %a : tensor<2x3xf16>
}

// CHECK-LABEL: func.func @convert_of_collapsed_batch_matmul
// CHECK: %[[M:.*]] = kernel.matmul %arg0, %arg1 : tensor<2x3x4xf16>, tensor<2x4x5xf16>
// CHECK-NEXT: %[[C:.*]] = kernel.convert %[[M]] : tensor<2x3x5xf16> to tensor<2x3x5xf32>
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %[[C]]
// CHECK-NEXT: return %[[F]]
func.func @convert_of_collapsed_batch_matmul(%q: tensor<2x3x4xf16>, %k: tensor<2x4x5xf16>) -> tensor<6x5xf32> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x3x5xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<2x3x5xf16>) -> tensor<2x3x5xf16>
  %s = linalg.batch_matmul ins(%q, %k : tensor<2x3x4xf16>, tensor<2x4x5xf16>) outs(%z : tensor<2x3x5xf16>) -> tensor<2x3x5xf16>
  %sf = tensor.collapse_shape %s [[0, 1], [2]] : tensor<2x3x5xf16> into tensor<6x5xf16>
  %e2 = tensor.empty() : tensor<6x5xf32>
  %c = linalg.map { arith.extf } ins(%sf : tensor<6x5xf16>) outs(%e2 : tensor<6x5xf32>)
  return %c : tensor<6x5xf32>
}

// -----

// Dynamic expands of one value with the same groups may differ in their
// sizes (`output_shape`): both stay.
// CHECK-LABEL: func.func @dynamic_expands_stay_apart
// CHECK: %[[A:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [%arg1, %arg2]
// CHECK: %[[B:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [%arg2, %arg1]
// CHECK: return %[[A]], %[[B]]
func.func @dynamic_expands_stay_apart(%x: tensor<?xf32>, %a: index, %b: index) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %p = tensor.expand_shape %x [[0, 1]] output_shape [%a, %b] : tensor<?xf32> into tensor<?x?xf32>
  %q = tensor.expand_shape %x [[0, 1]] output_shape [%b, %a] : tensor<?xf32> into tensor<?x?xf32>
  return %p, %q : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A batch of one, [1, seq, hidden] (a decode step as torch-mlir emits it):
// the linear layers collapse only a size-1 dim into the rows, and the
// normalization and the residual add move onto the rows as for a larger
// batch. The add reads both operands as rows and is expanded after: read
// past the size-1 dim by numpy broadcasting, the add had one 3-D operand,
// and the search cut the program at the mixed ranks (3 launches, not 1).
// (Size-1 dims before the innermost dim, as a reduction over dim 0 keeps
// them, are not rows: see @mean_by_division.)
// CHECK-LABEL: func.func @batch_of_one_rows
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<1x8x16xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<16x16xf32>)
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %[[F]] : tensor<8x16xf32>
// CHECK-NEXT: %[[M:.*]] = kernel.matmul %[[N]], %[[W]] : tensor<8x16xf32>, tensor<16x16xf32>
// CHECK-NEXT: %[[A:.*]] = kernel.add %[[F]], %[[M]] : tensor<8x16xf32>, tensor<8x16xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [1, 8, 16]
// CHECK-NEXT: return %[[E]]
func.func @batch_of_one_rows(%x: tensor<1x8x16xf32>, %w: tensor<16x16xf32>) -> tensor<1x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %n = kernel.rms_norm %x : tensor<1x8x16xf32>
  %nf = tensor.collapse_shape %n [[0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %d = linalg.matmul ins(%nf, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %d3 = tensor.expand_shape %d [[0, 1], [2]] output_shape [1, 8, 16] : tensor<8x16xf32> into tensor<1x8x16xf32>
  %e0 = tensor.empty() : tensor<1x8x16xf32>
  %o = linalg.add ins(%x, %d3 : tensor<1x8x16xf32>, tensor<1x8x16xf32>) outs(%e0 : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  return %o : tensor<1x8x16xf32>
}

//===----------------------------------------------------------------------===//
// Causal masks: a select between a constant and a value by a comparison of
// two loop indices is kernel.triangle_fill
//===----------------------------------------------------------------------===//

// -----

// The fused form of torch's masked_fill(triu(ones, 1), -inf) on scaled
// scores: fill where j > i.
// CHECK-LABEL: func.func @causal_mask
// CHECK-NOT: linalg.
// CHECK: %[[S:.*]] = kernel.mul_scalar %{{.*}}, 1.250000e-01 : tensor<4x16x16xf32>
// CHECK: %[[M:.*]] = kernel.triangle_fill %[[S]] dims [1, 2] diagonal 1 value 0xFFF0000000000000 : tensor<4x16x16xf32>
// CHECK: return %[[M]]
func.func @causal_mask(%s: tensor<4x16x16xf32>) -> tensor<4x16x16xf32> {
  %e = tensor.empty() : tensor<4x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 1.250000e-01 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x16x16xf32>) outs(%e : tensor<4x16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %gt = arith.cmpi ugt, %j, %i : index
    %xs = arith.mulf %x, %c : f32
    %y = arith.select %gt, %ninf, %xs : f32
    linalg.yield %y : f32
  } -> tensor<4x16x16xf32>
  return %r : tensor<4x16x16xf32>
}

// -----

// Keeping j <= i + 3 (the value on the true side, i64 indices): the fill is
// the complement, j - i >= 4.
// CHECK-LABEL: func.func @keep_lower_band
// CHECK-NOT: linalg.
// CHECK: kernel.triangle_fill %{{.*}} dims [0, 1] diagonal 4 value -1.000000e+09 : tensor<16x32xf32>
func.func @keep_lower_band(%s: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %fill = arith.constant -1.0e9 : f32
  %c3 = arith.constant 3 : i64
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %ip = arith.addi %i64, %c3 : i64
    %le = arith.cmpi sle, %j64, %ip : i64
    %y = arith.select %le, %x, %fill : f32
    linalg.yield %y : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// A sliding window's lower edge, i - j >= 8, fills below the diagonal; the
// masked scores are then summed (a reduction's payload may mask too).
// CHECK-LABEL: func.func @masked_row_sum
// CHECK-NOT: linalg.
// CHECK: %[[M:.*]] = kernel.triangle_fill %{{.*}} dims [1, 0] diagonal 8 value 0.000000e+00 : tensor<16x16xf32>
// CHECK: kernel.reduce_sum %[[M]] dim 1
func.func @masked_row_sum(%s: tensor<16x16xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<16x16xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %d = arith.subi %i, %j : index
    %c8 = arith.constant 8 : index
    %far = arith.cmpi sge, %d, %c8 : index
    %y = arith.select %far, %zero, %x : f32
    %s2 = arith.addf %y, %acc : f32
    linalg.yield %s2 : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Not a triangle: j > 2 i, and a band (two comparisons). Both stay.
// CHECK-LABEL: func.func @not_triangles
// CHECK-NOT: kernel.
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: linalg.generic
// CHECK: arith.andi
func.func @not_triangles(%s: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %e = tensor.empty() : tensor<16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %c2 = arith.constant 2 : index
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i2 = arith.muli %i, %c2 : index
    %gt = arith.cmpi sgt, %j, %i2 : index
    %y = arith.select %gt, %ninf, %x : f32
    linalg.yield %y : f32
  } -> tensor<16x16xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %gt = arith.cmpi sgt, %j, %i : index
    %i2 = arith.addi %i, %c2 : index
    %lt = arith.cmpi slt, %j, %i2 : index
    %band = arith.andi %gt, %lt : i1
    %y = arith.select %band, %ninf, %x : f32
    linalg.yield %y : f32
  } -> tensor<16x16xf32>
  return %r, %b : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// torch-mlir's f16 masked softmax numerator computed in f32: the mask is
// outlined with the computation the truncation rounds (its linalg.index
// ops go with it), then imported in f32.
// CHECK-LABEL: func.func @masked_exp_in_f32
// CHECK-NOT: linalg.
// CHECK: %[[W:.*]] = kernel.convert %{{.*}} : tensor<4x16x16xf16> to tensor<4x16x16xf32>
// CHECK: %[[S:.*]] = kernel.mul_scalar %[[W]], 1.250000e-01 : tensor<4x16x16xf32>
// CHECK: %[[M:.*]] = kernel.triangle_fill %[[S]] dims [1, 2] diagonal 1 value 0xFFF0000000000000 : tensor<4x16x16xf32>
// CHECK: %[[E:.*]] = kernel.exp %[[M]]
// CHECK: kernel.convert %[[E]] : tensor<4x16x16xf32> to tensor<4x16x16xf16>
func.func @masked_exp_in_f32(%s: tensor<4x16x16xf16>) -> tensor<4x16x16xf16> {
  %e = tensor.empty() : tensor<4x16x16xf16>
  %ninf = arith.constant 0xFF800000 : f32
  %sc = arith.constant 1.250000e-01 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x16x16xf16>) outs(%e : tensor<4x16x16xf16>) {
  ^bb0(%x: f16, %o: f16):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c = arith.cmpi ugt, %j, %i : index
    %xf = arith.extf %x : f16 to f32
    %xs = arith.mulf %xf, %sc : f32
    %y = arith.select %c, %ninf, %xs : f32
    %ex = math.exp %y : f32
    %t = arith.truncf %ex : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x16x16xf16>
  return %r : tensor<4x16x16xf16>
}

// -----

// A decode step: one query at position 300 (its loop has extent 1, so
// canonicalization folds its index to 0 and the payload compares j with
// a constant) sees keys j <= 300: the triangle over the unit loop and j.
// CHECK-LABEL: func.func @decode_mask
// CHECK-NOT: linalg.
// CHECK: kernel.triangle_fill %{{.*}} dims [1, 2] diagonal 301 value 0xFFF0000000000000 : tensor<8x1x512xf32>
func.func @decode_mask(%x: tensor<8x1x512xf32>) -> tensor<8x1x512xf32> {
  %fill = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %c300 = arith.constant 300 : index
  %e = tensor.empty() : tensor<8x1x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x1x512xf32>) outs(%e : tensor<8x1x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %scale : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %p = arith.addi %i, %c300 : index
    %c = arith.cmpi ugt, %j, %p : index
    %y = arith.select %c, %fill, %s : f32
    linalg.yield %y : f32
  } -> tensor<8x1x512xf32>
  return %r : tensor<8x1x512xf32>
}

// -----

// Comparisons that wrap around their integer type are no triangles: i + 2^31
// - 1 in i32 wraps for i >= 1, and an i8 index of a dim of 300 wraps at 128.
// Both stay as they are.
// CHECK-LABEL: func.func @wrapping_indices
// CHECK-NOT: kernel.
// CHECK: linalg.generic
// CHECK: arith.cmpi sgt
// CHECK: linalg.generic
// CHECK: arith.cmpi sgt
func.func @wrapping_indices(%x: tensor<4x4xf32>, %y: tensor<4x300xf32>) -> (tensor<4x4xf32>, tensor<4x300xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ic = arith.index_cast %i : index to i32
    %jc = arith.index_cast %j : index to i32
    %big = arith.constant 2147483647 : i32
    %p = arith.addi %ic, %big : i32
    %c = arith.cmpi sgt, %jc, %p : i32
    %s = arith.select %c, %zero, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %e2 = tensor.empty() : tensor<4x300xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x300xf32>) outs(%e2 : tensor<4x300xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %one = arith.constant 1 : i8
    %ic = arith.index_cast %i : index to i8
    %jc = arith.index_cast %j : index to i8
    %ip = arith.addi %ic, %one : i8
    %c = arith.cmpi sgt, %jc, %ip : i8
    %s = arith.select %c, %zero, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x300xf32>
  return %r, %r2 : tensor<4x4xf32>, tensor<4x300xf32>
}

// -----

// torch's 4-D scores: the batch matmul's [b h, s, s] expanded to
// [b, h, s, s], masked, collapsed back. The mask moves before the expand
// (its dims are groups of their own), and the reshapes meeting around it
// fold: the mask reads the matmul's result.
// CHECK-LABEL: func.func @mask_of_expanded_scores
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[M:.*]] = kernel.triangle_fill %arg0 dims [1, 2] diagonal 1 value 0xFFF0000000000000 : tensor<16x64x64xf32>
// CHECK-NOT: tensor.collapse_shape
// CHECK: return %[[M]]
func.func @mask_of_expanded_scores(%s: tensor<16x64x64xf32>) -> tensor<16x64x64xf32> {
  %x = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 8, 64, 64] : tensor<16x64x64xf32> into tensor<2x8x64x64xf32>
  %m = kernel.triangle_fill %x dims [2, 3] diagonal 1 value 0xFFF0000000000000 : tensor<2x8x64x64xf32>
  %c = tensor.collapse_shape %m [[0, 1], [2], [3]] : tensor<2x8x64x64xf32> into tensor<16x64x64xf32>
  return %c : tensor<16x64x64xf32>
}

// -----

// A reshape that merges a dim of the mask with another keeps the mask after
// it.
// CHECK-LABEL: func.func @mask_of_merged_dims
// CHECK: tensor.collapse_shape
// CHECK: kernel.triangle_fill %{{.*}} dims [0, 1] diagonal 1
func.func @mask_of_merged_dims(%s: tensor<4x16x64xf32>) -> tensor<64x64xf32> {
  %c = tensor.collapse_shape %s [[0, 1], [2]] : tensor<4x16x64xf32> into tensor<64x64xf32>
  %m = kernel.triangle_fill %c dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// A batch of one: the row maximum of [1, 16, 32] scores, [1, 16], read back
// through (b, i). The reshapes between the reduction and its reader compose
// into one, which the subtraction sees through: it reads the [1, 16, 1]
// maximum, and no reshape is left to cut the program.
// CHECK-LABEL: func.func @batch_one_row_max
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[M:.*]] = kernel.reduce_max %arg0 dim 2 : tensor<1x16x32xf32>
// CHECK: kernel.sub %arg0, %[[M]] : tensor<1x16x32xf32>, tensor<1x16x1xf32>
func.func @batch_one_row_max(%s: tensor<1x16x32xf32>) -> tensor<1x16x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %m0 = tensor.empty() : tensor<1x16xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x16xf32>) -> tensor<1x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<1x16x32xf32>) outs(%mf : tensor<1x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<1x16xf32>
  %e = tensor.empty() : tensor<1x16x32xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mx : tensor<1x16x32xf32>, tensor<1x16xf32>) outs(%e : tensor<1x16x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %y = arith.subf %a, %m : f32
    linalg.yield %y : f32
  } -> tensor<1x16x32xf32>
  return %d : tensor<1x16x32xf32>
}

// -----

// A sliding window of 8 with its causal edge (Mistral's): keep j <= i and
// j > i - 8, fill the rest, which is two triangles: j - i >= 1 and
// i - j >= 8. Written as the kept band (andi, fill on the false side) and
// as the filled union (ori, through an xori negation).
// CHECK-LABEL: func.func @sliding_window
// CHECK-NOT: linalg.
// CHECK: %[[A:.*]] = kernel.triangle_fill %arg0 dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<32x32xf32>
// CHECK: kernel.triangle_fill %[[A]] dims [1, 0] diagonal 8 value 0xFFF0000000000000 : tensor<32x32xf32>
// CHECK: %[[B:.*]] = kernel.triangle_fill %arg0 dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<32x32xf32>
// CHECK: kernel.triangle_fill %[[B]] dims [1, 0] diagonal 8 value 0xFFF0000000000000 : tensor<32x32xf32>
func.func @sliding_window(%s: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %e = tensor.empty() : tensor<32x32xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %c8 = arith.constant 8 : index
  %true = arith.constant true
  %kept = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %past = arith.cmpi ule, %j, %i : index
    %j8 = arith.addi %j, %c8 : index
    %near = arith.cmpi ugt, %j8, %i : index
    %keep = arith.andi %past, %near : i1
    %y = arith.select %keep, %x, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  %filled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %future = arith.cmpi ugt, %j, %i : index
    %j8 = arith.addi %j, %c8 : index
    %near = arith.cmpi ugt, %j8, %i : index
    %far = arith.xori %near, %true : i1
    %fill = arith.ori %future, %far : i1
    %y = arith.select %fill, %ninf, %x : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %kept, %filled : tensor<32x32xf32>, tensor<32x32xf32>
}

// -----

// torch's K^T of [b, h, s, d] keys: transposed [0, 1, 3, 2], then collapsed
// to [b h, d, s] for a batch matmul. The transpose moves under the collapse,
// onto the 3-D shape of the matmul, where the search loads K transposed in
// the matmul's kernel (on the 4-D shape it was a launch of its own).
// CHECK-LABEL: func.func @transpose_under_collapse
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x4x16x8xf32>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x4x16x8xf32>)
// CHECK-DAG: %[[QF:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
// CHECK-DAG: %[[KF:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
// CHECK: %[[KT:.*]] = kernel.transpose %[[KF]] [0, 2, 1] : tensor<8x16x8xf32>
// CHECK: kernel.matmul %[[QF]], %[[KT]] : tensor<8x16x8xf32>, tensor<8x8x16xf32>
func.func @transpose_under_collapse(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>) -> tensor<8x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%e : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %qf = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %ktf = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s = linalg.batch_matmul ins(%qf, %ktf : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%z : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  return %s : tensor<8x16x16xf32>
}

// -----

// A collapse that merges dims the transpose took from apart (the heads with
// the positions, [b, s, h, d] to [b, h, s, d] and [b h s, d]) is no view of
// the operand: the transpose stays before it.
// CHECK-LABEL: func.func @transpose_under_collapse_of_dims_apart
// CHECK: %[[T:.*]] = kernel.transpose %{{.*}} [0, 2, 1, 3] : tensor<2x16x4x8xf32>
// CHECK: tensor.collapse_shape %[[T]] {{\[\[}}0, 1, 2], [3]]
func.func @transpose_under_collapse_of_dims_apart(%x: tensor<2x16x4x8xf32>) -> tensor<128x8xf32> {
  %e = tensor.empty() : tensor<2x4x16x8xf32>
  %t = linalg.transpose ins(%x : tensor<2x16x4x8xf32>) outs(%e : tensor<2x4x16x8xf32>) permutation = [0, 2, 1, 3]
  %c = tensor.collapse_shape %t [[0, 1, 2], [3]] : tensor<2x4x16x8xf32> into tensor<128x8xf32>
  %r = math.exp %c : tensor<128x8xf32>
  return %r : tensor<128x8xf32>
}

// -----

// A decode step's gated MLP ([b, 1, n], one token per sequence): the gate
// and up projections are each expanded back to [2, 1, 1024], the silu's
// with the size-1 dim in another group, which no broadcasting reads past.
// The product computes on the projections' [2, 1024] and is expanded
// after: left on the 3-D shape between two expands, it was cut from the
// matmuls (3 launches, 1 now).
// CHECK-LABEL: func.func @decode_gated_product
// CHECK: %[[G:.*]] = kernel.matmul
// CHECK-NEXT: %[[U:.*]] = kernel.matmul
// CHECK-NEXT: %[[S:.*]] = kernel.silu %[[G]] : tensor<2x1024xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.mul %[[S]], %[[U]] : tensor<2x1024xf32>, tensor<2x1024xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[P]]
// CHECK-NEXT: return %[[E]] : tensor<2x1x1024xf32>
func.func @decode_gated_product(%x: tensor<2x1x512xf32>, %wg: tensor<512x1024xf32>, %wu: tensor<512x1024xf32>) -> tensor<2x1x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %xf = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x1x512xf32> into tensor<2x512xf32>
  %e = tensor.empty() : tensor<2x1024xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1024xf32>) -> tensor<2x1024xf32>
  %g = linalg.matmul ins(%xf, %wg : tensor<2x512xf32>, tensor<512x1024xf32>) outs(%z : tensor<2x1024xf32>) -> tensor<2x1024xf32>
  %u = linalg.matmul ins(%xf, %wu : tensor<2x512xf32>, tensor<512x1024xf32>) outs(%z : tensor<2x1024xf32>) -> tensor<2x1024xf32>
  %g3 = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 1, 1024] : tensor<2x1024xf32> into tensor<2x1x1024xf32>
  %u3 = tensor.expand_shape %u [[0, 1], [2]] output_shape [2, 1, 1024] : tensor<2x1024xf32> into tensor<2x1x1024xf32>
  %e3 = tensor.empty() : tensor<2x1x1024xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g3, %u3 : tensor<2x1x1024xf32>, tensor<2x1x1024xf32>) outs(%e3 : tensor<2x1x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.negf %a : f32
    %x1 = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %x1, %one : f32
    %s = arith.divf %a, %d : f32
    %y = arith.mulf %s, %b : f32
    linalg.yield %y : f32
  } -> tensor<2x1x1024xf32>
  return %p : tensor<2x1x1024xf32>
}

// -----

// A decode step's f16 RMSNorm computed in f32 before a linear layer, on
// [b, 1, hidden]: the collapse to rows rises past the conversions and the
// norm to the argument, so the norm, its gain and the matmul are on one
// shape (1 launch; on [2, 1, 64] between reshapes they were 3).
// CHECK-LABEL: func.func @decode_norm_rows
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x1x64xf16>
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x1x64xf16> into tensor<2x64xf16>
// CHECK-NEXT: %[[C:.*]] = kernel.convert %[[F]] : tensor<2x64xf16> to tensor<2x64xf32>
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %[[C]] : tensor<2x64xf32>
// CHECK-NEXT: %[[H:.*]] = kernel.convert %[[N]] : tensor<2x64xf32> to tensor<2x64xf16>
// CHECK-NEXT: %[[G:.*]] = kernel.mul %{{.*}}, %[[H]] : tensor<64xf16>, tensor<2x64xf16>
// CHECK-NEXT: %[[M:.*]] = kernel.matmul %[[G]], %{{.*}} : tensor<2x64xf16>, tensor<64x32xf16>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[M]]
// CHECK-NEXT: return %[[E]]
func.func @decode_norm_rows(%x: tensor<2x1x64xf16>, %g: tensor<64xf16>, %w: tensor<64x32xf16>) -> tensor<2x1x32xf16> {
  %zero = arith.constant 0.0 : f16
  %0 = kernel.convert %x : tensor<2x1x64xf16> to tensor<2x1x64xf32>
  %1 = kernel.rms_norm %0 : tensor<2x1x64xf32>
  %2 = kernel.convert %1 : tensor<2x1x64xf32> to tensor<2x1x64xf16>
  %3 = kernel.mul %g, %2 : tensor<64xf16>, tensor<2x1x64xf16>
  %f = tensor.collapse_shape %3 [[0, 1], [2]] : tensor<2x1x64xf16> into tensor<2x64xf16>
  %e = tensor.empty() : tensor<2x32xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<2x32xf16>) -> tensor<2x32xf16>
  %m = linalg.matmul ins(%f, %w : tensor<2x64xf16>, tensor<64x32xf16>) outs(%z : tensor<2x32xf16>) -> tensor<2x32xf16>
  %r = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 1, 32] : tensor<2x32xf16> into tensor<2x1x32xf16>
  return %r : tensor<2x1x32xf16>
}

// -----

// The same shapes from a sum over the sequence ([2, 8, 64] to [2, 1, 64]):
// the size-1 dim is the one the reduction kept, which linalg drops, not a
// token. The collapse is no collapse to rows and stays where the unit-dim
// patterns put it, after the ops on the sum.
// CHECK-LABEL: func.func @collapse_of_a_kept_reduced_dim
// CHECK: %[[S:.*]] = kernel.reduce_sum %{{.*}} dim 1 : tensor<2x8x64xf32>
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[S]] : tensor<2x1x64xf32>
// CHECK-NEXT: tensor.collapse_shape %[[E]] {{\[\[}}0, 1], [2]] : tensor<2x1x64xf32> into tensor<2x64xf32>
func.func @collapse_of_a_kept_reduced_dim(%x: tensor<2x8x64xf32>, %w: tensor<64x32xf32>) -> tensor<2x32xf32> {
  %zero = arith.constant 0.0 : f32
  %s = kernel.reduce_sum %x dim 1 : tensor<2x8x64xf32>
  %x1 = kernel.exp %s : tensor<2x1x64xf32>
  %f = tensor.collapse_shape %x1 [[0, 1], [2]] : tensor<2x1x64xf32> into tensor<2x64xf32>
  %e = tensor.empty() : tensor<2x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32xf32>) -> tensor<2x32xf32>
  %m = linalg.matmul ins(%f, %w : tensor<2x64xf32>, tensor<64x32xf32>) outs(%z : tensor<2x32xf32>) -> tensor<2x32xf32>
  return %m : tensor<2x32xf32>
}

// -----

// x * sigmoid(x w) on [b, s, hidden]: the gate, a [b s, 1] column expanded
// to [b, s, 1], broadcasts along the hidden dim of x. The product computes
// on the rows, reading x collapsed as the matmul does (one load of x for
// both), and is expanded after: on the 3-D shape it was a second launch.
// CHECK-LABEL: func.func @row_gate_broadcast
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x8x16xf32>
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
// CHECK-NEXT: %[[M:.*]] = kernel.matmul %[[F]], %{{.*}} : tensor<16x16xf32>, tensor<16x1xf32>
// CHECK-NEXT: %[[G:.*]] = kernel.sigmoid %[[M]] : tensor<16x1xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.mul %[[F]], %[[G]] : tensor<16x16xf32>, tensor<16x1xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]] output_shape [2, 8, 16]
// CHECK-NEXT: return %[[E]]
func.func @row_gate_broadcast(%x: tensor<2x8x16xf32>, %w: tensor<16x1xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %xf = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
  %e = tensor.empty() : tensor<16x1xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x1xf32>) -> tensor<16x1xf32>
  %m = linalg.matmul ins(%xf, %w : tensor<16x16xf32>, tensor<16x1xf32>) outs(%z : tensor<16x1xf32>) -> tensor<16x1xf32>
  %g = kernel.sigmoid %m : tensor<16x1xf32>
  %g3 = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 8, 1] : tensor<16x1xf32> into tensor<2x8x1xf32>
  %p = kernel.mul %x, %g3 : tensor<2x8x16xf32>, tensor<2x8x1xf32>
  return %p : tensor<2x8x16xf32>
}

// -----

// A bf16 init written as the f32 constant truncated (arith.truncf folds
// only later) is the identity of the max as much as a bf16 constant is.
// CHECK-LABEL: func.func @max_init_truncated
// CHECK-NEXT: %[[M:.*]] = kernel.reduce_max %arg0 dim 1 : tensor<4x64xbf16>
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[M]]
// CHECK-NEXT: return %[[C]]
func.func @max_init_truncated(%x: tensor<4x64xbf16>) -> tensor<4xbf16> {
  %ninf32 = arith.constant 0xFF800000 : f32
  %ninf = arith.truncf %ninf32 : f32 to bf16
  %e = tensor.empty() : tensor<4xbf16>
  %f = linalg.fill ins(%ninf : bf16) outs(%e : tensor<4xbf16>) -> tensor<4xbf16>
  %m = linalg.reduce ins(%x : tensor<4x64xbf16>) outs(%f : tensor<4xbf16>) dimensions = [1]
    (%a: bf16, %o: bf16) {
      %y = arith.maximumf %a, %o : bf16
      linalg.yield %y : bf16
    }
  return %m : tensor<4xbf16>
}

// -----

// A decode step: one token of a batch of one, [1, 1, 64]. Its row sums come
// back from [1, 1, 1] to [1, 1] as [[0], [1, 2]], which read as dropping a
// reduced dim and kept the norm on the 3-D shape, fenced off the linear
// layer's rows by reshapes (2 kernels); as one row, the whole RMSNorm
// moves onto the rows the matmul reads.
// CHECK-LABEL: func.func @decode_step_rmsnorm_linear
// CHECK-NEXT: %[[ROW:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<1x1x64xf32> into tensor<1x64xf32>
// CHECK-NEXT: %[[SQ:.*]] = kernel.square %[[ROW]] : tensor<1x64xf32>
// CHECK-NEXT: kernel.reduce_sum %[[SQ]] dim 1 : tensor<1x64xf32>
// CHECK-NOT: tensor.collapse_shape
// CHECK: kernel.matmul {{.*}} : tensor<1x64xf32>, tensor<64x96xf32>
// CHECK-NEXT: tensor.expand_shape
// CHECK-NEXT: return
#dsid = affine_map<(b, i, j) -> (b, i, j)>
#dsred = affine_map<(b, i, j) -> (b, i)>
#dsg = affine_map<(b, i, j) -> (j)>
func.func @decode_step_rmsnorm_linear(%x: tensor<1x1x64xf32>, %gain: tensor<64xf32>, %w: tensor<64x96xf32>) -> tensor<1x1x96xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<1x1xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x1xf32>) -> tensor<1x1xf32>
  %ss = linalg.generic {indexing_maps = [#dsid, #dsred], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<1x1x64xf32>) outs(%zs : tensor<1x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<1x1xf32>
  %e0 = tensor.empty() : tensor<1x1x64xf32>
  %n = linalg.generic {indexing_maps = [#dsid, #dsred, #dsg, #dsid], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %ss, %gain : tensor<1x1x64xf32>, tensor<1x1xf32>, tensor<64xf32>) outs(%e0 : tensor<1x1x64xf32>) {
  ^bb0(%a: f32, %s: f32, %gg: f32, %o: f32):
    %c64 = arith.constant 64.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %m = arith.divf %s, %c64 : f32
    %me = arith.addf %m, %eps : f32
    %rs = math.rsqrt %me : f32
    %y = arith.mulf %a, %rs : f32
    %yg = arith.mulf %y, %gg : f32
    linalg.yield %yg : f32
  } -> tensor<1x1x64xf32>
  %nf = tensor.collapse_shape %n [[0, 1], [2]] : tensor<1x1x64xf32> into tensor<1x64xf32>
  %e1 = tensor.empty() : tensor<1x96xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x96xf32>) -> tensor<1x96xf32>
  %m1 = linalg.matmul ins(%nf, %w : tensor<1x64xf32>, tensor<64x96xf32>) outs(%z1 : tensor<1x96xf32>) -> tensor<1x96xf32>
  %out = tensor.expand_shape %m1 [[0, 1], [2]] output_shape [1, 1, 96] : tensor<1x96xf32> into tensor<1x1x96xf32>
  return %out : tensor<1x1x96xf32>
}

// -----

// Multi-query attention's K^T as torch-mlir writes it: the one K head
// broadcast to every query head, then transposed. The transpose of the
// broadcast is the broadcast of the transposed head, which the contraction
// reads in place: one matmul of the query rows, no copy of K per head.
// CHECK-LABEL: func.func @mqa_scores_broadcast_then_transpose
// CHECK-NEXT: %[[KT:.*]] = kernel.transpose %arg1 [1, 0] : tensor<40x64xf32>
// CHECK-NEXT: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<8x16x64xf32> into tensor<128x64xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.matmul %[[ROWS]], %[[KT]] : tensor<128x64xf32>, tensor<64x40xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[S]]
// CHECK-NEXT: return %[[E]]
func.func @mqa_scores_broadcast_then_transpose(%q: tensor<8x16x64xf32>, %k: tensor<40x64xf32>) -> tensor<8x16x40xf32> {
  %zero = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<8x40x64xf32>
  %kb = linalg.broadcast ins(%k : tensor<40x64xf32>) outs(%eb : tensor<8x40x64xf32>) dimensions = [0]
  %et = tensor.empty() : tensor<8x64x40xf32>
  %kt = linalg.transpose ins(%kb : tensor<8x40x64xf32>) outs(%et : tensor<8x64x40xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<8x16x40xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x16x40xf32>) -> tensor<8x16x40xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x16x64xf32>, tensor<8x64x40xf32>) outs(%zs : tensor<8x16x40xf32>) -> tensor<8x16x40xf32>
  return %s : tensor<8x16x40xf32>
}

// -----

// The same K^T with K expanded as torch-mlir's aten.expand writes it: a
// linalg.generic copy that reads the size-1 head dim at index 0. The
// transpose is imported before the copy becomes a linalg.broadcast, so the
// kernel.transpose of the broadcast is swapped as the linalg.transpose is
// (it was a copy of K to every head, a launch of its own).
// CHECK-LABEL: func.func @mqa_scores_expand_then_transpose
// CHECK: %[[K:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2]] : tensor<1x40x64xf32> into tensor<40x64xf32>
// CHECK-NEXT: %[[KT:.*]] = kernel.transpose %[[K]] [1, 0] : tensor<40x64xf32>
// CHECK-NEXT: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<8x16x64xf32> into tensor<128x64xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.matmul %[[ROWS]], %[[KT]] : tensor<128x64xf32>, tensor<64x40xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[S]]
// CHECK-NEXT: return %[[E]]
func.func @mqa_scores_expand_then_transpose(%q: tensor<8x16x64xf32>, %k: tensor<1x40x64xf32>) -> tensor<8x16x40xf32> {
  %zero = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<8x40x64xf32>
  %kb = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (0, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x40x64xf32>) outs(%eb : tensor<8x40x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x40x64xf32>
  %et = tensor.empty() : tensor<8x64x40xf32>
  %kt = linalg.transpose ins(%kb : tensor<8x40x64xf32>) outs(%et : tensor<8x64x40xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<8x16x40xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x16x40xf32>) -> tensor<8x16x40xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x16x64xf32>, tensor<8x64x40xf32>) outs(%zs : tensor<8x16x40xf32>) -> tensor<8x16x40xf32>
  return %s : tensor<8x16x40xf32>
}

// -----

// A broadcast along a middle dim, transposed so that the added dim moves:
// the same swap, the added dim where the transpose puts it.
// CHECK-LABEL: func.func @transpose_of_middle_broadcast
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<6x4x3xf32>
// CHECK-NEXT: %[[T:.*]] = kernel.transpose %arg0 [1, 0] : tensor<3x6xf32>
// CHECK-NEXT: %[[B:.*]] = linalg.broadcast ins(%[[T]] : tensor<6x3xf32>) outs(%[[E]] : tensor<6x4x3xf32>) dimensions = [1]
// CHECK-NEXT: return %[[B]]
func.func @transpose_of_middle_broadcast(%x: tensor<3x6xf32>) -> tensor<6x4x3xf32> {
  %eb = tensor.empty() : tensor<3x4x6xf32>
  %b = linalg.broadcast ins(%x : tensor<3x6xf32>) outs(%eb : tensor<3x4x6xf32>) dimensions = [1]
  %et = tensor.empty() : tensor<6x4x3xf32>
  %t = linalg.transpose ins(%b : tensor<3x4x6xf32>) outs(%et : tensor<6x4x3xf32>) permutation = [2, 1, 0]
  return %t : tensor<6x4x3xf32>
}

// -----

// arith and math ops on whole tensors are elementwise generics: they import
// as kernel ops (they stayed, and the CPU pipeline could not bufferize
// them). A comparison, whose i1 result no kernel op has, stays a generic.
// CHECK-LABEL: func.func @arith_on_tensors
// CHECK-NEXT: %[[S:.*]] = kernel.add %arg0, %arg1 : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[S]] : tensor<4x8xf32>
// CHECK-NEXT: %[[M:.*]] = kernel.max %[[E]], %arg0 : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: linalg.generic
// CHECK: arith.cmpf ogt
// CHECK-NOT: arith.{{.*}} : tensor
func.func @arith_on_tensors(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  %s = arith.addf %a, %b : tensor<4x8xf32>
  %e = math.exp %s : tensor<4x8xf32>
  %m = arith.maximumf %e, %a : tensor<4x8xf32>
  %c = arith.cmpf ogt, %m, %b : tensor<4x8xf32>
  return %m, %c : tensor<4x8xf32>, tensor<4x8xi1>
}

// -----

// torch's reciprocal (x.pow(-1), as torch-mlir writes it with an f64 or an
// integer exponent): 1 / x, a splat constant divided by x, exact. It
// stayed linalg ("a power with no kernel op").
// CHECK-LABEL: func.func @reciprocal
// CHECK-NOT: linalg.
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT: %[[R:.*]] = kernel.div %[[ONE]], %arg0 : tensor<1x1xf32>, tensor<8x64xf32>
// CHECK: %[[ONEH:.*]] = arith.constant dense<1.000000e+00> : tensor<1x1xf16>
// CHECK-NEXT: %[[RH:.*]] = kernel.div %[[ONEH]], %arg1 : tensor<1x1xf16>, tensor<8x64xf16>
// CHECK-NEXT: return %[[R]], %[[RH]]
func.func @reciprocal(%x: tensor<8x64xf32>, %y: tensor<8x64xf16>) -> (tensor<8x64xf32>, tensor<8x64xf16>) {
  %m1 = arith.constant -1.000000e+00 : f32
  %m1i = arith.constant -1 : i32
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = math.powf %in, %m1 : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  %eh = tensor.empty() : tensor<8x64xf16>
  %rh = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x64xf16>) outs(%eh : tensor<8x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %q = math.fpowi %in, %m1i : f16, i32
    linalg.yield %q : f16
  } -> tensor<8x64xf16>
  return %r, %rh : tensor<8x64xf32>, tensor<8x64xf16>
}

// -----

// Floats a payload converts from integers of the loop indices alone become
// a constant over the loops they read: ALiBi's slope * float(j - i) (the
// heads' loop is not read: a 3 x 4 table), and a T5-style relative
// position clamped to [-2, 2] and halved by a floor division (a 4-element
// table over j alone, from a constant defined outside the payload).
// CHECK-LABEL: func.func @index_tables
// CHECK-NOT: linalg.
// CHECK-DAG: %[[ALIBI:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [-1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00], [-2.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<3x4xf32>
// CHECK-DAG: %[[REL:.*]] = arith.constant dense<[-1.000000e+00, -1.000000e+00, -1.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-DAG: kernel.mul %{{.*}}, %[[ALIBI]]
// CHECK-DAG: kernel.add %{{.*}}, %[[REL]]
func.func @index_tables(%s: tensor<2x3x4xf32>, %slopes: tensor<2xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %e = tensor.empty() : tensor<2x3x4xf32>
  %alibi = linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>, affine_map<(h, i, j) -> (h)>, affine_map<(h, i, j) -> (h, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %slopes : tensor<2x3x4xf32>, tensor<2xf32>) outs(%e : tensor<2x3x4xf32>) {
  ^bb0(%x: f32, %m: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %b = arith.mulf %m, %df : f32
    %y = arith.addf %x, %b : f32
    linalg.yield %y : f32
  } -> tensor<2x3x4xf32>
  %c2 = arith.constant 2 : i32
  %rel = linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>, affine_map<(h, i, j) -> (h, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x4xf32>) outs(%e : tensor<2x3x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %j = linalg.index 2 : index
    %ji = arith.index_cast %j : index to i32
    %c3 = arith.constant 3 : i32
    %m2 = arith.constant -2 : i32
    %d = arith.subi %ji, %c3 : i32
    %lo = arith.maxsi %d, %m2 : i32
    %hi = arith.minsi %lo, %c2 : i32
    %q = arith.floordivsi %hi, %c2 : i32
    %qf = arith.sitofp %q : i32 to f32
    %y = arith.addf %x, %qf : f32
    linalg.yield %y : f32
  } -> tensor<2x3x4xf32>
  return %alibi, %rel : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// Left as it is: the integers come from an input, not from the indices.
// CHECK-LABEL: func.func @integers_from_an_input
// CHECK: linalg.generic
// CHECK: arith.sitofp
func.func @integers_from_an_input(%s: tensor<3x4xf32>, %n: tensor<3x4xi32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s, %n : tensor<3x4xf32>, tensor<3x4xi32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%x: f32, %k: i32, %o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %t = arith.addi %k, %ji : i32
    %f = arith.sitofp %t : i32 to f32
    %y = arith.addf %x, %f : f32
    linalg.yield %y : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// Row statistics collapsed to linalg's [32]: the difference of one and a
// scale of the other is computed on the reductions' [32, 1], the
// collapse after it. The op reads the other operand expanded, which it
// does not then read past (that ping-ponged forever: an f16 LayerNorm with
// its statistics in f32 hung the import).
// CHECK-LABEL: func.func @row_statistics
// CHECK: %[[A:.*]] = kernel.reduce_sum %{{.*}} dim 1 : tensor<32x256xf32>
// CHECK: %[[B:.*]] = kernel.reduce_sum %{{.*}} dim 1 : tensor<32x256xf32>
// CHECK: %[[S:.*]] = kernel.mul_scalar %[[A]], 5.000000e-01 : tensor<32x1xf32>
// CHECK: %[[D:.*]] = kernel.sub %[[B]], %[[S]] : tensor<32x1xf32>, tensor<32x1xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1]]
// CHECK: return %[[R]]
func.func @row_statistics(%x: tensor<32x256xf32>) -> tensor<32xf32> {
  %a = kernel.reduce_sum %x dim 1 : tensor<32x256xf32>
  %sq = kernel.square %x : tensor<32x256xf32>
  %b = kernel.reduce_sum %sq dim 1 : tensor<32x256xf32>
  %ca = tensor.collapse_shape %a [[0, 1]] : tensor<32x1xf32> into tensor<32xf32>
  %cb = tensor.collapse_shape %b [[0, 1]] : tensor<32x1xf32> into tensor<32xf32>
  %y = kernel.mul_scalar %ca, 0.5 : tensor<32xf32>
  %r = kernel.sub %cb, %y : tensor<32xf32>, tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// A mean over rows of per-row values that a reduction kept as [32, 1] and
// linalg reads as [32] (a cross-entropy's loss): the sum reduces the
// [32, 1] values along the same dim, and the collapse comes after it, so
// that none stands between two kernel ops.
// CHECK-LABEL: func.func @mean_of_rows
// CHECK: %[[R:.*]] = kernel.reduce_max %{{.*}} dim 1 : tensor<32x256xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.reduce_sum %[[R]] dim 0 : tensor<32x1xf32>
// CHECK-NEXT: %[[M:.*]] = kernel.mul_scalar %[[S]], 3.125000e-02 : tensor<1x1xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[M]] {{\[\[}}0, 1]] : tensor<1x1xf32> into tensor<1xf32>
// CHECK-NEXT: return %[[C]]
func.func @mean_of_rows(%x: tensor<32x256xf32>) -> tensor<1xf32> {
  %r = kernel.reduce_max %x dim 1 : tensor<32x256xf32>
  %c = tensor.collapse_shape %r [[0, 1]] : tensor<32x1xf32> into tensor<32xf32>
  %s = kernel.reduce_sum %c dim 0 : tensor<32xf32>
  %m = kernel.mul_scalar %s, 3.125000e-02 : tensor<1xf32>
  return %m : tensor<1xf32>
}

// -----

// math.fma is a product and a sum (within an ulp of the fused result);
// torch.fmax and torch.fmin (maxnumf, minnumf) are max and min, which differ
// only where an operand is NaN, and max_scalar / relu with a constant.
// CHECK-LABEL: func.func @fma_and_number_max
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK: %[[P:.*]] = kernel.mul %[[X]], %[[Y]]
// CHECK: %[[F:.*]] = kernel.add %[[P]], %[[Y]]
// CHECK: %[[S:.*]] = kernel.mul_scalar %[[X]], 5.000000e-01
// CHECK: %[[G:.*]] = kernel.add_scalar %[[S]], 1.000000e+00
// CHECK: %[[M:.*]] = kernel.max %[[X]], %[[Y]]
// CHECK: %[[R:.*]] = kernel.relu %[[X]]
// CHECK: %[[N:.*]] = kernel.min_scalar %[[X]], 6.000000e+00
// CHECK-NOT: linalg.
// CHECK: return %[[F]], %[[G]], %[[M]], %[[R]], %[[N]]
#idf = affine_map<(i, j) -> (i, j)>
func.func @fma_and_number_max(%x: tensor<8x64xf32>, %y: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %f = linalg.generic {indexing_maps = [#idf, #idf, #idf], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = math.fma %a, %b, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %g = linalg.generic {indexing_maps = [#idf, #idf], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.fma %a, %half, %one : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %m = linalg.generic {indexing_maps = [#idf, #idf, #idf], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.maxnumf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [#idf, #idf], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maxnumf %a, %zero : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  %n = linalg.generic {indexing_maps = [#idf, #idf], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.minnumf %a, %six : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %f, %g, %m, %r, %n : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// torch.log2 and torch.log10: log(x) scaled by 1 / ln 2 and 1 / ln 10.
// CHECK-LABEL: func.func @log_bases
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>)
// CHECK: %[[L:.*]] = kernel.log %[[X]]
// CHECK: %[[B2:.*]] = kernel.mul_scalar %[[L]], 1.4426950408889634
// CHECK: %[[M:.*]] = kernel.log %[[X]]
// CHECK: %[[B10:.*]] = kernel.mul_scalar %[[M]], 0.43429448190325176
// CHECK-NOT: linalg.
// CHECK: return %[[B2]], %[[B10]]
#idl = affine_map<(i, j) -> (i, j)>
func.func @log_bases(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %l2 = linalg.generic {indexing_maps = [#idl, #idl], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.log2 %a : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %l10 = linalg.generic {indexing_maps = [#idl, #idl], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.log10 %a : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %l2, %l10 : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// A row sum started from a bias broadcast to every row (the generic copy
// torch-mlir writes for expand): the sum keeps its reduced dim, so the init
// is expanded to [8, 10, 1], and the broadcast moves behind that expand, where
// the add reads the bias itself, [10, 1], through numpy broadcasting.
// CHECK-LABEL: func.func @reduction_from_broadcast_bias
// CHECK-NOT: linalg.
// CHECK: %[[S:.*]] = kernel.reduce_sum %arg0 dim 2 : tensor<8x10x24xf32>
// CHECK: %[[B:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [10, 1] : tensor<10xf32> into tensor<10x1xf32>
// CHECK: kernel.add %[[B]], %[[S]] : tensor<10x1xf32>, tensor<8x10x1xf32>
// CHECK-NOT: linalg.
func.func @reduction_from_broadcast_bias(%x: tensor<8x10x24xf32>, %bias: tensor<10xf32>) -> tensor<8x10xf32> {
  %e = tensor.empty() : tensor<8x10xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(b, o) -> (o)>, affine_map<(b, o) -> (b, o)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<10xf32>) outs(%e : tensor<8x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x10xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(b, o, j) -> (b, o, j)>, affine_map<(b, o, j) -> (b, o)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<8x10x24xf32>) outs(%init : tensor<8x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8x10xf32>
  return %y : tensor<8x10xf32>
}

// -----

// A reduction of a broadcast along a dim the broadcast keeps reduces the
// input and is broadcast after; along the dim the broadcast adds it stays.
// An integer broadcast made float converts the input, then broadcasts the
// floats (no linalg op is left on integers).
// CHECK-LABEL: func.func @reduce_of_broadcast
// CHECK-SAME: (%[[R:[a-zA-Z0-9_]+]]: tensor<8xf32>, %[[M:[a-zA-Z0-9_]+]]: tensor<8xi32>)
// CHECK: %[[RB:.*]] = linalg.broadcast ins(%[[R]] : tensor<8xf32>) outs(%{{.*}} : tensor<8x64xf32>) dimensions = [1]
// CHECK: %[[S0:.*]] = kernel.reduce_sum %[[R]] dim 0 : tensor<8xf32>
// CHECK: %[[S0B:.*]] = linalg.broadcast ins(%[[S0]] : tensor<1xf32>) outs(%{{.*}} : tensor<1x64xf32>) dimensions = [1]
// CHECK: %[[C0:.*]] = tensor.collapse_shape %[[S0B]]
// CHECK: %[[S1:.*]] = kernel.reduce_sum %[[RB]] dim 1 : tensor<8x64xf32>
// CHECK: %[[C1:.*]] = tensor.collapse_shape %[[S1]]
// CHECK: %[[F:.*]] = kernel.int_to_float %[[M]] : tensor<8xi32> to tensor<8xf32>
// CHECK: %[[FB:.*]] = linalg.broadcast ins(%[[F]] : tensor<8xf32>) outs(%{{.*}} : tensor<8x64xf32>) dimensions = [1]
// CHECK: return %[[C0]], %[[C1]], %[[FB]]
func.func @reduce_of_broadcast(%r: tensor<8xf32>, %m: tensor<8xi32>) -> (tensor<64xf32>, tensor<8xf32>, tensor<8x64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %rb = linalg.broadcast ins(%r : tensor<8xf32>) outs(%e : tensor<8x64xf32>) dimensions = [1]
  %e1 = tensor.empty() : tensor<64xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %s0 = linalg.reduce ins(%rb : tensor<8x64xf32>) outs(%z1 : tensor<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %e2 = tensor.empty() : tensor<8xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %s1 = linalg.reduce ins(%rb : tensor<8x64xf32>) outs(%z2 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %ei = tensor.empty() : tensor<8x64xi32>
  %mb = linalg.broadcast ins(%m : tensor<8xi32>) outs(%ei : tensor<8x64xi32>) dimensions = [1]
  %mf = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mb : tensor<8x64xi32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: i32, %o: f32):
    %f = arith.sitofp %a : i32 to f32
    linalg.yield %f : f32
  } -> tensor<8x64xf32>
  return %s0, %s1, %mf : tensor<64xf32>, tensor<8xf32>, tensor<8x64xf32>
}
