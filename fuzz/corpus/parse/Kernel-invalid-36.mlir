func.func @dim3_attribute() attributes {grid = #kernel.dim3<4, 0, 1>} {
  return
}
