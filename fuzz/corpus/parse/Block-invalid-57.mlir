func.func @accumulator_attr_index_on_max() attributes {acc = #block.accumulator<max by 1>} {
  return
}
