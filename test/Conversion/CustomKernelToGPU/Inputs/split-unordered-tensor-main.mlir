// The printing of run-split-unordered-on-host.mlir, on tensors.
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}
func.func @main() {
  %r = call @ugt() : () -> tensor<1xi64>
  %b = bufferization.to_buffer %r : tensor<1xi64> to memref<1xi64>
  %u = memref.cast %b : memref<1xi64> to memref<*xi64>
  call @printMemrefI64(%u) : (memref<*xi64>) -> ()
  return
}
