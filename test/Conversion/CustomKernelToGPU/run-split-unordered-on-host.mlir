// REQUIRES: mlir-runner
// An argmax by an unordered comparison (`ugt`) over a row with a NaN at
// index 100 picks every element after the NaN in one walk, which no
// chunk's winner tells a combine: it is not split (a split gave 27 where
// the walk gives 108), and stays one loop kernel with the walk's index.
// RUN: cat %s %S/Inputs/split-unordered-tensor-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 2>/dev/null \
// RUN: | mlsopt-opt --mlsopt-launches-to-host-loops \
// RUN: | sed -e '/^module.*{$/d' -e '/^}$/d' > %t.host.mlir
// RUN: cat %t.host.mlir %S/Inputs/split-unordered-buffer-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s

// CHECK: [108]

// REMARK-COUNT-2: runs as a loop kernel, one thread per result element
// REMARK-NOT: runs as two loop kernels

func.func @ugt() -> tensor<1xi64> {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %el = tensor.empty() : tensor<1x1024xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%el : tensor<1x1024xf32>) {
  ^bb0(%o: f32):
    %j = linalg.index 1 : index
    %c100 = arith.constant 100 : index
    %c37 = arith.constant 37 : index
    %c1000 = arith.constant 1000 : index
    %m = arith.muli %j, %c37 : index
    %r = arith.remui %m, %c1000 : index
    %ri = arith.index_cast %r : index to i64
    %f = arith.sitofp %ri : i64 to f32
    %isnan = arith.cmpi eq, %j, %c100 : index
    %nan = arith.constant 0x7FC00000 : f32
    %v = arith.select %isnan, %nan, %f : f32
    linalg.yield %v : f32
  } -> tensor<1x1024xf32>
  %e1 = tensor.empty() : tensor<1xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<1xf32>) -> tensor<1xf32>
  %e2 = tensor.empty() : tensor<1xi64>
  %i0 = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<1xi64>) -> tensor<1xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1x1024xf32>) outs(%m0, %i0 : tensor<1xf32>, tensor<1xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %g = arith.cmpf ugt, %in, %best : f32
    %v = arith.select %g, %in, %best : f32
    %a = arith.select %g, %jj, %at : i64
    linalg.yield %v, %a : f32, i64
  } -> (tensor<1xf32>, tensor<1xi64>)
  return %r#1 : tensor<1xi64>
}
