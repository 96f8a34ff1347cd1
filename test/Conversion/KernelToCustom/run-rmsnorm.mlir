// The default block graphs of --convert-kernel-to-custom compute what the
// kernel ops they replace compute: bench/rmsnorm_b1.mlir, imported and with every
// kernel op wrapped in its default custom kernel, run on the CPU (the custom
// kernels as loops that follow their schedule, the same block graphs the GPU
// lowering compiles) to test/Bench/run-rmsnorm.mlir's numbers and within 1e-4 of
// the original linalg program.
// REQUIRES: mlir-runner
// The batch-1 RMSNorm benchmark (bench/rmsnorm_b1.mlir), at full shape: its
// import into the kernel dialect computes what the original linalg computes.
//
// Run 1: @rmsnorm as imported into the kernel dialect (the printed module loses
// its `module {` line and closing brace so that it can be concatenated) and
// the bench file as it is, renamed @rmsnorm_ref, in one program lowered by
// --mlsopt-cpu-pipeline. @main prints statistics of @rmsnorm's result (sum and
// max of |O|), then its relative error to @rmsnorm_ref, which must be <= 1e-4.
// Run 2: the original linalg alone, lowered by %lower_to_llvm (plus the vector
// conversion that compare.mlir's printing needs), both calls of @main going to
// it: the same statistics, checked by the same CHECK lines. Both runs work on
// the program converted to f32 (import.mlir checks the f16 import).
// RUN: sed -e 's/f16/f32/g' %mlsopt_src_root/bench/rmsnorm_b1.mlir \
// RUN:   | mlsopt-opt --convert-linalg-to-kernel --convert-kernel-to-custom \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.kernel.mlir
// RUN: sed -e 's/f16/f32/g' -e 's/@rmsnorm(/@rmsnorm_ref(/' %mlsopt_src_root/bench/rmsnorm_b1.mlir > %t.ref.mlir
// RUN: cat %t.kernel.mlir %t.ref.mlir %S/../../Examples/Inputs/compare.mlir %S/../../Bench/Inputs/helpers.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// Both runs: sum |O|, max |O| (to about 4 digits), relative error, verdict.
// CHECK: rmsnorm_b1
// CHECK-NEXT: {{^354[01][0-9][0-9]$}}
// CHECK-NEXT: {{^45\.29[0-9]*$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok

// X and W vary slowly along the reduction dim: outputs reach about +-45.
func.func @main() {
  %c0_3 = arith.constant 0.3 : f32
  %c1_0 = arith.constant 1.0 : f32
  %c1_1 = arith.constant 1.1 : f32
  %c0_015625 = arith.constant 0.015625 : f32
  %e_x = tensor.empty() : tensor<2x4096xf32>
  %d_x = tensor.cast %e_x : tensor<2x4096xf32> to tensor<?x?xf32>
  %f_x = call @fill2(%d_x, %c0_3, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %f_x : tensor<?x?xf32> to tensor<2x4096xf32>
  %e_w = tensor.empty() : tensor<4096x6144xf32>
  %d_w = tensor.cast %e_w : tensor<4096x6144xf32> to tensor<?x?xf32>
  %f_w = call @fill2t(%d_w, %c1_1, %c0_015625) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %f_w : tensor<?x?xf32> to tensor<4096x6144xf32>
  %got = call @rmsnorm(%x, %w) : (tensor<2x4096xf32>, tensor<4096x6144xf32>) -> tensor<2x6144xf32>
  %ref = call @rmsnorm_ref(%x, %w) : (tensor<2x4096xf32>, tensor<4096x6144xf32>) -> tensor<2x6144xf32>
  %og = tensor.cast %got : tensor<2x6144xf32> to tensor<?x?xf32>
  %or = tensor.cast %ref : tensor<2x6144xf32> to tensor<?x?xf32>
  vector.print str "rmsnorm_b1\n"
  call @stats2(%og) : (tensor<?x?xf32>) -> ()
  %err = call @relerr2(%or, %og) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err) : (f32) -> ()
  return
}
