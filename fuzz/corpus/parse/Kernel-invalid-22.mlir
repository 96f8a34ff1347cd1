func.func @f64_element_type(%a: tensor<8x64xf64>) {
  %0 = kernel.rms_norm %a : tensor<8x64xf64>
  return
}
