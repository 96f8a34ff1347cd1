// A call to a public function is one entry point calling another (a test
// harness's @main): it stays, and each function is searched on its own, so
// that @forward rounds its f16 results where it returns them, called or
// not. (inline-calls.mlir: calls to private helpers are inlined.)
// RUN: mlsopt-opt %s --superoptimize="timeout=10" 2>&1 | FileCheck %s

// CHECK: remark: superoptimize: replaced 2 kernel ops {{.*}} by 1 kernels
// CHECK-LABEL: func.func @forward(
// CHECK: kernel.custom
// CHECK-LABEL: func.func @main(
// CHECK: %[[Y:.*]] = call @forward(
// CHECK: kernel.convert %[[Y]]
func.func @forward(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %e = kernel.exp %x : tensor<8x64xf16>
  %s = kernel.mul %e, %x : tensor<8x64xf16>, tensor<8x64xf16>
  return %s : tensor<8x64xf16>
}
func.func @main(%x: tensor<8x64xf16>) -> tensor<8x64xf32> {
  %y = call @forward(%x) : (tensor<8x64xf16>) -> tensor<8x64xf16>
  %w = kernel.convert %y : tensor<8x64xf16> to tensor<8x64xf32>
  return %w : tensor<8x64xf32>
}
