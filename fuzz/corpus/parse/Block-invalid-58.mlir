func.func @accumulator_attr_negative_index() attributes {acc = #block.accumulator<rescale by -3>} {
  return
}
