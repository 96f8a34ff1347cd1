func.func @accumulator_attr_rescale_without_index() attributes {acc = #block.accumulator<rescale>} {
  return
}
