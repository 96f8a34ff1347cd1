// REQUIRES: mlir-runner
// Both attention μGraphs (plain exp/sum and online softmax with max and
// rescale accumulators) run on the CPU, following their schedules, to the
// numbers of the unfused reference (relative error <= 1e-4 in f32).
// RUN: cat %mlsopt_src_root/examples/attention.mlir %S/Inputs/compare.mlir %s \
// RUN:   | sed -e 's/f16/f32/g' -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// CHECK: fused
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: ok
// CHECK: fused_online_softmax
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: ok

func.func @main() {
  %s0 = arith.constant 0.3 : f32
  %s1 = arith.constant 1.1 : f32
  %s2 = arith.constant 2.9 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %eq = tensor.empty() : tensor<2x256x64xf32>
  %ek = tensor.empty() : tensor<2x64x4096xf32>
  %ev = tensor.empty() : tensor<2x4096x64xf32>
  %dq = tensor.cast %eq : tensor<2x256x64xf32> to tensor<?x?x?xf32>
  %dk = tensor.cast %ek : tensor<2x64x4096xf32> to tensor<?x?x?xf32>
  %dv = tensor.cast %ev : tensor<2x4096x64xf32> to tensor<?x?x?xf32>
  %fq = call @fill3(%dq, %s0, %half) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %fk = call @fill3(%dk, %s1, %half) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %fv = call @fill3(%dv, %s2, %one) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %q = tensor.cast %fq : tensor<?x?x?xf32> to tensor<2x256x64xf32>
  %k = tensor.cast %fk : tensor<?x?x?xf32> to tensor<2x64x4096xf32>
  %v = tensor.cast %fv : tensor<?x?x?xf32> to tensor<2x4096x64xf32>
  %ref = call @reference(%q, %k, %v) : (tensor<2x256x64xf32>, tensor<2x64x4096xf32>, tensor<2x4096x64xf32>) -> tensor<2x256x64xf32>
  %dref = tensor.cast %ref : tensor<2x256x64xf32> to tensor<?x?x?xf32>
  %a = call @collapse3(%dref) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>

  %got = call @fused(%q, %k, %v) : (tensor<2x256x64xf32>, tensor<2x64x4096xf32>, tensor<2x4096x64xf32>) -> tensor<2x256x64xf32>
  %dgot = tensor.cast %got : tensor<2x256x64xf32> to tensor<?x?x?xf32>
  %b = call @collapse3(%dgot) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  vector.print str "fused\n"
  %err = call @relerr2(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err) : (f32) -> ()

  %got2 = call @fused_online_softmax(%q, %k, %v) : (tensor<2x256x64xf32>, tensor<2x64x4096xf32>, tensor<2x4096x64xf32>) -> tensor<2x256x64xf32>
  %dgot2 = tensor.cast %got2 : tensor<2x256x64xf32> to tensor<?x?x?xf32>
  %c = call @collapse3(%dgot2) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  vector.print str "fused_online_softmax\n"
  %err2 = call @relerr2(%a, %c) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err2) : (f32) -> ()
  return
}
