// REQUIRES: mlir-runner
// The superoptimized causal attention (Inputs/causal-attention.mlir), run
// on the CPU through its block graph, computes what the linalg program
// computes (renamed @causal_attention_ref, lowered in the same module):
// the finite-field test cannot see that exp(-inf) is 0, this run can. @main
// prints statistics of the result, then the relative error, <= 1e-4.
// RUN: mlsopt-opt %S/Inputs/causal-attention.mlir --convert-linalg-to-kernel --superoptimize=timeout=10 \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: sed -e 's/@causal_attention(/@causal_attention_ref(/' %S/Inputs/causal-attention.mlir > %t.ref.mlir
// RUN: cat %t.opt.mlir %t.ref.mlir %S/../Examples/Inputs/compare.mlir %S/../Bench/Inputs/helpers.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// OPT: block.triangle_fill

// CHECK: causal_attention
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok

func.func @main() {
  %c0_3 = arith.constant 0.3 : f32
  %c0_5 = arith.constant 0.5 : f32
  %c1_1 = arith.constant 1.1 : f32
  %c2_9 = arith.constant 2.9 : f32
  %c1_0 = arith.constant 1.0 : f32
  %e_q = tensor.empty() : tensor<2x128x64xf32>
  %d_q = tensor.cast %e_q : tensor<2x128x64xf32> to tensor<?x?x?xf32>
  %f_q = call @fill3(%d_q, %c0_3, %c0_5) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %q = tensor.cast %f_q : tensor<?x?x?xf32> to tensor<2x128x64xf32>
  %e_k = tensor.empty() : tensor<2x512x64xf32>
  %d_k = tensor.cast %e_k : tensor<2x512x64xf32> to tensor<?x?x?xf32>
  %f_k = call @fill3(%d_k, %c1_1, %c0_5) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %k = tensor.cast %f_k : tensor<?x?x?xf32> to tensor<2x512x64xf32>
  %e_v = tensor.empty() : tensor<2x512x64xf32>
  %d_v = tensor.cast %e_v : tensor<2x512x64xf32> to tensor<?x?x?xf32>
  %f_v = call @fill3(%d_v, %c2_9, %c1_0) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %v = tensor.cast %f_v : tensor<?x?x?xf32> to tensor<2x512x64xf32>
  %got = call @causal_attention(%q, %k, %v) : (tensor<2x128x64xf32>, tensor<2x512x64xf32>, tensor<2x512x64xf32>) -> tensor<2x128x64xf32>
  %ref = call @causal_attention_ref(%q, %k, %v) : (tensor<2x128x64xf32>, tensor<2x512x64xf32>, tensor<2x512x64xf32>) -> tensor<2x128x64xf32>
  %dgot = tensor.cast %got : tensor<2x128x64xf32> to tensor<?x?x?xf32>
  %dref = tensor.cast %ref : tensor<2x128x64xf32> to tensor<?x?x?xf32>
  %og = call @collapse3(%dgot) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  %or = call @collapse3(%dref) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  vector.print str "causal_attention\n"
  call @stats2(%og) : (tensor<?x?xf32>) -> ()
  %err = call @relerr2(%or, %og) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err) : (f32) -> ()
  return
}
