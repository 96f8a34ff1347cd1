// The printing of run-split-named-reductions-on-host.mlir, on the host function's buffers.
func.func @main() {
  %x, %a, %b = call @gen() : () -> (tensor<3x1024xf64>, tensor<2x768xi32>, tensor<768x3xi32>)
  %xb = bufferization.to_buffer %x : tensor<3x1024xf64> to memref<3x1024xf64>
  %ab = bufferization.to_buffer %a : tensor<2x768xi32> to memref<2x768xi32>
  %bb = bufferization.to_buffer %b : tensor<768x3xi32> to memref<768x3xi32>
  %b0 = memref.alloc() : memref<3xf64>
  %b1 = memref.alloc() : memref<2x3xi32>
  call @named(%xb, %ab, %bb, %b0, %b1) : (memref<3x1024xf64>, memref<2x768xi32>, memref<768x3xi32>, memref<3xf64>, memref<2x3xi32>) -> ()
  %u0 = memref.cast %b0 : memref<3xf64> to memref<*xf64>
  %u1 = memref.cast %b1 : memref<2x3xi32> to memref<*xi32>
  call @printMemrefF64(%u0) : (memref<*xf64>) -> ()
  call @printMemrefI32(%u1) : (memref<*xi32>) -> ()
  return
}
