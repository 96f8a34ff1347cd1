// The default block graphs of --convert-kernel-to-custom compute what the
// kernel ops they replace compute: bench/qknorm_b1.mlir, imported and with every
// kernel op wrapped in its default custom kernel, run on the CPU (the custom
// kernels as loops that follow their schedule, the same block graphs the GPU
// lowering compiles) to test/Bench/run-qknorm.mlir's numbers and within 1e-4 of
// the original linalg program.
// REQUIRES: mlir-runner
// The batch-1 QKNorm benchmark (bench/qknorm_b1.mlir), at full shape: its
// import into the kernel dialect computes what the original linalg computes.
//
// Run 1: @qknorm as imported into the kernel dialect (the printed module loses
// its `module {` line and closing brace so that it can be concatenated) and
// the bench file as it is, renamed @qknorm_ref, in one program lowered by
// --mlsopt-cpu-pipeline. @main prints statistics of @qknorm's result (sum and
// max of |O|), then its relative error to @qknorm_ref, which must be <= 1e-4.
// Run 2: the original linalg alone, lowered by %lower_to_llvm (plus the vector
// conversion that compare.mlir's printing needs), both calls of @main going to
// it: the same statistics, checked by the same CHECK lines. Both runs work on
// the program converted to f32 (import.mlir checks the f16 import).
// RUN: sed -e 's/f16/f32/g' %mlsopt_src_root/bench/qknorm_b1.mlir \
// RUN:   | mlsopt-opt --convert-linalg-to-kernel --convert-kernel-to-custom \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.kernel.mlir
// RUN: sed -e 's/f16/f32/g' -e 's/@qknorm(/@qknorm_ref(/' %mlsopt_src_root/bench/qknorm_b1.mlir > %t.ref.mlir
// RUN: cat %t.kernel.mlir %t.ref.mlir %S/../../Examples/Inputs/compare.mlir %S/../../Bench/Inputs/helpers.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s
// The raised run: the same with the normalizations raised first (--raise-kernel-idioms),
// so that Q's is one block.rms_norm over dim 2 and K's one over dim 1 (K is
// [h, d, n]): the default block graph of a norm over a non-last dim, run as
// loops, against the linalg reference.
// RUN: sed -e 's/f16/f32/g' %mlsopt_src_root/bench/qknorm_b1.mlir \
// RUN:   | mlsopt-opt --convert-linalg-to-kernel --raise-kernel-idioms --convert-kernel-to-custom \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.raised.mlir
// RUN: FileCheck %s --check-prefix=RAISED < %t.raised.mlir
// RUN: cat %t.raised.mlir %t.ref.mlir %S/../../Examples/Inputs/compare.mlir %S/../../Bench/Inputs/helpers.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// RAISED-LABEL: func.func @qknorm
// RAISED: block.rms_norm %{{.*}} {epsilon = {{.*}}} : tensor<1x{{[0-9]+}}x64xf32>
// RAISED: block.rms_norm %{{.*}} dim 1 {epsilon = {{.*}}} : tensor<1x64x{{[0-9]+}}xf32>

// Both runs: sum |O|, max |O| (to about 4 digits), relative error, verdict.
// CHECK: qknorm_b1
// CHECK-NEXT: {{^206[89][0-9]\.[0-9]*$}}
// CHECK-NEXT: {{^0\.993[0-9]*$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok

// As for GQA; after the normalization the scores reach about +-64, which f32
// (not f16) holds without max subtraction.
func.func @main() {
  %c0_3 = arith.constant 0.3 : f32
  %c0_5 = arith.constant 0.5 : f32
  %c1_1 = arith.constant 1.1 : f32
  %c2_9 = arith.constant 2.9 : f32
  %c1_0 = arith.constant 1.0 : f32
  %e_q = tensor.empty() : tensor<2x256x64xf32>
  %d_q = tensor.cast %e_q : tensor<2x256x64xf32> to tensor<?x?x?xf32>
  %f_q = call @fill3(%d_q, %c0_3, %c0_5) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %q = tensor.cast %f_q : tensor<?x?x?xf32> to tensor<2x256x64xf32>
  %e_k = tensor.empty() : tensor<2x64x4096xf32>
  %d_k = tensor.cast %e_k : tensor<2x64x4096xf32> to tensor<?x?x?xf32>
  %f_k = call @fill3t(%d_k, %c1_1, %c0_5) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %k = tensor.cast %f_k : tensor<?x?x?xf32> to tensor<2x64x4096xf32>
  %e_v = tensor.empty() : tensor<2x4096x64xf32>
  %d_v = tensor.cast %e_v : tensor<2x4096x64xf32> to tensor<?x?x?xf32>
  %f_v = call @fill3(%d_v, %c2_9, %c1_0) : (tensor<?x?x?xf32>, f32, f32) -> tensor<?x?x?xf32>
  %v = tensor.cast %f_v : tensor<?x?x?xf32> to tensor<2x4096x64xf32>
  %got = call @qknorm(%q, %k, %v) : (tensor<2x256x64xf32>, tensor<2x64x4096xf32>, tensor<2x4096x64xf32>) -> tensor<2x256x64xf32>
  %ref = call @qknorm_ref(%q, %k, %v) : (tensor<2x256x64xf32>, tensor<2x64x4096xf32>, tensor<2x4096x64xf32>) -> tensor<2x256x64xf32>
  %dgot = tensor.cast %got : tensor<2x256x64xf32> to tensor<?x?x?xf32>
  %dref = tensor.cast %ref : tensor<2x256x64xf32> to tensor<?x?x?xf32>
  %og = call @collapse3(%dgot) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  %or = call @collapse3(%dref) : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  vector.print str "qknorm_b1\n"
  call @stats2(%og) : (tensor<?x?xf32>) -> ()
  %err = call @relerr2(%or, %og) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err) : (f32) -> ()
  return
}
