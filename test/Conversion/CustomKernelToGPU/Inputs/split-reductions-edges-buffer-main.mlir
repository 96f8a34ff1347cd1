// The inputs and printing of run-split-reductions-edges-on-host.mlir, on the host function's buffers.
func.func @main() {
  %a = memref.get_global @acc : memref<3xf64>
  %e = tensor.empty() : tensor<64x96xi32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<64x96xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c37 = arith.constant 37 : index
    %c101 = arith.constant 101 : index
    %p = arith.muli %i, %c37 : index
    %s = arith.addi %p, %j : index
    %r = arith.remui %s, %c101 : index
    %ri = arith.index_cast %r : index to i32
    linalg.yield %ri : i32
  } -> tensor<64x96xi32>
  %mb = bufferization.to_buffer %m : tensor<64x96xi32> to memref<64x96xi32>
  %b0 = memref.alloc() : memref<3xf64>
  %b1 = memref.alloc() : memref<i32>
  %b2 = memref.alloc() : memref<4xf64>
  %b3 = memref.alloc() : memref<i1>
  call @edges(%a, %mb, %b0, %b1, %b2, %b3) : (memref<3xf64>, memref<64x96xi32>, memref<3xf64>, memref<i32>, memref<4xf64>, memref<i1>) -> ()
  %u0 = memref.cast %b0 : memref<3xf64> to memref<*xf64>
  %u1 = memref.cast %b1 : memref<i32> to memref<*xi32>
  %u2 = memref.cast %b2 : memref<4xf64> to memref<*xf64>
  call @printMemrefF64(%u0) : (memref<*xf64>) -> ()
  call @printMemrefI32(%u1) : (memref<*xi32>) -> ()
  call @printMemrefF64(%u2) : (memref<*xf64>) -> ()
  %v = memref.load %b3[] : memref<i1>
  %v8 = arith.extui %v : i1 to i32
  %h = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  memref.store %v8, %h[%c0] : memref<1xi32>
  %u3 = memref.cast %h : memref<1xi32> to memref<*xi32>
  call @printMemrefI32(%u3) : (memref<*xi32>) -> ()
  return
}
