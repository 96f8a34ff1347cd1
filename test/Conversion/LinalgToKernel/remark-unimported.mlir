// RUN: mlsopt-opt %s --convert-linalg-to-kernel="remark-unimported=true" --split-input-file -verify-diagnostics | FileCheck %s
// RUN: sed s/expected-remark/no-remark/ %s | mlsopt-opt --convert-linalg-to-kernel --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// With remark-unimported, each linalg op the import leaves gets a remark
// with the reason its pattern gave up, where the GPU pipeline would report
// it only later, as an error; what imports gets none. By default, nothing.
// QUIET-NOT: remark

// CHECK-LABEL: func.func @arctangent
// CHECK: kernel.exp
// CHECK: linalg.generic
func.func @arctangent(%a: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %x = linalg.exp ins(%a : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  // expected-remark @+1 {{convert-linalg-to-kernel: left as it is: payload op 'math.atan' has no kernel op}}
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.atan %v : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  return %x, %s : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// A reduction whose init is a fill: the remark is on the reduction, not on
// the fill that only gives it its init.
func.func @product(%a: tensor<8x64xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @+1 {{convert-linalg-to-kernel: left as it is}}
  %r = linalg.reduce ins(%a : tensor<8x64xf32>) outs(%f : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %acc : f32
      linalg.yield %p : f32
    }
  return %r : tensor<8xf32>
}

// -----

func.func @dynamic_softmax(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%d) : tensor<?x64xf32>
  // expected-remark @+1 {{convert-linalg-to-kernel: left as it is: not a static softmax on f16, bf16 or f32 tensors}}
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// Tensor ops that compute data have no kernel op either: a pad by a value
// only known at run time (one by a constant is a concat), and an insert
// along two dims (one along one dim is a concat). Views of the input
// (slices, reshapes) are not remarked.
// CHECK-LABEL: func.func @tensor_ops
// CHECK: tensor.pad
// CHECK: tensor.insert_slice
func.func @tensor_ops(%a: tensor<8x64xf32>, %b: tensor<4x4xf32>, %fill: f32) -> (tensor<8x80xf32>, tensor<8x64xf32>, tensor<4x64xf32>) {
  // expected-remark @+1 {{convert-linalg-to-kernel: left as it is: no kernel op computes it}}
  %p = tensor.pad %a low[0, 8] high[0, 8] {
  ^bb0(%i: index, %j: index):
    tensor.yield %fill : f32
  } : tensor<8x64xf32> to tensor<8x80xf32>
  // expected-remark @+1 {{convert-linalg-to-kernel: left as it is: no kernel op computes it}}
  %i = tensor.insert_slice %b into %a[2, 8] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x64xf32>
  %s = tensor.extract_slice %a[0, 0] [4, 64] [1, 1] : tensor<8x64xf32> to tensor<4x64xf32>
  return %p, %i, %s : tensor<8x80xf32>, tensor<8x64xf32>, tensor<4x64xf32>
}

// -----

// An embedding lookup: the remark names the gather, not the index types
// of the tensor.extract (it said the payload op "mixes types").
func.func @embedding(%ids: tensor<4xi64>, %table: tensor<100x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  // expected-remark @+1 {{convert-linalg-to-kernel: left as it is: payload op 'tensor.extract' reads a tensor at indices it computes (a gather), which no kernel op does}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<100x16xf32>
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
