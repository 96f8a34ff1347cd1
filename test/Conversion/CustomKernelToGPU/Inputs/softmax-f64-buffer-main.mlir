// The inputs and printing of run-softmax-f64-on-host.mlir.
func.func private @printMemrefF64(memref<*xf64>) attributes {llvm.emit_c_interface}

memref.global "private" constant @x : memref<2x3xf64> = dense<[[0.0, 1.0986122886681098, 0.0], [2.0, 2.0, 2.0]]>

func.func @main() {
  %x = memref.get_global @x : memref<2x3xf64>
  %r = memref.alloc() : memref<2x3xf64>
  call @softmax_f64(%x, %r) : (memref<2x3xf64>, memref<2x3xf64>) -> ()
  %u = memref.cast %r : memref<2x3xf64> to memref<*xf64>
  call @printMemrefF64(%u) : (memref<*xf64>) -> ()
  return
}
