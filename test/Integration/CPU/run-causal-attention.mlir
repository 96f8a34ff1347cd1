// REQUIRES: mlir-runner
// Superoptimized causal attentions, run on the CPU through their block
// graphs, compute what the linalg programs compute (renamed *_ref, lowered
// in the same module): the finite-field test cannot see that exp(-inf) is
// 0, these runs can. ../causal-attention.mlir (128 queries after 384
// past tokens) is one iteration over all keys; ../causal-prefill.mlir
// (512 tokens) is an online softmax over key tiles, where the tiles after a
// row's position are masked entirely: their maximum is -inf, and their
// terms must add 0 to the rescale accumulators, not exp(-inf - -inf), NaN.
// @main prints statistics of each result, then the relative error, <= 1e-4.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %S/../causal-attention.mlir --convert-linalg-to-kernel --superoptimize="latency-veto=false timeout=10" \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.opt.mlir
// RUN: mlsopt-opt %S/../causal-prefill.mlir --convert-linalg-to-kernel --superoptimize="latency-veto=false timeout=10" \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.prefill.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: FileCheck %s --check-prefix=PREFILL < %t.prefill.mlir
// RUN: sed -e 's/@causal_attention(/@causal_attention_ref(/' %S/../causal-attention.mlir > %t.ref.mlir
// RUN: sed -e 's/@causal_prefill(/@causal_prefill_ref(/' -e 's/#m3/#pm3/g' -e 's/#r3/#pr3/g' %S/../causal-prefill.mlir > %t.prefill-ref.mlir
// RUN: cat %t.opt.mlir %t.ref.mlir %t.prefill.mlir %t.prefill-ref.mlir %S/../../Examples/Inputs/compare.mlir %S/../../Bench/Inputs/helpers.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// OPT: block.triangle_fill
// PREFILL: block.for_loop {{[0-9]+}} iterations accumulate (max, rescale by 0
// PREFILL: block.triangle_fill {{.*}} fmap 2

// CHECK: causal_attention
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok
// CHECK: causal_prefill
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
  %e_p = tensor.empty() : tensor<2x512x64xf32>
  %d_p = tensor.cast %e_p : tensor<2x512x64xf32> to tensor<?x?x?xf32>
  %f_p = call @fill3(%d_p, %c0_3, %c0_5) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %pq = tensor.cast %f_p : tensor<?x?x?xf32> to tensor<2x512x64xf32>
  %pgot = call @causal_prefill(%pq, %k, %v) : (tensor<2x512x64xf32>, tensor<2x512x64xf32>, tensor<2x512x64xf32>) -> tensor<2x512x64xf32>
  %pref = call @causal_prefill_ref(%pq, %k, %v) : (tensor<2x512x64xf32>, tensor<2x512x64xf32>, tensor<2x512x64xf32>) -> tensor<2x512x64xf32>
  %dpgot = tensor.cast %pgot : tensor<2x512x64xf32> to tensor<?x?x?xf32>
  %dpref = tensor.cast %pref : tensor<2x512x64xf32> to tensor<?x?x?xf32>
  %pog = call @collapse3(%dpgot) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  %por = call @collapse3(%dpref) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  vector.print str "causal_prefill\n"
  call @stats2(%pog) : (tensor<?x?xf32>) -> ()
  %perr = call @relerr2(%por, %pog) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%perr) : (f32) -> ()
  return
}
