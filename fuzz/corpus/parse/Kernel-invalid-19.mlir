func.func @dynamic_shape(%a: tensor<?x64xf16>) {
  %0 = kernel.exp %a : tensor<?x64xf16>
  return
}
