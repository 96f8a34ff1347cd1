func.func @accumulator_attr_unknown_kind() attributes {acc = #block.accumulator<min>} {
  return
}
