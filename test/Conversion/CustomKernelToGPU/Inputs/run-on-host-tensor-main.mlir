// The inputs and printing of run-on-host.mlir, for the tensor program.
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}

func.func @main() {
  %ids = arith.constant dense<[[4, 0, 2], [1, 1, 3]]> : tensor<2x3xi64>
  %t = arith.constant dense<[[0.5, -1.0, 2.0, 3.5], [1.0, 4.0, -2.0, 0.0], [-3.0, 0.25, 1.5, 2.0], [2.5, 2.5, -0.5, 1.0], [0.0, 3.0, 3.0, -1.5]]> : tensor<5x4xf32>
  %w = arith.constant dense<[1.0, -2.0, 0.5]> : tensor<3xf32>
  %r:5 = call @gather_argmax_conv(%ids, %t, %w) : (tensor<2x3xi64>, tensor<5x4xf32>, tensor<3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4xi64>, tensor<2x3x2xf32>, tensor<2x2x2xf32>, tensor<2x3xf32>)
  %m0 = bufferization.to_buffer %r#0 : tensor<2x4x3xf32> to memref<2x4x3xf32>
  %u0 = memref.cast %m0 : memref<2x4x3xf32> to memref<*xf32>
  call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  %m1 = bufferization.to_buffer %r#1 : tensor<2x4xi64> to memref<2x4xi64>
  %u1 = memref.cast %m1 : memref<2x4xi64> to memref<*xi64>
  call @printMemrefI64(%u1) : (memref<*xi64>) -> ()
  %m2 = bufferization.to_buffer %r#2 : tensor<2x3x2xf32> to memref<2x3x2xf32>
  %u2 = memref.cast %m2 : memref<2x3x2xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  %m3 = bufferization.to_buffer %r#3 : tensor<2x2x2xf32> to memref<2x2x2xf32>
  %u3 = memref.cast %m3 : memref<2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
  %m4 = bufferization.to_buffer %r#4 : tensor<2x3xf32> to memref<2x3xf32>
  %u4 = memref.cast %m4 : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u4) : (memref<*xf32>) -> ()
  return
}
