// REQUIRES: mlir-runner
// The example's μGraph runs on the CPU, following its schedule, to the numbers
// of its unfused reference (relative error <= 1e-4 in f32).
// RUN: cat %mlsopt_src_root/examples/gated_mlp.mlir %S/Inputs/compare.mlir %s \
// RUN:   | sed -e 's/f16/f32/g' -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// CHECK: fused
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: ok

func.func @main() {
  %s0 = arith.constant 0.3 : f32
  %s1 = arith.constant 1.1 : f32
  %s2 = arith.constant 2.9 : f32
  %one = arith.constant 1.0 : f32
  %wscale = arith.constant 0.015625 : f32
  %ex = tensor.empty() : tensor<8x4096xf32>
  %ew = tensor.empty() : tensor<4096x4096xf32>
  %dx = tensor.cast %ex : tensor<8x4096xf32> to tensor<?x?xf32>
  %dw = tensor.cast %ew : tensor<4096x4096xf32> to tensor<?x?xf32>
  %fx = call @fill2(%dx, %s0, %one) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %fw1 = call @fill2(%dw, %s1, %wscale) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %fw2 = call @fill2(%dw, %s2, %wscale) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %fx : tensor<?x?xf32> to tensor<8x4096xf32>
  %w1 = tensor.cast %fw1 : tensor<?x?xf32> to tensor<4096x4096xf32>
  %w2 = tensor.cast %fw2 : tensor<?x?xf32> to tensor<4096x4096xf32>
  %ref = call @reference(%x, %w1, %w2) : (tensor<8x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<8x4096xf32>
  %got = call @fused(%x, %w1, %w2) : (tensor<8x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<8x4096xf32>
  %a = tensor.cast %ref : tensor<8x4096xf32> to tensor<?x?xf32>
  %b = tensor.cast %got : tensor<8x4096xf32> to tensor<?x?xf32>
  vector.print str "fused\n"
  %err = call @relerr2(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err) : (f32) -> ()
  return
}
