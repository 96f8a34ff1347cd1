// Linalg handed to --superoptimize without --convert-linalg-to-kernel: the
// function is left as it is, with a warning that says what to run (it was
// returned unchanged without a word). Fills alone are not counted.
// RUN: mlsopt-opt %s --superoptimize=timeout=1 -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --superoptimize=timeout=1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=IMPORTED
// CHECK: linalg-not-imported.mlir:[[# @LINE + 14]]:1: warning: superoptimize: @linear_relu has no kernel ops to search, and 2 linalg ops: run --convert-linalg-to-kernel first
// IR: linalg.matmul
// IR: linalg.generic
// IMPORTED-NOT: warning
// IMPORTED: remark: superoptimize: replaced 2 kernel ops
// On dynamic shapes, which the import leaves, the warning says so instead.
// IMPORTED: linalg-not-imported.mlir:[[# @LINE + 22]]:1: warning: superoptimize: @dynamic_rows has no kernel ops to search, and 1 linalg ops on tensors of dynamic shape, which neither --convert-linalg-to-kernel nor the search takes
// Where the import leaves every op, the warning gives the first one's
// reason instead of advising the import (which had been run).
// CHECK: linalg-not-imported.mlir:[[# @LINE + 24]]:1: warning: superoptimize: @embedding has no kernel ops to search, and 1 linalg ops that --convert-linalg-to-kernel does not import ('linalg.generic' at {{.*}}linalg-not-imported.mlir:[[# @LINE + 26]]:8: payload op 'tensor.extract' reads a tensor at indices it computes (a gather)
// IMPORTED: @embedding has no kernel ops to search, and 1 linalg ops that --convert-linalg-to-kernel does not import

#id = affine_map<(i, j) -> (i, j)>

func.func @linear_relu(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %zero : f32
    linalg.yield %y : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

func.func @dynamic_rows(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>, %init: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %m = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x32xf32>) outs(%init : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %m : tensor<?x32xf32>
}

func.func @embedding(%ids: tensor<4xi64>, %table: tensor<100x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<100x16xf32>
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
