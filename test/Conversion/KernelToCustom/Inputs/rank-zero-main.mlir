// The driver of rank-zero.mlir's CPU run: prints exp(2), computed by the
// rank-0 op's custom kernel.

func.func @main() {
  %x = arith.constant dense<2.0> : tensor<f32>
  %y = arith.constant dense<1.0> : tensor<4x8xf32>
  %e, %t = call @scalar(%x, %y) : (tensor<f32>, tensor<4x8xf32>) -> (tensor<f32>, tensor<4x8xf32>)
  %v = tensor.extract %e[] : tensor<f32>
  vector.print str "scalar "
  vector.print %v : f32
  return
}
