func.func @dim_map_attr() attributes {map = #block.dim_map<y = 2, z = 2>} {
  return
}
