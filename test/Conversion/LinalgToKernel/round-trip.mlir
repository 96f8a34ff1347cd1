// RUN: mlsopt-opt %s --convert-kernel-to-linalg --convert-linalg-to-kernel --split-input-file | FileCheck %s

// --convert-kernel-to-linalg and back: every elementwise kernel op, the
// transposes, and the f32 matmuls and reductions come back as they were. A
// kernel op on f16 or bf16 is exported as an f32 computation between an
// extension and a truncation, which is that op again. What comes back
// otherwise is listed at the end.

// CHECK-LABEL: func.func @unary_f16
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[V0:.*]] = kernel.exp %[[X]] : tensor<8x64xf16>
// CHECK-NEXT: %[[V1:.*]] = kernel.log %[[X]]
// CHECK-NEXT: %[[V2:.*]] = kernel.sqrt %[[X]]
// CHECK-NEXT: %[[V3:.*]] = kernel.rsqrt %[[X]]
// CHECK-NEXT: %[[V4:.*]] = kernel.square %[[X]]
// CHECK-NEXT: %[[V5:.*]] = kernel.silu %[[X]]
// CHECK-NEXT: %[[V6:.*]] = kernel.sigmoid %[[X]]
// CHECK-NEXT: %[[V7:.*]] = kernel.gelu %[[X]]
// CHECK-NEXT: %[[V8:.*]] = kernel.relu %[[X]]
// CHECK-NEXT: %[[V9:.*]] = kernel.tanh %[[X]]
// CHECK-NEXT: %[[V10:.*]] = kernel.erf %[[X]]
// CHECK-NEXT: %[[V11:.*]] = kernel.neg %[[X]]
// CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]], %[[V8]], %[[V9]], %[[V10]], %[[V11]]
func.func @unary_f16(%x: tensor<8x64xf16>)
    -> (tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>,
        tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>,
        tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>) {
  %0 = kernel.exp %x : tensor<8x64xf16>
  %1 = kernel.log %x : tensor<8x64xf16>
  %2 = kernel.sqrt %x : tensor<8x64xf16>
  %3 = kernel.rsqrt %x : tensor<8x64xf16>
  %4 = kernel.square %x : tensor<8x64xf16>
  %5 = kernel.silu %x : tensor<8x64xf16>
  %6 = kernel.sigmoid %x : tensor<8x64xf16>
  %7 = kernel.gelu %x : tensor<8x64xf16>
  %8 = kernel.relu %x : tensor<8x64xf16>
  %9 = kernel.tanh %x : tensor<8x64xf16>
  %10 = kernel.erf %x : tensor<8x64xf16>
  %11 = kernel.neg %x : tensor<8x64xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>,
        tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>,
        tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>
}

// -----

// CHECK-LABEL: func.func @unary_f32_bf16
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x3x5xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<7xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[A:.*]] = kernel.gelu %[[X]] : tensor<2x3x5xf32>
// CHECK-NEXT: %[[B:.*]] = kernel.silu %[[X]] : tensor<2x3x5xf32>
// CHECK-NEXT: %[[C:.*]] = kernel.sigmoid %[[Y]] : tensor<7xbf16>
// CHECK-NEXT: %[[D:.*]] = kernel.relu %[[Y]] : tensor<7xbf16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @unary_f32_bf16(%x: tensor<2x3x5xf32>, %y: tensor<7xbf16>)
    -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<7xbf16>, tensor<7xbf16>) {
  %0 = kernel.gelu %x : tensor<2x3x5xf32>
  %1 = kernel.silu %x : tensor<2x3x5xf32>
  %2 = kernel.sigmoid %y : tensor<7xbf16>
  %3 = kernel.relu %y : tensor<7xbf16>
  return %0, %1, %2, %3 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<7xbf16>, tensor<7xbf16>
}

// -----

// CHECK-LABEL: func.func @binary_broadcast
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<8x1xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<1x64xf16>, %[[C:[a-zA-Z0-9_]+]]: tensor<64xbf16>, %[[D:[a-zA-Z0-9_]+]]: tensor<4x8x64xbf16>, %[[E:[a-zA-Z0-9_]+]]: tensor<1xf32>, %[[F:[a-zA-Z0-9_]+]]: tensor<2x1x3xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[V0:.*]] = kernel.add %[[A]], %[[B]] : tensor<8x1xf16>, tensor<1x64xf16>
// CHECK-NEXT: %[[V1:.*]] = kernel.sub %[[B]], %[[A]] : tensor<1x64xf16>, tensor<8x1xf16>
// CHECK-NEXT: %[[V2:.*]] = kernel.mul %[[C]], %[[D]] : tensor<64xbf16>, tensor<4x8x64xbf16>
// CHECK-NEXT: %[[V3:.*]] = kernel.div %[[D]], %[[C]] : tensor<4x8x64xbf16>, tensor<64xbf16>
// CHECK-NEXT: %[[V4:.*]] = kernel.add %[[E]], %[[F]] : tensor<1xf32>, tensor<2x1x3xf32>
// CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]]
func.func @binary_broadcast(%a: tensor<8x1xf16>, %b: tensor<1x64xf16>,
                            %c: tensor<64xbf16>, %d: tensor<4x8x64xbf16>,
                            %e: tensor<1xf32>, %f: tensor<2x1x3xf32>)
    -> (tensor<8x64xf16>, tensor<8x64xf16>, tensor<4x8x64xbf16>,
        tensor<4x8x64xbf16>, tensor<2x1x3xf32>) {
  %0 = kernel.add %a, %b : tensor<8x1xf16>, tensor<1x64xf16>
  %1 = kernel.sub %b, %a : tensor<1x64xf16>, tensor<8x1xf16>
  %2 = kernel.mul %c, %d : tensor<64xbf16>, tensor<4x8x64xbf16>
  %3 = kernel.div %d, %c : tensor<4x8x64xbf16>, tensor<64xbf16>
  %4 = kernel.add %e, %f : tensor<1xf32>, tensor<2x1x3xf32>
  return %0, %1, %2, %3, %4 : tensor<8x64xf16>, tensor<8x64xf16>,
      tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<2x1x3xf32>
}

// -----

// CHECK-LABEL: func.func @scalar_ops
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<3xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[A:.*]] = kernel.mul_scalar %[[X]], 1.250000e-01 : tensor<8x64xf16>
// CHECK-NEXT: %[[B:.*]] = kernel.add_scalar %[[X]], -1.000000e+00 : tensor<8x64xf16>
// CHECK-NEXT: %[[C:.*]] = kernel.mul_scalar %[[Y]], 3.000000e+00 : tensor<3xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
func.func @scalar_ops(%x: tensor<8x64xf16>, %y: tensor<3xf32>)
    -> (tensor<8x64xf16>, tensor<8x64xf16>, tensor<3xf32>) {
  %0 = kernel.mul_scalar %x, 1.250000e-01 : tensor<8x64xf16>
  %1 = kernel.add_scalar %x, -1.000000e+00 : tensor<8x64xf16>
  %2 = kernel.mul_scalar %y, 3.000000e+00 : tensor<3xf32>
  return %0, %1, %2 : tensor<8x64xf16>, tensor<8x64xf16>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<16x4096x64xf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<2x3x5x7xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[A:.*]] = kernel.transpose %[[X]] [0, 2, 1] : tensor<16x4096x64xf16>
// CHECK-NEXT: %[[B:.*]] = kernel.transpose %[[Y]] [3, 0, 2, 1] : tensor<2x3x5x7xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @transpose(%x: tensor<16x4096x64xf16>, %y: tensor<2x3x5x7xf32>)
    -> (tensor<16x64x4096xf16>, tensor<7x2x5x3xf32>) {
  %0 = kernel.transpose %x [0, 2, 1] : tensor<16x4096x64xf16>
  %1 = kernel.transpose %y [3, 0, 2, 1] : tensor<2x3x5x7xf32>
  return %0, %1 : tensor<16x64x4096xf16>, tensor<7x2x5x3xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_and_reductions_f32
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<64x96xf32>, %[[Q:[a-zA-Z0-9_]+]]: tensor<2x16x64xf32>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x64x32xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[M:.*]] = kernel.matmul %[[A]], %[[B]] : tensor<8x64xf32>, tensor<64x96xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.matmul %[[Q]], %[[K]] : tensor<2x16x64xf32>, tensor<2x64x32xf32>
// CHECK-NEXT: %[[SUM:.*]] = kernel.reduce_sum %[[M]] dim 1 : tensor<8x96xf32>
// CHECK-NEXT: %[[MAX:.*]] = kernel.reduce_max %[[S]] dim 2 : tensor<2x16x32xf32>
// CHECK-NEXT: return %[[SUM]], %[[MAX]] : tensor<8x1xf32>, tensor<2x16x1xf32>
func.func @matmul_and_reductions_f32(%a: tensor<8x64xf32>, %b: tensor<64x96xf32>,
                                     %q: tensor<2x16x64xf32>, %k: tensor<2x64x32xf32>)
    -> (tensor<8x1xf32>, tensor<2x16x1xf32>) {
  %m = kernel.matmul %a, %b : tensor<8x64xf32>, tensor<64x96xf32>
  %s = kernel.matmul %q, %k : tensor<2x16x64xf32>, tensor<2x64x32xf32>
  %sum = kernel.reduce_sum %m dim 1 : tensor<8x96xf32>
  %max = kernel.reduce_max %s dim 2 : tensor<2x16x32xf32>
  return %sum, %max : tensor<8x1xf32>, tensor<2x16x1xf32>
}

// -----

// f16 matmuls and reductions accumulate in f32 and round once: a linalg op
// into an f32 tensor, then a truncation. They come back as they were (a
// rounded accumulation of extended values is the op on the f16 values).
// rms_norm comes back as the kernel ops of its formula.
// CHECK-LABEL: func.func @not_round_tripped
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x96xf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[M:.*]] = kernel.matmul %[[X]], %[[W]] : tensor<8x64xf16>, tensor<64x96xf16>
// CHECK-NEXT: %[[S:.*]] = kernel.reduce_sum %[[X]] dim 1 : tensor<8x64xf16>
// CHECK-NEXT: %[[SQ:.*]] = kernel.square %[[Y]] : tensor<4x16xf32>
// CHECK-NEXT: kernel.reduce_sum %[[SQ]] dim 1
// CHECK-NOT: linalg.
// CHECK-NOT: kernel.convert
// CHECK: return %[[M]], %[[S]],
func.func @not_round_tripped(%x: tensor<8x64xf16>, %w: tensor<64x96xf16>, %y: tensor<4x16xf32>)
    -> (tensor<8x96xf16>, tensor<8x1xf16>, tensor<4x16xf32>) {
  %m = kernel.matmul %x, %w : tensor<8x64xf16>, tensor<64x96xf16>
  %s = kernel.reduce_sum %x dim 1 : tensor<8x64xf16>
  %r = kernel.rms_norm %y {epsilon = 1.000000e-06 : f64} : tensor<4x16xf32>
  return %m, %s, %r : tensor<8x96xf16>, tensor<8x1xf16>, tensor<4x16xf32>
}

// -----

// f32 operands rounded to f16 for an f16 product, widened back: the
// roundings are the program's and come back (the product of extended
// values is narrowed only when it is rounded back to their type; taken the
// other way round, both roundings were lost).
// CHECK-LABEL: func.func @rounded_then_widened
// CHECK-NEXT: %[[XH:.*]] = kernel.convert %arg0 : tensor<16x128xf32> to tensor<16x128xf16>
// CHECK-NEXT: %[[WH:.*]] = kernel.convert %arg1 : tensor<128x64xf32> to tensor<128x64xf16>
// CHECK-NEXT: %[[H:.*]] = kernel.matmul %[[XH]], %[[WH]] : tensor<16x128xf16>, tensor<128x64xf16>
// CHECK-NEXT: %[[O:.*]] = kernel.convert %[[H]] : tensor<16x64xf16> to tensor<16x64xf32>
// CHECK-NEXT: return %[[O]]
func.func @rounded_then_widened(%x: tensor<16x128xf32>, %w: tensor<128x64xf32>) -> tensor<16x64xf32> {
  %xh = kernel.convert %x : tensor<16x128xf32> to tensor<16x128xf16>
  %wh = kernel.convert %w : tensor<128x64xf32> to tensor<128x64xf16>
  %h = kernel.matmul %xh, %wh : tensor<16x128xf16>, tensor<128x64xf16>
  %o = kernel.convert %h : tensor<16x64xf16> to tensor<16x64xf32>
  return %o : tensor<16x64xf32>
}
