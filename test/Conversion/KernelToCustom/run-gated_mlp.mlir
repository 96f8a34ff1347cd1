// The default block graphs of --convert-kernel-to-custom compute what the
// kernel ops they replace compute: bench/gated_mlp_b1.mlir, imported and with every
// kernel op wrapped in its default custom kernel, run on the CPU (the custom
// kernels as loops that follow their schedule, the same block graphs the GPU
// lowering compiles) to test/Bench/run-gated_mlp.mlir's numbers and within 1e-4 of
// the original linalg program.
// REQUIRES: mlir-runner
// The batch-1 GatedMLP benchmark (bench/gated_mlp_b1.mlir), at full shape: its
// import into the kernel dialect computes what the original linalg computes.
//
// Run 1: @gated_mlp as imported into the kernel dialect (the printed module loses
// its `module {` line and closing brace so that it can be concatenated) and
// the bench file as it is, renamed @gated_mlp_ref, in one program lowered by
// --mlsopt-cpu-pipeline. @main prints statistics of @gated_mlp's result (sum and
// max of |O|), then its relative error to @gated_mlp_ref, which must be <= 1e-4.
// Run 2: the original linalg alone, lowered by %lower_to_llvm (plus the vector
// conversion that compare.mlir's printing needs), both calls of @main going to
// it: the same statistics, checked by the same CHECK lines. Both runs work on
// the program converted to f32 (import.mlir checks the f16 import).
// RUN: sed -e 's/f16/f32/g' %mlsopt_src_root/bench/gated_mlp_b1.mlir \
// RUN:   | mlsopt-opt --convert-linalg-to-kernel --convert-kernel-to-custom \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.kernel.mlir
// RUN: sed -e 's/f16/f32/g' -e 's/@gated_mlp(/@gated_mlp_ref(/' %mlsopt_src_root/bench/gated_mlp_b1.mlir > %t.ref.mlir
// RUN: cat %t.kernel.mlir %t.ref.mlir %S/../../Examples/Inputs/compare.mlir %S/../../Bench/Inputs/helpers.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// Both runs: sum |O|, max |O| (to about 4 digits), relative error, verdict.
// CHECK: gated_mlp_b1
// CHECK-NEXT: {{^3425[0-9][0-9]$}}
// CHECK-NEXT: {{^39\.36[0-9]*$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok

// X, W1 and W2 vary slowly along the reduction dim: X W1 reaches about +-8,
// where silu is neither linear nor zero.
func.func @main() {
  %c0_3 = arith.constant 0.3 : f32
  %c1_0 = arith.constant 1.0 : f32
  %c1_1 = arith.constant 1.1 : f32
  %c0_00390625 = arith.constant 0.00390625 : f32
  %c2_9 = arith.constant 2.9 : f32
  %e_x = tensor.empty() : tensor<8x4096xf32>
  %d_x = tensor.cast %e_x : tensor<8x4096xf32> to tensor<?x?xf32>
  %f_x = call @fill2(%d_x, %c0_3, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %f_x : tensor<?x?xf32> to tensor<8x4096xf32>
  %e_w1 = tensor.empty() : tensor<4096x4096xf32>
  %d_w1 = tensor.cast %e_w1 : tensor<4096x4096xf32> to tensor<?x?xf32>
  %f_w1 = call @fill2t(%d_w1, %c1_1, %c0_00390625) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %w1 = tensor.cast %f_w1 : tensor<?x?xf32> to tensor<4096x4096xf32>
  %e_w2 = tensor.empty() : tensor<4096x4096xf32>
  %d_w2 = tensor.cast %e_w2 : tensor<4096x4096xf32> to tensor<?x?xf32>
  %f_w2 = call @fill2t(%d_w2, %c2_9, %c0_00390625) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %w2 = tensor.cast %f_w2 : tensor<?x?xf32> to tensor<4096x4096xf32>
  %got = call @gated_mlp(%x, %w1, %w2) : (tensor<8x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<8x4096xf32>
  %ref = call @gated_mlp_ref(%x, %w1, %w2) : (tensor<8x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<8x4096xf32>
  %og = tensor.cast %got : tensor<8x4096xf32> to tensor<?x?xf32>
  %or = tensor.cast %ref : tensor<8x4096xf32> to tensor<?x?xf32>
  vector.print str "gated_mlp_b1\n"
  call @stats2(%og) : (tensor<?x?xf32>) -> ()
  %err = call @relerr2(%or, %og) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err) : (f32) -> ()
  return
}
