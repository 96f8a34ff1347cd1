// The printing of run-split-named-reductions-on-host.mlir, on tensors.
func.func @main() {
  %x, %a, %b = call @gen() : () -> (tensor<3x1024xf64>, tensor<2x768xi32>, tensor<768x3xi32>)
  %r:2 = call @named(%x, %a, %b) : (tensor<3x1024xf64>, tensor<2x768xi32>, tensor<768x3xi32>) -> (tensor<3xf64>, tensor<2x3xi32>)
  %b0 = bufferization.to_buffer %r#0 : tensor<3xf64> to memref<3xf64>
  %b1 = bufferization.to_buffer %r#1 : tensor<2x3xi32> to memref<2x3xi32>
  %u0 = memref.cast %b0 : memref<3xf64> to memref<*xf64>
  %u1 = memref.cast %b1 : memref<2x3xi32> to memref<*xi32>
  call @printMemrefF64(%u0) : (memref<*xf64>) -> ()
  call @printMemrefI32(%u1) : (memref<*xi32>) -> ()
  return
}
