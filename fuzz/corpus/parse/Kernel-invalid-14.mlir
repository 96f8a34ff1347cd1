func.func @concat_no_operands() {
  %0 = "kernel.concat"() <{dim = 0 : i64}> : () -> tensor<8xf16>
  return
}
