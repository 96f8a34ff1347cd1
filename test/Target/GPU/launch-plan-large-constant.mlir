// A constant is carried in the launch plan's JSON, in base64: one of 8 GiB
// (a splat, small in the module) took minutes and 19 GB of memory to write.
// Past 256 MiB it is a located error.
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.mlir
// RUN: not mlsopt-translate --emit-launch-plan %t.mlir 2>&1 | FileCheck %s
// CHECK: error: the launch plan carries constants of at most 268435456 bytes, and this one has 8589934592; pass it to the function as an input
func.func @f(%x: tensor<65536x65536xf16>) -> tensor<65536x65536xf16> {
  %c = arith.constant dense<1.0> : tensor<65536x65536xf16>
  %b = kernel.add %x, %c : tensor<65536x65536xf16>, tensor<65536x65536xf16>
  return %b : tensor<65536x65536xf16>
}
