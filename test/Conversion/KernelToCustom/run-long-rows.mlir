// REQUIRES: mlir-runner
// An rms_norm whose rows do not fit a block's shared memory (65536 f32
// values per row) has no default block graph of its own: the conversion
// computes it as convert / square / reduce_sum / mul_scalar / add_scalar /
// rsqrt / mul, each in its default custom kernel (the reduction walks the
// row in its for-loop). Run on the CPU, the custom kernels as loops that
// follow their schedules, it computes what rms_norm itself does, which
// @long_norm_ref (the same op, lowered by --mlsopt-cpu-pipeline without
// custom kernels) computes. @main prints sum and max of |O|, then the
// relative error, which must be <= 1e-4. A concat along rows too long for
// a block (@long_concat) joins views that factor its dim, [3, 10000] and
// [2, 10000] into [5, 10000]: its result is a copy, so the error is 0.
// RUN: mlsopt-opt %S/Inputs/long-rows.mlir --convert-kernel-to-custom \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=KERNEL < %t.kernel.mlir
// RUN: sed -e 's/@long_norm(/@long_norm_ref(/' -e 's/@long_concat(/@long_concat_ref(/' %S/Inputs/long-rows.mlir > %t.ref.mlir
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

// KERNEL-LABEL: func.func @long_concat
// KERNEL-DAG: tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [2, 3, 10000]
// KERNEL-DAG: tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [2, 2, 10000]
// KERNEL: kernel.custom
// KERNEL: block.concat {{.*}} dim 1 : tensor<1x3x{{[0-9]+}}xf32>, tensor<1x2x{{[0-9]+}}xf32>
// KERNEL: tensor.collapse_shape {{.*}} : tensor<2x5x10000xf32> into tensor<2x50000xf32>
// KERNEL-NOT: kernel.concat
// KERNEL: return

// CHECK: long_rows
// CHECK-NEXT: {{^[0-9.e+]+$}}
// CHECK-NEXT: {{^[0-9.e+]+$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok
// CHECK: long_concat
// CHECK-NEXT: {{^0$}}
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

  %e_a = tensor.empty() : tensor<2x30000xf32>
  %d_a = tensor.cast %e_a : tensor<2x30000xf32> to tensor<?x?xf32>
  %f_a = call @fill2(%d_a, %c0_3, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %a = tensor.cast %f_a : tensor<?x?xf32> to tensor<2x30000xf32>
  %c0_7 = arith.constant 0.7 : f32
  %e_b = tensor.empty() : tensor<2x20000xf32>
  %d_b = tensor.cast %e_b : tensor<2x20000xf32> to tensor<?x?xf32>
  %f_b = call @fill2(%d_b, %c0_7, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %b = tensor.cast %f_b : tensor<?x?xf32> to tensor<2x20000xf32>
  %cgot = call @long_concat(%a, %b) : (tensor<2x30000xf32>, tensor<2x20000xf32>) -> tensor<2x50000xf32>
  %cref = call @long_concat_ref(%a, %b) : (tensor<2x30000xf32>, tensor<2x20000xf32>) -> tensor<2x50000xf32>
  %ocg = tensor.cast %cgot : tensor<2x50000xf32> to tensor<?x?xf32>
  %ocr = tensor.cast %cref : tensor<2x50000xf32> to tensor<?x?xf32>
  vector.print str "long_concat\n"
  %cerr = call @relerr2(%ocr, %ocg) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%cerr) : (f32) -> ()
  return
}
