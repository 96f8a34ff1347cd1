// A front end writes an RMSNorm's mean as a multiply by 1.0 / n rounded to
// the element type. Past n = 2048 in f16 (256 in bf16) that rounding holds
// 1/n for several n: f16(1/3072) is also f16(1/3073), bf16(1/3000) is the
// rounding of 1/2992 ... 1/3000 ... and the n nearest 1 / value is not the
// row length. The constant reads as the n that is an extent of the program
// (mlsopt/Support/Constants.h), so the raiser finds the norm, the search
// fuses it with the matmul, and the verifier agrees with both.
// RUN: mlsopt-opt %s --raise-kernel-idioms | FileCheck %s --check-prefix=RAISE
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// RAISE-LABEL: func.func @f16_3072
// RAISE: kernel.rms_norm %arg0 {epsilon = 1.000000e-05 : f64} : tensor<4x3072xf16>
// RAISE-LABEL: func.func @bf16_3000
// RAISE: kernel.rms_norm %arg0 {epsilon = 1.000000e-05 : f64} : tensor<4x3000xbf16>

// REMARK-DAG: remark: superoptimize: replaced 2 kernel ops ({{.*}}) by 1 kernels
// REMARK-DAG: remark: superoptimize: replaced 2 kernel ops ({{.*}}) by 1 kernels

// CHECK-LABEL: func.func @f16_3072(
// CHECK-NEXT: kernel.custom
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// CHECK-LABEL: func.func @bf16_3000(
// CHECK-NEXT: kernel.custom
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY-DAG: remark: @f16_3072 is equivalent to @f16_3072_reference
// VERIFY-DAG: remark: @bf16_3000 is equivalent to @bf16_3000_reference

// f16(1 / 3072): 1 / value is 3072.75, nearest 3073.
func.func @f16_3072(%x: tensor<4x3072xf16>, %w: tensor<3072x64xf16>) -> tensor<4x64xf16> {
  %0 = kernel.square %x : tensor<4x3072xf16>
  %1 = kernel.reduce_sum %0 dim 1 : tensor<4x3072xf16>
  %2 = kernel.mul_scalar %1, 3.254413604736328E-4 : tensor<4x1xf16>
  %3 = kernel.add_scalar %2, 1.0e-5 : tensor<4x1xf16>
  %4 = kernel.rsqrt %3 : tensor<4x1xf16>
  %5 = kernel.mul %x, %4 : tensor<4x3072xf16>, tensor<4x1xf16>
  %6 = kernel.matmul %5, %w : tensor<4x3072xf16>, tensor<3072x64xf16>
  return %6 : tensor<4x64xf16>
}

// bf16(1 / 3000): 1 / value is 2995.9; 3008 = 64 * 47 also rounds to it.
func.func @bf16_3000(%x: tensor<4x3000xbf16>, %w: tensor<3000x64xbf16>) -> tensor<4x64xbf16> {
  %0 = kernel.square %x : tensor<4x3000xbf16>
  %1 = kernel.reduce_sum %0 dim 1 : tensor<4x3000xbf16>
  %2 = kernel.mul_scalar %1, 3.337860107421875E-4 : tensor<4x1xbf16>
  %3 = kernel.add_scalar %2, 1.0e-5 : tensor<4x1xbf16>
  %4 = kernel.rsqrt %3 : tensor<4x1xbf16>
  %5 = kernel.mul %x, %4 : tensor<4x3000xbf16>, tensor<4x1xbf16>
  %6 = kernel.matmul %5, %w : tensor<4x3000xbf16>, tensor<3000x64xbf16>
  return %6 : tensor<4x64xbf16>
}
