func.func @binary_in_func(%a: f32, %b: f32) -> f32 {
  %c = thread.binary add %a, %b : f32
  return %c : f32
}
