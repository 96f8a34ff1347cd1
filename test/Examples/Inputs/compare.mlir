// Helpers for the execution tests of the examples: deterministic inputs and
// the relative error between two results. Appended to an example (converted
// to f32) and a @main; not a test by itself.

func.func private @printF32(f32)
func.func private @printNewline()

// t[i, j] = scale * sin(0.37 i + 0.11 j + seed): smooth, signed, no zeros
// pattern and no two inputs alike.
func.func @fill2(%t: tensor<?x?xf32>, %seed: f32, %scale: f32) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%t : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @wave(%i, %j, %seed) : (index, index, f32) -> f32
    %s = arith.mulf %v, %scale : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @fill3(%t: tensor<?x?x?xf32>, %seed: f32, %scale: f32) -> tensor<?x?x?xf32> {
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
    %v = func.call @wave(%i, %j, %seed2) : (index, index, f32) -> f32
    %s = arith.mulf %v, %scale : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @wave(%i: index, %j: index, %seed: f32) -> f32 {
  %a = arith.constant 0.37 : f32
  %b = arith.constant 0.11 : f32
  %ii = arith.index_cast %i : index to i64
  %jj = arith.index_cast %j : index to i64
  %fi = arith.sitofp %ii : i64 to f32
  %fj = arith.sitofp %jj : i64 to f32
  %x = arith.mulf %fi, %a : f32
  %y = arith.mulf %fj, %b : f32
  %xy = arith.addf %x, %y : f32
  %z = arith.addf %xy, %seed : f32
  %s = math.sin %z : f32
  return %s : f32
}

// max |a - b| / max |a| over all elements, of rank-2 tensors.
func.func @relerr2(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                         affine_map<(i, j) -> ()>, affine_map<(i, j) -> ()>],
                        iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc, %acc : tensor<f32>, tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %dmax: f32, %amax: f32):
    %d = arith.subf %x, %y : f32
    %ad = math.absf %d : f32
    %ax = math.absf %x : f32
    %m1 = arith.maximumf %dmax, %ad : f32
    %m2 = arith.maximumf %amax, %ax : f32
    linalg.yield %m1, %m2 : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  %d = tensor.extract %r#0[] : tensor<f32>
  %m = tensor.extract %r#1[] : tensor<f32>
  %e = arith.divf %d, %m : f32
  return %e : f32
}

// Prints the relative error, then `ok` if it is at most 1e-4 and `MISMATCH`
// otherwise, so FileCheck can assert the bound.
func.func @report(%err: f32) {
  %bound = arith.constant 1.0e-4 : f32
  func.call @report_within(%err, %bound) : (f32, f32) -> ()
  return
}

// The same with another bound, for results computed in a narrower type.
func.func @report_within(%err: f32, %bound: f32) {
  func.call @printF32(%err) : (f32) -> ()
  func.call @printNewline() : () -> ()
  %ok = arith.cmpf ole, %err, %bound : f32
  scf.if %ok {
    vector.print str "ok\n"
  } else {
    vector.print str "MISMATCH\n"
  }
  return
}

func.func @collapse3(%t: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<?x?x?xf32> into tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
