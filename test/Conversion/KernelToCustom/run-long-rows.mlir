// REQUIRES: mlir-runner
// An rms_norm whose rows do not fit a block's shared memory (65536 f32
// values per row) has no default block graph of its own: the conversion
// computes it as convert / square / reduce_sum / mul_scalar / add_scalar /
// rsqrt / mul, each in its default custom kernel (the reduction walks the
// row in its for-loop). Run on the CPU, the custom kernels as loops that
// follow their schedules, it computes what rms_norm itself does, which
// @long_norm_ref (the same op, lowered by --mlsopt-cpu-pipeline without
// custom kernels) computes. @main prints sum and max of |O|, then the
// relative error, which must be <= 1e-4.
// RUN: mlsopt-opt %S/Inputs/long-rows.mlir --convert-kernel-to-custom \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=KERNEL < %t.kernel.mlir
// RUN: sed -e 's/@long_norm(/@long_norm_ref(/' %S/Inputs/long-rows.mlir > %t.ref.mlir
// RUN: cat %t.kernel.mlir %t.ref.mlir %S/../../Examples/Inputs/compare.mlir %S/../../Bench/Inputs/helpers.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// KERNEL-LABEL: func.func @long_norm
// KERNEL-NOT: kernel.rms_norm
// KERNEL: block.square
// KERNEL: block.reduce_sum
// KERNEL: block.mul_scalar {{.*}}, 1.52587890625E-5
// KERNEL: block.add_scalar {{.*}}, 9.99999{{[0-9]*}}E-7
// KERNEL: block.rsqrt
// KERNEL: block.mul
// KERNEL-NOT: kernel.rms_norm
// KERNEL: return

// CHECK: long_rows
// CHECK-NEXT: {{^[0-9.e+]+$}}
// CHECK-NEXT: {{^[0-9.e+]+$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok

func.func @main() {
  %c0_3 = arith.constant 0.3 : f32
  %c1_0 = arith.constant 1.0 : f32
  %e_x = tensor.empty() : tensor<2x65536xf32>
  %d_x = tensor.cast %e_x : tensor<2x65536xf32> to tensor<?x?xf32>
  %f_x = call @fill2(%d_x, %c0_3, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %f_x : tensor<?x?xf32> to tensor<2x65536xf32>
  %got = call @long_norm(%x) : (tensor<2x65536xf32>) -> tensor<2x65536xf32>
  %ref = call @long_norm_ref(%x) : (tensor<2x65536xf32>) -> tensor<2x65536xf32>
  %og = tensor.cast %got : tensor<2x65536xf32> to tensor<?x?xf32>
  %or = tensor.cast %ref : tensor<2x65536xf32> to tensor<?x?xf32>
  vector.print str "long_rows\n"
  call @stats2(%og) : (tensor<?x?xf32>) -> ()
  %err = call @relerr2(%or, %og) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err) : (f32) -> ()
  return
}
