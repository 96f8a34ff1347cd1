// REQUIRES: mlir-runner
// More long reductions split into two loop kernels: an f64 sum into an
// init the function takes (the chunks start from 0, and the init counts
// once: 1.5 + 1999), a max over both loops of a [64, 96] i32 tensor into
// a 0-d result (the outer loop split, the inner one walked in each chunk),
// a sum of a fill of ones (the chunks read a fill of their own shape, and
// the old fill goes), and an `any` as an i1 or. Run on the host, the
// kernels give the CPU pipeline's numbers.
// RUN: cat %s %S/Inputs/split-reductions-edges-common.mlir %S/Inputs/split-reductions-edges-tensor-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 2>/dev/null \
// RUN: | mlsopt-opt --mlsopt-launches-to-host-loops \
// RUN: | sed -e '/^module.*{$/d' -e '/^}$/d' > %t.host.mlir
// RUN: cat %t.host.mlir %S/Inputs/split-reductions-edges-common.mlir %S/Inputs/split-reductions-edges-buffer-main.mlir \
// RUN: | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s

// CHECK: [2000.5,  1999,  2000]
// CHECK: [100]
// CHECK: [1024,  1024,  1024,  1024]
// CHECK: [1]

// REMARK: runs as a loop kernel, one thread per result element
// REMARK: runs as two loop kernels, its reduction split into 40 chunks of 50
// REMARK: runs as two loop kernels, its reduction split into 8 chunks of 8
// REMARK: runs as two loop kernels, its reduction split into 32 chunks of 32
// REMARK: runs as two loop kernels, its reduction split into 8 chunks of 8

func.func @edges(%acc: tensor<3xf64>, %m: tensor<64x96xi32>) -> (tensor<3xf64>, tensor<i32>, tensor<4xf64>, tensor<i1>) {
  %e = tensor.empty() : tensor<3x2000xf64>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x2000xf64>) {
  ^bb0(%o: f64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s0 = arith.addi %i, %j : index
    %c3 = arith.constant 3 : index
    %s = arith.remui %s0, %c3 : index
    %si = arith.index_cast %s : index to i64
    %f = arith.sitofp %si : i64 to f64
    linalg.yield %f : f64
  } -> tensor<3x2000xf64>
  %r0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x2000xf64>) outs(%acc : tensor<3xf64>) {
  ^bb0(%in: f64, %a: f64):
    %s = arith.addf %a, %in : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  %c0 = arith.constant -2147483648 : i32
  %e0 = tensor.empty() : tensor<i32>
  %f0 = linalg.fill ins(%c0 : i32) outs(%e0 : tensor<i32>) -> tensor<i32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%m : tensor<64x96xi32>) outs(%f0 : tensor<i32>) {
  ^bb0(%in: i32, %a: i32):
    %s = arith.maxsi %a, %in : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  %one = arith.constant 1.0 : f64
  %z = arith.constant 0.0 : f64
  %e2 = tensor.empty() : tensor<4x1024xf64>
  %ones = linalg.fill ins(%one : f64) outs(%e2 : tensor<4x1024xf64>) -> tensor<4x1024xf64>
  %e3 = tensor.empty() : tensor<4xf64>
  %f3 = linalg.fill ins(%z : f64) outs(%e3 : tensor<4xf64>) -> tensor<4xf64>
  %r2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%ones : tensor<4x1024xf64>) outs(%f3 : tensor<4xf64>) {
  ^bb0(%in: f64, %a: f64):
    %s = arith.addf %a, %in : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %false = arith.constant false
  %e4 = tensor.empty() : tensor<i1>
  %f4 = linalg.fill ins(%false : i1) outs(%e4 : tensor<i1>) -> tensor<i1>
  %r3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%m : tensor<64x96xi32>) outs(%f4 : tensor<i1>) {
  ^bb0(%in: i32, %a: i1):
    %c90 = arith.constant 90 : i32
    %g = arith.cmpi sgt, %in, %c90 : i32
    %s = arith.ori %a, %g : i1
    linalg.yield %s : i1
  } -> tensor<i1>
  return %r0, %r1, %r2, %r3 : tensor<3xf64>, tensor<i32>, tensor<4xf64>, tensor<i1>
}
