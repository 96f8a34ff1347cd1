// The printing of run-split-reductions-on-host.mlir, on the host function's
// result buffers.
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefF64(memref<*xf64>) attributes {llvm.emit_c_interface}

func.func @main() {
  %a = memref.alloc() : memref<2xi64>
  %b = memref.alloc() : memref<2xf32>
  %c = memref.alloc() : memref<2xi64>
  %d = memref.alloc() : memref<3xi32>
  %e = memref.alloc() : memref<2xf64>
  call @split_reductions(%a, %b, %c, %d, %e) : (memref<2xi64>, memref<2xf32>, memref<2xi64>, memref<3xi32>, memref<2xf64>) -> ()
  %ua = memref.cast %a : memref<2xi64> to memref<*xi64>
  %ub = memref.cast %b : memref<2xf32> to memref<*xf32>
  %uc = memref.cast %c : memref<2xi64> to memref<*xi64>
  %ud = memref.cast %d : memref<3xi32> to memref<*xi32>
  %ue = memref.cast %e : memref<2xf64> to memref<*xf64>
  call @printMemrefI64(%ua) : (memref<*xi64>) -> ()
  call @printMemrefF32(%ub) : (memref<*xf32>) -> ()
  call @printMemrefI64(%uc) : (memref<*xi64>) -> ()
  call @printMemrefI32(%ud) : (memref<*xi32>) -> ()
  call @printMemrefF64(%ue) : (memref<*xf64>) -> ()
  return
}
