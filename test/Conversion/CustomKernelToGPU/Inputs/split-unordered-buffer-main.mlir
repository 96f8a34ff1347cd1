// The printing of run-split-unordered-on-host.mlir, on the host function's buffer.
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}
func.func @main() {
  %b = memref.alloc() : memref<1xi64>
  call @ugt(%b) : (memref<1xi64>) -> ()
  %u = memref.cast %b : memref<1xi64> to memref<*xi64>
  call @printMemrefI64(%u) : (memref<*xi64>) -> ()
  return
}
