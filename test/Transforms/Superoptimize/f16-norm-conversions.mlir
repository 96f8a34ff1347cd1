// Hugging Face's LLaMA RMSNorm on f16 activations, computed in f32 with an
// f16 weight, as --convert-linalg-to-kernel imports it: one conversion of
// x per linalg op that widens it, and a conversion of the weight. One
// launch: the duplicate conversions are one value (CSE before the idioms
// are raised: the rms_norm is raised only where its square and its scale
// read the same x), and the weight's conversion goes below the reshape
// that aligns its rank, so the kernel loads the f16 weight and converts it.
// Before, three launches: the sum of squares, the normalization and a copy
// kernel converting the weight.
// RUN: mlsopt-opt %s --superoptimize="timeout=5 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// REMARK: remark: superoptimize: replaced {{[0-9]+}} kernel ops ({{.*}}) by 1 kernels
// CHECK-LABEL: func.func @rmsnorm_f16_weight(
// CHECK-NOT: kernel.convert
// CHECK: %[[W:.*]] = tensor.expand_shape %arg1 {{.*}} : tensor<128xf16> into tensor<1x128xf16>
// CHECK: kernel.custom(%arg0, %[[W]])
// CHECK: block.load %in1 {{.*}} : tensor<1x128xf16> -> tensor<1x128xf32>
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @rmsnorm_f16_weight is equivalent to @rmsnorm_f16_weight_reference
func.func @rmsnorm_f16_weight(%x: tensor<8x128xf16>, %w: tensor<128xf16>) -> tensor<8x128xf16> {
  %0 = kernel.convert %x : tensor<8x128xf16> to tensor<8x128xf32>
  %1 = kernel.square %0 : tensor<8x128xf32>
  %2 = kernel.reduce_sum %1 dim 1 : tensor<8x128xf32>
  %3 = kernel.convert %x : tensor<8x128xf16> to tensor<8x128xf32>
  %4 = kernel.convert %w : tensor<128xf16> to tensor<128xf32>
  %5 = kernel.mul_scalar %2, 7.812500e-03 : tensor<8x1xf32>
  %6 = kernel.add_scalar %5, 9.9999999747524271E-7 : tensor<8x1xf32>
  %7 = kernel.rsqrt %6 : tensor<8x1xf32>
  %8 = kernel.mul %3, %7 : tensor<8x128xf32>, tensor<8x1xf32>
  %9 = kernel.mul %8, %4 : tensor<8x128xf32>, tensor<128xf32>
  %10 = kernel.convert %9 : tensor<8x128xf32> to tensor<8x128xf16>
  return %10 : tensor<8x128xf16>
}
