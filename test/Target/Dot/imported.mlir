// RUN: mlsopt-translate --mlsopt-to-dot %s | FileCheck %s

// What the import leaves around kernel ops (reshapes, slices, broadcasts,
// linalg it does not take, their constants) parses and is drawn as plain
// nodes wired by SSA uses, so any imported program can be drawn.
// CHECK: label="imported";
// CHECK: [[X:n[0-9]+]] [label="arg0\ntensor<2x4x16xf32>", shape=ellipse];
// CHECK: [[F:n[0-9]+]] [label="tensor.collapse_shape\ntensor<8x16xf32>", shape=box];
// CHECK: [[S:n[0-9]+]] [label="tensor.extract_slice\ntensor<8x8xf32>", shape=box];
// CHECK: [[B:n[0-9]+]] [label="linalg.broadcast\ntensor<2x8x8xf32>", shape=box];
// CHECK: [[E:n[0-9]+]] [label="kernel.exp\ntensor<2x8x8xf32>", shape=box];
// CHECK: [[G:n[0-9]+]] [label="linalg.generic\ntensor<8x8xi1>", shape=box];
// CHECK: [[X]] -> [[F]];
// CHECK: [[F]] -> [[S]];
// CHECK: [[S]] -> [[B]];
// CHECK: [[B]] -> [[E]];
func.func @imported(%x: tensor<2x4x16xf32>) -> (tensor<2x8x8xf32>, tensor<8x8xi1>) {
  %c = arith.constant 0.5 : f32
  %f = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
  %s = tensor.extract_slice %f[0, 8] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  %e = tensor.empty() : tensor<2x8x8xf32>
  %b = linalg.broadcast ins(%s : tensor<8x8xf32>) outs(%e : tensor<2x8x8xf32>) dimensions = [0]
  %x2 = kernel.exp %b : tensor<2x8x8xf32>
  %ei = tensor.empty() : tensor<8x8xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x8xf32>) outs(%ei : tensor<8x8xi1>) {
  ^bb0(%a: f32, %o: i1):
    %p = arith.cmpf ogt, %a, %c : f32
    linalg.yield %p : i1
  } -> tensor<8x8xi1>
  return %x2, %m : tensor<2x8x8xf32>, tensor<8x8xi1>
}
