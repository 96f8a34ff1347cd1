func.func @dynamic_shape_second_operand(%a: tensor<8x64xf16>, %b: tensor<8x?xf16>) {
  %0 = kernel.mul %a, %b : tensor<8x64xf16>, tensor<8x?xf16>
  return
}
