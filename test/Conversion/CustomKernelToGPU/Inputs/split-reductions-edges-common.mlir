// The globals and printers of run-split-reductions-edges-on-host.mlir.
func.func private @printMemrefF64(memref<*xf64>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
memref.global "private" constant @acc : memref<3xf64> = dense<[1.5, -2.0, 0.0]>
