// The inputs (from loop indices) and printers of run-split-named-reductions-on-host.mlir.
func.func private @printMemrefF64(memref<*xf64>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
func.func @gen() -> (tensor<3x1024xf64>, tensor<2x768xi32>, tensor<768x3xi32>) {
  %e0 = tensor.empty() : tensor<3x1024xf64>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e0 : tensor<3x1024xf64>) {
  ^bb0(%o: f64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c5 = arith.constant 5 : index
    %s = arith.addi %i, %j : index
    %r = arith.remui %s, %c5 : index
    %ri = arith.index_cast %r : index to i64
    %f = arith.sitofp %ri : i64 to f64
    %q = arith.constant 0.5 : f64
    %v = arith.mulf %f, %q : f64
    linalg.yield %v : f64
  } -> tensor<3x1024xf64>
  %e1 = tensor.empty() : tensor<2x768xi32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e1 : tensor<2x768xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c7 = arith.constant 7 : index
    %s = arith.addi %i, %j : index
    %r = arith.remui %s, %c7 : index
    %ri = arith.index_cast %r : index to i32
    %c3 = arith.constant 3 : i32
    %v = arith.subi %ri, %c3 : i32
    linalg.yield %v : i32
  } -> tensor<2x768xi32>
  %e2 = tensor.empty() : tensor<768x3xi32>
  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e2 : tensor<768x3xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c3i = arith.constant 3 : index
    %p = arith.muli %i, %c3i : index
    %s = arith.addi %p, %j : index
    %c11 = arith.constant 11 : index
    %r = arith.remui %s, %c11 : index
    %ri = arith.index_cast %r : index to i32
    linalg.yield %ri : i32
  } -> tensor<768x3xi32>
  return %x, %a, %b : tensor<3x1024xf64>, tensor<2x768xi32>, tensor<768x3xi32>
}
