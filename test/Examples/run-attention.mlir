// REQUIRES: mlir-runner
// The attention μGraphs run on the CPU, following their schedules, to the
// numbers of the unfused reference. @fused (plain exp/sum),
// @fused_online_softmax (max and rescale accumulators) and @flash_decoding
// (its tiles are the search's for f16 on sm_90; in f32 they fit every
// chip's shared memory since exp(S) is written in place of S and V is
// copied while exp(S) computes) run in f32, relative error <= 1e-4.
// @flash_decoding also runs as written, in f16, on the f32 inputs rounded
// to f16, against the f32 reference: relative error <= 2e-2 (about 1.3e-2
// here, as for @reference and @fused run in f16: the rounding of the inputs
// and of exp(S), not the split, sets it).
// RUN: sed -e 's/f16/f32/g' %mlsopt_src_root/examples/attention.mlir > %t.f32.mlir
// RUN: sed -n '/^func.func @flash_decoding(/,/^}/p' %mlsopt_src_root/examples/attention.mlir \
// RUN:   | sed -e 's/attributes {mlsopt.equivalent_to = @reference} //' \
// RUN:         -e 's/@flash_decoding(/@flash_decoding_f16(/' > %t.fd.mlir
// RUN: cat %t.f32.mlir %t.fd.mlir %S/Inputs/compare.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
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
// CHECK: flash_decoding (f32)
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: ok
// CHECK: flash_decoding (f16)
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

  %got4 = call @flash_decoding(%q, %k, %v) : (tensor<2x256x64xf32>, tensor<2x64x4096xf32>, tensor<2x4096x64xf32>) -> tensor<2x256x64xf32>
  %dgot4 = tensor.cast %got4 : tensor<2x256x64xf32> to tensor<?x?x?xf32>
  %e = call @collapse3(%dgot4) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  vector.print str "flash_decoding (f32)\n"
  %err4 = call @relerr2(%a, %e) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err4) : (f32) -> ()

  %q16 = call @truncf3(%fq) : (tensor<?x?x?xf32>) -> tensor<?x?x?xf16>
  %k16 = call @truncf3(%fk) : (tensor<?x?x?xf32>) -> tensor<?x?x?xf16>
  %v16 = call @truncf3(%fv) : (tensor<?x?x?xf32>) -> tensor<?x?x?xf16>
  %sq16 = tensor.cast %q16 : tensor<?x?x?xf16> to tensor<2x256x64xf16>
  %sk16 = tensor.cast %k16 : tensor<?x?x?xf16> to tensor<2x64x4096xf16>
  %sv16 = tensor.cast %v16 : tensor<?x?x?xf16> to tensor<2x4096x64xf16>
  %got3 = call @flash_decoding_f16(%sq16, %sk16, %sv16) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
  %dgot3 = tensor.cast %got3 : tensor<2x256x64xf16> to tensor<?x?x?xf16>
  %wgot3 = call @extf3(%dgot3) : (tensor<?x?x?xf16>) -> tensor<?x?x?xf32>
  %d = call @collapse3(%wgot3) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  vector.print str "flash_decoding (f16)\n"
  %err3 = call @relerr2(%a, %d) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  %bound16 = arith.constant 2.0e-2 : f32
  call @report_within(%err3, %bound16) : (f32, f32) -> ()
  return
}

// Rounds every element to f16, for a function that runs in f16 on inputs
// drawn in f32.
func.func @truncf3(%t: tensor<?x?x?xf32>) -> tensor<?x?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %t, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %t, %c2 : tensor<?x?x?xf32>
  %init = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                                        affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<?x?x?xf32>) outs(%init : tensor<?x?x?xf16>) {
  ^bb0(%x: f32, %o: f16):
    %h = arith.truncf %x : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x?x?xf16>
  return %r : tensor<?x?x?xf16>
}

// Widens an f16 result back to f32 for @relerr2.
func.func @extf3(%t: tensor<?x?x?xf16>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x?x?xf16>
  %d1 = tensor.dim %t, %c1 : tensor<?x?x?xf16>
  %d2 = tensor.dim %t, %c2 : tensor<?x?x?xf16>
  %init = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                                        affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<?x?x?xf16>) outs(%init : tensor<?x?x?xf32>) {
  ^bb0(%x: f16, %o: f32):
    %w = arith.extf %x : f16 to f32
    linalg.yield %w : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}
