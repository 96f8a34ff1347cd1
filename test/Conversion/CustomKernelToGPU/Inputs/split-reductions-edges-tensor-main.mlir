// The inputs and printing of run-split-reductions-edges-on-host.mlir, on tensors.
func.func @main() {
  %a = memref.get_global @acc : memref<3xf64>
  %at = bufferization.to_tensor %a restrict : memref<3xf64> to tensor<3xf64>
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
  %r:4 = call @edges(%at, %m) : (tensor<3xf64>, tensor<64x96xi32>) -> (tensor<3xf64>, tensor<i32>, tensor<4xf64>, tensor<i1>)
  %b0 = bufferization.to_buffer %r#0 : tensor<3xf64> to memref<3xf64>
  %b1 = bufferization.to_buffer %r#1 : tensor<i32> to memref<i32>
  %b2 = bufferization.to_buffer %r#2 : tensor<4xf64> to memref<4xf64>
  %b3 = bufferization.to_buffer %r#3 : tensor<i1> to memref<i1>
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
