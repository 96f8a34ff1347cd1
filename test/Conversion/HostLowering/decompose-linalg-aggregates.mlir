// RUN: mlsopt-opt %s --mlsopt-decompose-linalg-aggregates | FileCheck %s
// RUN: %if mlir-runner %{ mlsopt-opt %s --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=CPU %}

// linalg.softmax over a middle dim, which --convert-linalg-to-kernel does
// not import, runs on the CPU as the generic ops it stands for. Before, the
// CPU pipeline left it on memrefs and exited 0, and mlir-runner failed.

// CHECK-LABEL: func.func @softmax_mid
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic
// CHECK: arith.maxnumf
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK-NOT: linalg.softmax
// CHECK: return
func.func @softmax_mid(%x: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %e = tensor.empty() : tensor<2x3x2xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x3x2xf32>) outs(%e : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %s : tensor<2x3x2xf32>
}

// Along dim 1, [0, ln 2, ln 3] gives [1/6, 2/6, 3/6] and equal values 1/3;
// a shift of every value by 100 changes nothing (the maximum is taken
// first). vector.print of a whole vector needs --convert-vector-to-scf in
// the pipeline, which the check that ends it showed missing.
// CPU: ( 0.166667, 0.333333 )
// CPU-NEXT: ( 0.333333, 0.333333 )
// CPU-NEXT: ( 0.5, 0.333333 )
// CPU-NEXT: ( 0.166667, 0.333333 )
// CPU-NEXT: ( 0.333333, 0.333333 )
// CPU-NEXT: ( 0.5, 0.333333 )
func.func @main() {
  %x = arith.constant dense<[[[0.0, 7.0], [0.693147181, 7.0], [1.098612289, 7.0]],
                             [[100.0, -3.0], [100.693147181, -3.0], [101.098612289, -3.0]]]> : tensor<2x3x2xf32>
  %s = call @softmax_mid(%x) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %v = vector.transfer_read %s[%i, %j, %c0], %pad : tensor<2x3x2xf32>, vector<2xf32>
      vector.print %v : vector<2xf32>
    }
  }
  return
}
