// RUN: mlsopt-opt %s | mlsopt-opt | FileCheck %s
// RUN: mlsopt-opt %s --mlir-print-op-generic | mlsopt-opt | FileCheck %s

// Round-trip tests of every kernel op. Each function returns the values whose
// inferred types are checked, so a wrong inferred type fails to parse and the
// return line shows the type that was inferred.

// CHECK-LABEL: func.func @unary_f16
func.func @unary_f16(%x: tensor<8x64xf16>)
    -> (tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>,
        tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>,
        tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>) {
  // CHECK: %[[EXP:.*]] = kernel.exp %{{.*}} : tensor<8x64xf16>
  %0 = kernel.exp %x : tensor<8x64xf16>
  // CHECK: %[[LOG:.*]] = kernel.log %{{.*}} : tensor<8x64xf16>
  %1 = kernel.log %x : tensor<8x64xf16>
  // CHECK: %[[SQRT:.*]] = kernel.sqrt %{{.*}} : tensor<8x64xf16>
  %2 = kernel.sqrt %x : tensor<8x64xf16>
  // CHECK: %[[RSQRT:.*]] = kernel.rsqrt %{{.*}} : tensor<8x64xf16>
  %3 = kernel.rsqrt %x : tensor<8x64xf16>
  // CHECK: %[[SQUARE:.*]] = kernel.square %{{.*}} : tensor<8x64xf16>
  %4 = kernel.square %x : tensor<8x64xf16>
  // CHECK: %[[SILU:.*]] = kernel.silu %{{.*}} : tensor<8x64xf16>
  %5 = kernel.silu %x : tensor<8x64xf16>
  // CHECK: %[[SIGMOID:.*]] = kernel.sigmoid %{{.*}} : tensor<8x64xf16>
  %6 = kernel.sigmoid %x : tensor<8x64xf16>
  // CHECK: %[[GELU:.*]] = kernel.gelu %{{.*}} : tensor<8x64xf16>
  %7 = kernel.gelu %x : tensor<8x64xf16>
  // CHECK: %[[RELU:.*]] = kernel.relu %{{.*}} : tensor<8x64xf16>
  %8 = kernel.relu %x : tensor<8x64xf16>
  // CHECK: %[[TANH:.*]] = kernel.tanh %{{.*}} : tensor<8x64xf16>
  %9 = kernel.tanh %x : tensor<8x64xf16>
  // CHECK: %[[ERF:.*]] = kernel.erf %{{.*}} : tensor<8x64xf16>
  %10 = kernel.erf %x : tensor<8x64xf16>
  // CHECK: %[[NEG:.*]] = kernel.neg %{{.*}} : tensor<8x64xf16>
  %11 = kernel.neg %x : tensor<8x64xf16>
  // CHECK: return %[[EXP]], %[[LOG]], %[[SQRT]], %[[RSQRT]], %[[SQUARE]], %[[SILU]], %[[SIGMOID]], %[[GELU]], %[[RELU]], %[[TANH]], %[[ERF]], %[[NEG]] :
  // CHECK-SAME: tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>,
        tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>,
        tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x64xf16>
}

// GELU's tanh approximation (GPT-2, Gemma).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: kernel.gelu_tanh %{{.*}} : tensor<8x64xf16>
func.func @gelu_tanh(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %0 = kernel.gelu_tanh %x : tensor<8x64xf16>
  return %0 : tensor<8x64xf16>
}

// torch's softplus (Mish applies tanh to it) and log1p.
// CHECK-LABEL: func.func @softplus_log1p
// CHECK: %[[S:.*]] = kernel.softplus %{{.*}} : tensor<8x64xbf16>
// CHECK: kernel.log1p %[[S]] : tensor<8x64xbf16>
func.func @softplus_log1p(%x: tensor<8x64xbf16>) -> tensor<8x64xbf16> {
  %0 = kernel.softplus %x : tensor<8x64xbf16>
  %1 = kernel.log1p %0 : tensor<8x64xbf16>
  return %1 : tensor<8x64xbf16>
}

// Rounding to integers (a fake quantization's round(x / s)).
// CHECK-LABEL: func.func @rounding
// CHECK: %[[F:.*]] = kernel.floor %{{.*}} : tensor<8x64xf16>
// CHECK: %[[C:.*]] = kernel.ceil %[[F]] : tensor<8x64xf16>
// CHECK: kernel.round %[[C]] : tensor<8x64xf16>
func.func @rounding(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %0 = kernel.floor %x : tensor<8x64xf16>
  %1 = kernel.ceil %0 : tensor<8x64xf16>
  %2 = kernel.round %1 : tensor<8x64xf16>
  return %2 : tensor<8x64xf16>
}

// A rotary embedding's cos and sin of its angles.
// CHECK-LABEL: func.func @sin_cos
// CHECK: %[[S:.*]] = kernel.sin %{{.*}} : tensor<8x64xf32>
// CHECK: kernel.cos %[[S]] : tensor<8x64xf32>
func.func @sin_cos(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = kernel.sin %x : tensor<8x64xf32>
  %1 = kernel.cos %0 : tensor<8x64xf32>
  return %1 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @unary_bf16_f32
func.func @unary_bf16_f32(%x: tensor<2x3x5xbf16>, %y: tensor<7xf32>)
    -> (tensor<2x3x5xbf16>, tensor<7xf32>) {
  // CHECK: %[[A:.*]] = kernel.gelu %{{.*}} : tensor<2x3x5xbf16>
  %0 = kernel.gelu %x : tensor<2x3x5xbf16>
  // CHECK: %[[B:.*]] = kernel.tanh %{{.*}} : tensor<7xf32>
  %1 = kernel.tanh %y : tensor<7xf32>
  // CHECK: return %[[A]], %[[B]] : tensor<2x3x5xbf16>, tensor<7xf32>
  return %0, %1 : tensor<2x3x5xbf16>, tensor<7xf32>
}

// CHECK-LABEL: func.func @binary_same_shape
func.func @binary_same_shape(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  // CHECK: %[[ADD:.*]] = kernel.add %{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<8x64xf32>
  %0 = kernel.add %a, %b : tensor<8x64xf32>, tensor<8x64xf32>
  // CHECK: %[[SUB:.*]] = kernel.sub %{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<8x64xf32>
  %1 = kernel.sub %a, %b : tensor<8x64xf32>, tensor<8x64xf32>
  // CHECK: %[[MUL:.*]] = kernel.mul %{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<8x64xf32>
  %2 = kernel.mul %a, %b : tensor<8x64xf32>, tensor<8x64xf32>
  // CHECK: %[[DIV:.*]] = kernel.div %{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<8x64xf32>
  %3 = kernel.div %a, %b : tensor<8x64xf32>, tensor<8x64xf32>
  // CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]] : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
  return %0, %1, %2, %3 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// CHECK-LABEL: func.func @binary_broadcast
func.func @binary_broadcast(%col: tensor<8x1xf16>, %row: tensor<1x64xf16>,
                            %vec: tensor<64xbf16>, %mat: tensor<4x8x64xbf16>,
                            %s: tensor<1xf32>, %t: tensor<2x1x3xf32>)
    -> (tensor<8x64xf16>, tensor<8x64xf16>, tensor<4x8x64xbf16>,
        tensor<4x8x64xbf16>, tensor<2x1x3xf32>) {
  // Both operands stretch: 8x1 + 1x64 -> 8x64.
  // CHECK: %[[OUTER:.*]] = kernel.add %{{.*}}, %{{.*}} : tensor<8x1xf16>, tensor<1x64xf16>
  %0 = kernel.add %col, %row : tensor<8x1xf16>, tensor<1x64xf16>
  // CHECK: %[[OUTER2:.*]] = kernel.sub %{{.*}}, %{{.*}} : tensor<1x64xf16>, tensor<8x1xf16>
  %1 = kernel.sub %row, %col : tensor<1x64xf16>, tensor<8x1xf16>
  // Rank extension: the missing leading dims of the vector act as size 1.
  // CHECK: %[[RANK1:.*]] = kernel.mul %{{.*}}, %{{.*}} : tensor<64xbf16>, tensor<4x8x64xbf16>
  %2 = kernel.mul %vec, %mat : tensor<64xbf16>, tensor<4x8x64xbf16>
  // CHECK: %[[RANK2:.*]] = kernel.div %{{.*}}, %{{.*}} : tensor<4x8x64xbf16>, tensor<64xbf16>
  %3 = kernel.div %mat, %vec : tensor<4x8x64xbf16>, tensor<64xbf16>
  // CHECK: %[[SCALAR:.*]] = kernel.add %{{.*}}, %{{.*}} : tensor<1xf32>, tensor<2x1x3xf32>
  %4 = kernel.add %s, %t : tensor<1xf32>, tensor<2x1x3xf32>
  // CHECK: return %[[OUTER]], %[[OUTER2]], %[[RANK1]], %[[RANK2]], %[[SCALAR]] :
  // CHECK-SAME: tensor<8x64xf16>, tensor<8x64xf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<2x1x3xf32>
  return %0, %1, %2, %3, %4 : tensor<8x64xf16>, tensor<8x64xf16>,
      tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<2x1x3xf32>
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<8x4096xf16>, %b: tensor<4096x6144xf16>,
                  %q: tensor<16x256x64xf16>, %k: tensor<16x64x4096xf16>,
                  %c: tensor<2x3x4x5xbf16>, %d: tensor<2x3x5x7xbf16>,
                  %e: tensor<1x1xf32>, %f: tensor<1x9xf32>)
    -> (tensor<8x6144xf16>, tensor<16x256x4096xf16>, tensor<2x3x4x7xbf16>,
        tensor<1x9xf32>) {
  // CHECK: %[[MM:.*]] = kernel.matmul %{{.*}}, %{{.*}} : tensor<8x4096xf16>, tensor<4096x6144xf16>
  %0 = kernel.matmul %a, %b : tensor<8x4096xf16>, tensor<4096x6144xf16>
  // CHECK: %[[BMM:.*]] = kernel.matmul %{{.*}}, %{{.*}} : tensor<16x256x64xf16>, tensor<16x64x4096xf16>
  %1 = kernel.matmul %q, %k : tensor<16x256x64xf16>, tensor<16x64x4096xf16>
  // The batched result feeds an op whose operand type must be the inferred one.
  // CHECK: %[[EXP:.*]] = kernel.exp %[[BMM]] : tensor<16x256x4096xf16>
  %2 = kernel.exp %1 : tensor<16x256x4096xf16>
  // CHECK: %[[BMM4:.*]] = kernel.matmul %{{.*}}, %{{.*}} : tensor<2x3x4x5xbf16>, tensor<2x3x5x7xbf16>
  %3 = kernel.matmul %c, %d : tensor<2x3x4x5xbf16>, tensor<2x3x5x7xbf16>
  // CHECK: %[[OUTER:.*]] = kernel.matmul %{{.*}}, %{{.*}} : tensor<1x1xf32>, tensor<1x9xf32>
  %4 = kernel.matmul %e, %f : tensor<1x1xf32>, tensor<1x9xf32>
  // CHECK: return %[[MM]], %[[EXP]], %[[BMM4]], %[[OUTER]] :
  // CHECK-SAME: tensor<8x6144xf16>, tensor<16x256x4096xf16>, tensor<2x3x4x7xbf16>, tensor<1x9xf32>
  return %0, %2, %3, %4 : tensor<8x6144xf16>, tensor<16x256x4096xf16>,
      tensor<2x3x4x7xbf16>, tensor<1x9xf32>
}

// CHECK-LABEL: func.func @scalar_ops
func.func @scalar_ops(%x: tensor<8x64xf16>, %y: tensor<4x4xbf16>, %z: tensor<3xf32>)
    -> (tensor<8x64xf16>, tensor<4x4xbf16>, tensor<3xf32>, tensor<8x64xf16>,
        tensor<4x4xbf16>, tensor<3xf32>) {
  // CHECK: %[[A:.*]] = kernel.mul_scalar %{{.*}}, 1.250000e-01 : tensor<8x64xf16>
  %0 = kernel.mul_scalar %x, 0.125 : tensor<8x64xf16>
  // CHECK: %[[B:.*]] = kernel.mul_scalar %{{.*}}, -2.000000e+00 : tensor<4x4xbf16>
  %1 = kernel.mul_scalar %y, -2.0 : tensor<4x4xbf16>
  // CHECK: %[[C:.*]] = kernel.mul_scalar %{{.*}}, 2.44140625E-4 : tensor<3xf32>
  %2 = kernel.mul_scalar %z, 2.44140625E-4 : tensor<3xf32>
  // CHECK: %[[D:.*]] = kernel.add_scalar %{{.*}}, 9.9999999999999995E-7 : tensor<8x64xf16>
  %3 = kernel.add_scalar %x, 1.0e-6 : tensor<8x64xf16>
  // CHECK: %[[E:.*]] = kernel.add_scalar %{{.*}}, -1.000000e+00 : tensor<4x4xbf16>
  %4 = kernel.add_scalar %y, -1.0 : tensor<4x4xbf16>
  // CHECK: %[[F:.*]] = kernel.add_scalar %{{.*}}, 0.000000e+00 : tensor<3xf32>
  %5 = kernel.add_scalar %z, 0.0 : tensor<3xf32>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]] :
  // CHECK-SAME: tensor<8x64xf16>, tensor<4x4xbf16>, tensor<3xf32>, tensor<8x64xf16>, tensor<4x4xbf16>, tensor<3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<8x64xf16>, tensor<4x4xbf16>, tensor<3xf32>,
      tensor<8x64xf16>, tensor<4x4xbf16>, tensor<3xf32>
}

// Mirage's clamp: max then min with a constant.
// CHECK-LABEL: func.func @clamp_ops
func.func @clamp_ops(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // CHECK: %[[LO:.*]] = kernel.max_scalar %{{.*}}, -1.500000e+00 : tensor<8x64xf16>
  %0 = kernel.max_scalar %x, -1.5 : tensor<8x64xf16>
  // CHECK-NEXT: %[[HI:.*]] = kernel.min_scalar %[[LO]], 2.000000e+00 : tensor<8x64xf16>
  %1 = kernel.min_scalar %0, 2.0 : tensor<8x64xf16>
  return %1 : tensor<8x64xf16>
}

// torch.maximum and torch.minimum, with a broadcast operand.
// CHECK-LABEL: func.func @max_min
func.func @max_min(%x: tensor<8x64xf16>, %y: tensor<8x64xf16>, %r: tensor<8x1xf16>) -> tensor<8x64xf16> {
  // CHECK: %[[MAX:.*]] = kernel.max %{{.*}}, %{{.*}} : tensor<8x64xf16>, tensor<8x64xf16>
  %0 = kernel.max %x, %y : tensor<8x64xf16>, tensor<8x64xf16>
  // CHECK-NEXT: kernel.min %[[MAX]], %{{.*}} : tensor<8x64xf16>, tensor<8x1xf16>
  %1 = kernel.min %0, %r : tensor<8x64xf16>, tensor<8x1xf16>
  return %1 : tensor<8x64xf16>
}

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<8x64xf16>, %y: tensor<2x3x4xbf16>, %z: tensor<5xf32>)
    -> (tensor<8x1xf16>, tensor<1x64xf16>, tensor<2x1x4xbf16>, tensor<2x3x1xbf16>,
        tensor<1xf32>) {
  // CHECK: %[[S1:.*]] = kernel.reduce_sum %{{.*}} dim 1 : tensor<8x64xf16>
  %0 = kernel.reduce_sum %x dim 1 : tensor<8x64xf16>
  // CHECK: %[[M0:.*]] = kernel.reduce_max %{{.*}} dim 0 : tensor<8x64xf16>
  %1 = kernel.reduce_max %x dim 0 : tensor<8x64xf16>
  // CHECK: %[[S3:.*]] = kernel.reduce_sum %{{.*}} dim 1 : tensor<2x3x4xbf16>
  %2 = kernel.reduce_sum %y dim 1 : tensor<2x3x4xbf16>
  // CHECK: %[[M3:.*]] = kernel.reduce_max %{{.*}} dim 2 : tensor<2x3x4xbf16>
  %3 = kernel.reduce_max %y dim 2 : tensor<2x3x4xbf16>
  // CHECK: %[[S1D:.*]] = kernel.reduce_sum %{{.*}} dim 0 : tensor<5xf32>
  %4 = kernel.reduce_sum %z dim 0 : tensor<5xf32>
  // The reduced dim stays with size 1, so the result broadcasts back.
  // CHECK: kernel.div %{{.*}}, %[[S1]] : tensor<8x64xf16>, tensor<8x1xf16>
  %5 = kernel.div %x, %0 : tensor<8x64xf16>, tensor<8x1xf16>
  // CHECK: return %[[S1]], %[[M0]], %[[S3]], %[[M3]], %[[S1D]] :
  // CHECK-SAME: tensor<8x1xf16>, tensor<1x64xf16>, tensor<2x1x4xbf16>, tensor<2x3x1xbf16>, tensor<1xf32>
  return %0, %1, %2, %3, %4 : tensor<8x1xf16>, tensor<1x64xf16>,
      tensor<2x1x4xbf16>, tensor<2x3x1xbf16>, tensor<1xf32>
}

// CHECK-LABEL: func.func @rms_norm
func.func @rms_norm(%x: tensor<8x4096xf16>, %y: tensor<2x4x64xbf16>, %z: tensor<16xf32>)
    -> (tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<2x4x64xbf16>, tensor<16xf32>) {
  // Without epsilon the default 0.0 is not printed.
  // CHECK: %[[A:.*]] = kernel.rms_norm %{{.*}} : tensor<8x4096xf16>
  %0 = kernel.rms_norm %x : tensor<8x4096xf16>
  // CHECK: %[[B:.*]] = kernel.rms_norm %{{.*}} {epsilon = 9.9999999999999995E-7 : f64} : tensor<8x4096xf16>
  %1 = kernel.rms_norm %x {epsilon = 1.0e-6} : tensor<8x4096xf16>
  // CHECK: %[[C:.*]] = kernel.rms_norm %{{.*}} {epsilon = 1.000000e-05 : f64} : tensor<2x4x64xbf16>
  %2 = kernel.rms_norm %y {epsilon = 1.0e-5 : f64} : tensor<2x4x64xbf16>
  // CHECK: %[[D:.*]] = kernel.rms_norm %{{.*}} : tensor<16xf32>
  %3 = kernel.rms_norm %z {epsilon = 0.0} : tensor<16xf32>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<2x4x64xbf16>, tensor<16xf32>
  return %0, %1, %2, %3 : tensor<8x4096xf16>, tensor<8x4096xf16>,
      tensor<2x4x64xbf16>, tensor<16xf32>
}

// The normalized dim is printed only when it is not the last.
// CHECK-LABEL: func.func @rms_norm_dim
func.func @rms_norm_dim(%k: tensor<2x64x4096xf16>)
    -> (tensor<2x64x4096xf16>, tensor<2x64x4096xf16>) {
  // CHECK: %[[A:.*]] = kernel.rms_norm %{{.*}} dim 1 {epsilon = 9.9999999999999995E-7 : f64} : tensor<2x64x4096xf16>
  %0 = kernel.rms_norm %k dim 1 {epsilon = 1.0e-6} : tensor<2x64x4096xf16>
  // CHECK: %[[B:.*]] = kernel.rms_norm %{{.*}} dim 0 : tensor<2x64x4096xf16>
  %1 = kernel.rms_norm %k dim 0 : tensor<2x64x4096xf16>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<2x64x4096xf16>, tensor<2x64x4096xf16>
}

// CHECK-LABEL: func.func @concat
func.func @concat(%a: tensor<8x16xf16>, %b: tensor<8x32xf16>, %c: tensor<8x16xf16>,
                  %d: tensor<2x3x4xbf16>, %e: tensor<5xf32>)
    -> (tensor<8x64xf16>, tensor<16x16xf16>, tensor<2x3x4xbf16>, tensor<10xf32>) {
  // CHECK: %[[A:.*]] = kernel.concat %{{.*}}, %{{.*}}, %{{.*}} dim 1 : tensor<8x16xf16>, tensor<8x32xf16>, tensor<8x16xf16>
  %0 = kernel.concat %a, %b, %c dim 1 : tensor<8x16xf16>, tensor<8x32xf16>, tensor<8x16xf16>
  // CHECK: %[[B:.*]] = kernel.concat %{{.*}}, %{{.*}} dim 0 : tensor<8x16xf16>, tensor<8x16xf16>
  %1 = kernel.concat %a, %c dim 0 : tensor<8x16xf16>, tensor<8x16xf16>
  // A single operand is a copy.
  // CHECK: %[[C:.*]] = kernel.concat %{{.*}} dim 2 : tensor<2x3x4xbf16>
  %2 = kernel.concat %d dim 2 : tensor<2x3x4xbf16>
  // CHECK: %[[D:.*]] = kernel.concat %{{.*}}, %{{.*}} dim 0 : tensor<5xf32>, tensor<5xf32>
  %3 = kernel.concat %e, %e dim 0 : tensor<5xf32>, tensor<5xf32>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<8x64xf16>, tensor<16x16xf16>, tensor<2x3x4xbf16>, tensor<10xf32>
  return %0, %1, %2, %3 : tensor<8x64xf16>, tensor<16x16xf16>,
      tensor<2x3x4xbf16>, tensor<10xf32>
}

// CHECK-LABEL: func.func @transpose
func.func @transpose(%k: tensor<16x4096x64xf16>, %m: tensor<8x64xbf16>,
                     %n: tensor<2x3x5x7xf32>, %v: tensor<9xf32>)
    -> (tensor<16x64x4096xf16>, tensor<64x8xbf16>, tensor<7x2x5x3xf32>,
        tensor<2x3x5x7xf32>, tensor<9xf32>) {
  // CHECK: %[[A:.*]] = kernel.transpose %{{.*}} [0, 2, 1] : tensor<16x4096x64xf16>
  %0 = kernel.transpose %k [0, 2, 1] : tensor<16x4096x64xf16>
  // CHECK: %[[B:.*]] = kernel.transpose %{{.*}} [1, 0] : tensor<8x64xbf16>
  %1 = kernel.transpose %m [1, 0] : tensor<8x64xbf16>
  // CHECK: %[[C:.*]] = kernel.transpose %{{.*}} [3, 0, 2, 1] : tensor<2x3x5x7xf32>
  %2 = kernel.transpose %n [3, 0, 2, 1] : tensor<2x3x5x7xf32>
  // CHECK: %[[D:.*]] = kernel.transpose %{{.*}} [0, 1, 2, 3] : tensor<2x3x5x7xf32>
  %3 = kernel.transpose %n [0, 1, 2, 3] : tensor<2x3x5x7xf32>
  // CHECK: %[[E:.*]] = kernel.transpose %{{.*}} [0] : tensor<9xf32>
  %4 = kernel.transpose %v [0] : tensor<9xf32>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]] :
  // CHECK-SAME: tensor<16x64x4096xf16>, tensor<64x8xbf16>, tensor<7x2x5x3xf32>, tensor<2x3x5x7xf32>, tensor<9xf32>
  return %0, %1, %2, %3, %4 : tensor<16x64x4096xf16>, tensor<64x8xbf16>,
      tensor<7x2x5x3xf32>, tensor<2x3x5x7xf32>, tensor<9xf32>
}

// An attention-like chain: the inferred types of each op feed the next.
// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<16x256x64xf16>, %k: tensor<16x4096x64xf16>,
                     %v: tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> {
  // CHECK: kernel.transpose %{{.*}} [0, 2, 1] : tensor<16x4096x64xf16>
  %kt = kernel.transpose %k [0, 2, 1] : tensor<16x4096x64xf16>
  // CHECK: kernel.matmul %{{.*}}, %{{.*}} : tensor<16x256x64xf16>, tensor<16x64x4096xf16>
  %s = kernel.matmul %q, %kt : tensor<16x256x64xf16>, tensor<16x64x4096xf16>
  // CHECK: kernel.mul_scalar %{{.*}}, 1.250000e-01 : tensor<16x256x4096xf16>
  %ss = kernel.mul_scalar %s, 0.125 : tensor<16x256x4096xf16>
  // CHECK: kernel.reduce_max %{{.*}} dim 2 : tensor<16x256x4096xf16>
  %m = kernel.reduce_max %ss dim 2 : tensor<16x256x4096xf16>
  // CHECK: kernel.sub %{{.*}}, %{{.*}} : tensor<16x256x4096xf16>, tensor<16x256x1xf16>
  %d = kernel.sub %ss, %m : tensor<16x256x4096xf16>, tensor<16x256x1xf16>
  // CHECK: kernel.exp %{{.*}} : tensor<16x256x4096xf16>
  %e = kernel.exp %d : tensor<16x256x4096xf16>
  // CHECK: kernel.reduce_sum %{{.*}} dim 2 : tensor<16x256x4096xf16>
  %z = kernel.reduce_sum %e dim 2 : tensor<16x256x4096xf16>
  // CHECK: kernel.div %{{.*}}, %{{.*}} : tensor<16x256x4096xf16>, tensor<16x256x1xf16>
  %p = kernel.div %e, %z : tensor<16x256x4096xf16>, tensor<16x256x1xf16>
  // CHECK: %[[O:.*]] = kernel.matmul %{{.*}}, %{{.*}} : tensor<16x256x4096xf16>, tensor<16x4096x64xf16>
  %o = kernel.matmul %p, %v : tensor<16x256x4096xf16>, tensor<16x4096x64xf16>
  // CHECK: return %[[O]] : tensor<16x256x64xf16>
  return %o : tensor<16x256x64xf16>
}

// A custom kernel: grid and thread-block sizes, inputs and outputs of several
// element types are printed back as written.
// CHECK-LABEL: func.func @custom
func.func @custom(%x: tensor<8x4096xf16>, %w: tensor<4096x6144xf16>,
                  %u: tensor<8x6x96xf32>)
    -> (tensor<8x6144xf16>, tensor<8x6x96xf32>) {
  // CHECK: %[[C:.*]] = kernel.custom(%{{.*}}, %{{.*}}) grid <96, 1, 1> block <128, 1, 1> : (tensor<8x4096xf16>, tensor<4096x6144xf16>) -> tensor<8x6144xf16> {
  // CHECK-NEXT: ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x6144xf16>, %out0: tensor<8x6144xf16>):
  // CHECK: block.return
  // CHECK-NEXT: }
  %o = kernel.custom (%x, %w) grid <96, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>, tensor<4096x6144xf16>) -> tensor<8x6144xf16> {
  ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x6144xf16>, %out0: tensor<8x6144xf16>):
    %m = block.for_loop 64 iterations accumulate (sum) : tensor<8x64xf16> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<8x4096xf16> -> tensor<8x64xf16>
      %wt = block.load %in1 imap <x = 1> fmap 0 : tensor<4096x6144xf16> -> tensor<64x64xf16>
      %p = block.matmul %xt, %wt : tensor<8x64xf16>, tensor<64x64xf16>
      block.yield %p : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x64xf16> into tensor<8x6144xf16>
    block.return
  }
  // CHECK: %[[G:.*]] = kernel.custom(%{{.*}}) grid <4, 2, 3> block <32, 4, 2> : (tensor<8x6x96xf32>) -> tensor<8x6x96xf32> {
  %g = kernel.custom (%u) grid <4, 2, 3> block <32, 4, 2>
      : (tensor<8x6x96xf32>) -> tensor<8x6x96xf32> {
  ^bb0(%in0: tensor<8x6x96xf32>, %out0: tensor<8x6x96xf32>):
    %t = block.for_loop 1 iterations accumulate (max) : tensor<2x3x32xf32> {
      %a = block.load %in0 imap <x = 0, y = 1, z = 2> : tensor<8x6x96xf32> -> tensor<2x3x32xf32>
      block.yield %a : tensor<2x3x32xf32>
    }
    block.store %t, %out0 omap <x = 0, y = 1, z = 2> : tensor<2x3x32xf32> into tensor<8x6x96xf32>
    block.return
  }
  // CHECK: return %[[C]], %[[G]] : tensor<8x6144xf16>, tensor<8x6x96xf32>
  return %o, %g : tensor<8x6144xf16>, tensor<8x6x96xf32>
}

// CHECK-LABEL: func.func @convert
func.func @convert(%h: tensor<8x64xf16>, %f: tensor<4xf32>)
    -> (tensor<8x64xf32>, tensor<4xbf16>, tensor<8x64xbf16>) {
  // CHECK: kernel.convert %{{.*}} : tensor<8x64xf16> to tensor<8x64xf32>
  %0 = kernel.convert %h : tensor<8x64xf16> to tensor<8x64xf32>
  // CHECK: kernel.convert %{{.*}} : tensor<4xf32> to tensor<4xbf16>
  %1 = kernel.convert %f : tensor<4xf32> to tensor<4xbf16>
  // CHECK: kernel.convert %{{.*}} : tensor<8x64xf16> to tensor<8x64xbf16>
  %2 = kernel.convert %h : tensor<8x64xf16> to tensor<8x64xbf16>
  return %0, %1, %2 : tensor<8x64xf32>, tensor<4xbf16>, tensor<8x64xbf16>
}

// CHECK-LABEL: func.func @triangle_fill
func.func @triangle_fill(%s: tensor<4x128x128xf32>, %h: tensor<8x16xf16>)
    -> (tensor<4x128x128xf32>, tensor<8x16xf16>) {
  // CHECK: kernel.triangle_fill %{{.*}} dims [1, 2] diagonal 1 value 0xFFF0000000000000 : tensor<4x128x128xf32>
  %0 = kernel.triangle_fill %s dims [1, 2] diagonal 1 value 0xFFF0000000000000 : tensor<4x128x128xf32>
  // Below a diagonal: the dims swapped, a negative diagonal, a finite value.
  // CHECK: kernel.triangle_fill %{{.*}} dims [1, 0] diagonal -3 value -6.550400e+04 : tensor<8x16xf16>
  %1 = kernel.triangle_fill %h dims [1, 0] diagonal -3 value -65504.0 : tensor<8x16xf16>
  return %0, %1 : tensor<4x128x128xf32>, tensor<8x16xf16>
}

// CHECK-LABEL: func.func @where
func.func @where(%m: tensor<2x1x1x128xi1>, %n: tensor<8x64xi1>)
    -> (tensor<2x1x1x128xf32>, tensor<8x64xf16>) {
  // A padding mask's additive bias: 0 where a key is kept, -inf elsewhere.
  // CHECK: kernel.where %{{.*}}, 0.000000e+00, 0xFFF0000000000000 : tensor<2x1x1x128xi1> to tensor<2x1x1x128xf32>
  %0 = kernel.where %m, 0.0, 0xFFF0000000000000 : tensor<2x1x1x128xi1> to tensor<2x1x1x128xf32>
  // CHECK: kernel.where %{{.*}}, 1.000000e+00, -6.550400e+04 : tensor<8x64xi1> to tensor<8x64xf16>
  %1 = kernel.where %n, 1.0, -65504.0 : tensor<8x64xi1> to tensor<8x64xf16>
  return %0, %1 : tensor<2x1x1x128xf32>, tensor<8x64xf16>
}

// CHECK-LABEL: func.func @int_to_float
func.func @int_to_float(%m: tensor<2x128xi64>, %u: tensor<8x64xi8>)
    -> (tensor<2x128xf32>, tensor<8x64xbf16>) {
  // Hugging Face's int64 attention_mask, made floats.
  // CHECK: kernel.int_to_float %{{.*}} : tensor<2x128xi64> to tensor<2x128xf32>
  %0 = kernel.int_to_float %m : tensor<2x128xi64> to tensor<2x128xf32>
  // CHECK: kernel.int_to_float %{{.*}} unsigned : tensor<8x64xi8> to tensor<8x64xbf16>
  %1 = kernel.int_to_float %u unsigned : tensor<8x64xi8> to tensor<8x64xbf16>
  return %0, %1 : tensor<2x128xf32>, tensor<8x64xbf16>
}
