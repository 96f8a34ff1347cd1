// The inputs and printing of run-on-host.mlir, for the host function the
// GPU lowering makes of the program (results passed as buffers).
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}

memref.global "private" constant @ids : memref<2x3xi64> = dense<[[4, 0, 2], [1, 1, 3]]>
memref.global "private" constant @table : memref<5x4xf32> = dense<[[0.5, -1.0, 2.0, 3.5], [1.0, 4.0, -2.0, 0.0], [-3.0, 0.25, 1.5, 2.0], [2.5, 2.5, -0.5, 1.0], [0.0, 3.0, 3.0, -1.5]]>
memref.global "private" constant @weights : memref<3xf32> = dense<[1.0, -2.0, 0.5]>

func.func @main() {
  %ids = memref.get_global @ids : memref<2x3xi64>
  %t = memref.get_global @table : memref<5x4xf32>
  %w = memref.get_global @weights : memref<3xf32>
  %r0 = memref.alloc() : memref<2x4x3xf32>
  %r1 = memref.alloc() : memref<2x4xi64>
  %r2 = memref.alloc() : memref<2x3x2xf32>
  %r3 = memref.alloc() : memref<2x2x2xf32>
  %r4 = memref.alloc() : memref<2x3xf32>
  call @gather_argmax_conv(%ids, %t, %w, %r0, %r1, %r2, %r3, %r4) : (memref<2x3xi64>, memref<5x4xf32>, memref<3xf32>, memref<2x4x3xf32>, memref<2x4xi64>, memref<2x3x2xf32>, memref<2x2x2xf32>, memref<2x3xf32>) -> ()
  %u0 = memref.cast %r0 : memref<2x4x3xf32> to memref<*xf32>
  call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  %u1 = memref.cast %r1 : memref<2x4xi64> to memref<*xi64>
  call @printMemrefI64(%u1) : (memref<*xi64>) -> ()
  %u2 = memref.cast %r2 : memref<2x3x2xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  %u3 = memref.cast %r3 : memref<2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
  %u4 = memref.cast %r4 : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u4) : (memref<*xf32>) -> ()
  return
}
