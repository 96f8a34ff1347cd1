// REQUIRES: mlir-runner
// Custom kernels that read slices load windows of the sliced values
// (--fold-slices-into-loads): no slice is left to copy. Run on the CPU, the
// windows as offsets of the loops' tiles, they compute what the slices and
// the ops do (@slices_ref, lowered by --mlsopt-cpu-pipeline without custom
// kernels). @main prints sum and max of |O|, then the relative error, which
// must be <= 1e-4.
// RUN: mlsopt-opt %S/Inputs/slices.mlir --convert-kernel-to-custom --fold-slices-into-loads \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=KERNEL < %t.kernel.mlir
// RUN: sed -e 's/@slices(/@slices_ref(/' %S/Inputs/slices.mlir > %t.ref.mlir
// RUN: cat %t.kernel.mlir %t.ref.mlir %S/../../Examples/Inputs/compare.mlir %S/../../Bench/Inputs/helpers.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// KERNEL-LABEL: func.func @slices
// KERNEL-NOT: tensor.extract_slice
// KERNEL: block.load %in0 window [0, 0] [8, 32]
// KERNEL: kernel.custom(%{{.*}}, %arg0)
// KERNEL: block.load %in1 window [0, 32] [8, 32]
// KERNEL: block.load %in0 window [2, 0] [4, 32]
// KERNEL: kernel.custom(%{{.*}}, %arg0)
// KERNEL: block.load %in1 window [3, 5] [4, 16]
// KERNEL-NOT: tensor.extract_slice
// KERNEL: return

// CHECK: slices
// CHECK-NEXT: {{^[0-9.e+]+$}}
// CHECK-NEXT: {{^[0-9.e+]+$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok

func.func @main() {
  %c0_3 = arith.constant 0.3 : f32
  %c0_7 = arith.constant 0.7 : f32
  %c1_0 = arith.constant 1.0 : f32
  %e_h = tensor.empty() : tensor<8x64xf32>
  %d_h = tensor.cast %e_h : tensor<8x64xf32> to tensor<?x?xf32>
  %f_h = call @fill2(%d_h, %c0_3, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %h = tensor.cast %f_h : tensor<?x?xf32> to tensor<8x64xf32>
  %e_w = tensor.empty() : tensor<32x16xf32>
  %d_w = tensor.cast %e_w : tensor<32x16xf32> to tensor<?x?xf32>
  %f_w = call @fill2(%d_w, %c0_7, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %f_w : tensor<?x?xf32> to tensor<32x16xf32>
  %got = call @slices(%h, %w) : (tensor<8x64xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  %ref = call @slices_ref(%h, %w) : (tensor<8x64xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  %og = tensor.cast %got : tensor<4x16xf32> to tensor<?x?xf32>
  %or = tensor.cast %ref : tensor<4x16xf32> to tensor<?x?xf32>
  vector.print str "slices\n"
  call @stats2(%og) : (tensor<?x?xf32>) -> ()
  %err = call @relerr2(%or, %og) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%err) : (f32) -> ()
  return
}
