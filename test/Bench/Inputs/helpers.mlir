// Helpers of the bench execution tests, appended with
// test/Examples/Inputs/compare.mlir (@wave, @printF32) to a bench program
// converted to f32 and a @main; not a test by itself.

// t[i, j] = scale * sin(0.37 j + 0.11 i + seed): @fill2 of compare.mlir
// transposed. A weight filled this way varies slowly along its reduction dim,
// like the activations @fill2 makes, so that products add up instead of
// cancelling and the nonlinearities after them see values of every size.
func.func @fill2t(%t: tensor<?x?xf32>, %seed: f32, %scale: f32) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%t : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @wave(%j, %i, %seed) : (index, index, f32) -> f32
    %s = arith.mulf %v, %scale : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// The same per batch b, with the seed shifted by 1.7 b as in @fill3.
func.func @fill3t(%t: tensor<?x?x?xf32>, %seed: f32, %scale: f32) -> tensor<?x?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%t : tensor<?x?x?xf32>) {
  ^bb0(%o: f32):
    %b = linalg.index 0 : index
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c = arith.constant 1.7 : f32
    %bi = arith.index_cast %b : index to i64
    %bf = arith.sitofp %bi : i64 to f32
    %bs = arith.mulf %bf, %c : f32
    %seed2 = arith.addf %seed, %bs : f32
    %v = func.call @wave(%j, %i, %seed2) : (index, index, f32) -> f32
    %s = arith.mulf %v, %scale : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// Prints sum |t| and max |t| over all elements of a rank-2 tensor, one per
// line: statistics that runs lowered different ways must agree on.
func.func @stats2(%t: tensor<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                         affine_map<(i, j) -> ()>, affine_map<(i, j) -> ()>],
                        iterator_types = ["reduction", "reduction"]}
      ins(%t : tensor<?x?xf32>) outs(%acc, %acc : tensor<f32>, tensor<f32>) {
  ^bb0(%x: f32, %sum: f32, %max: f32):
    %a = math.absf %x : f32
    %s = arith.addf %sum, %a : f32
    %m = arith.maximumf %max, %a : f32
    linalg.yield %s, %m : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  %s = tensor.extract %r#0[] : tensor<f32>
  %m = tensor.extract %r#1[] : tensor<f32>
  func.call @printF32(%s) : (f32) -> ()
  func.call @printNewline() : () -> ()
  func.call @printF32(%m) : (f32) -> ()
  func.call @printNewline() : () -> ()
  return
}
