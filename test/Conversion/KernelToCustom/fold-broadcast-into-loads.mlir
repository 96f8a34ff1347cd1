// RUN: mlsopt-opt %s --fold-slices-into-loads | FileCheck %s
// RUN: mlsopt-opt %s --fold-slices-into-loads | mlsopt-opt --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY

// torch.matmul of a matrix by a batch of matrices: the matrix broadcast over
// the batch (a copy kernel of its own on the GPU) is read in place, through
// a view with a batch dim of size 1 that no grid dim splits, so each block
// reads the one copy.
// CHECK-LABEL: func.func @shared_matrix(
// CHECK-SAME: %[[A:.*]]: tensor<12x20xf32>, %[[B:.*]]: tensor<3x20x7xf32>)
// CHECK-NOT: linalg.broadcast
// CHECK: %[[V:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [1, 12, 20] : tensor<12x20xf32> into tensor<1x12x20xf32>
// CHECK: kernel.custom(%[[V]], %[[B]]) grid <1, 1, 3>
// CHECK: block.load %in0 imap <> fmap 2 : tensor<1x12x20xf32> -> tensor<1x12x20xf32>
// CHECK: block.load %in1 imap <z = 0> fmap 1 : tensor<3x20x7xf32> -> tensor<1x20x7xf32>
// VERIFY: remark: @shared_matrix is equivalent to @shared_matrix_reference: equal on 1 random test
func.func @shared_matrix(%a: tensor<12x20xf32>, %b: tensor<3x20x7xf32>) -> tensor<3x12x7xf32> attributes {mlsopt.equivalent_to = @shared_matrix_reference} {
  %e = tensor.empty() : tensor<3x12x20xf32>
  %ab = linalg.broadcast ins(%a : tensor<12x20xf32>) outs(%e : tensor<3x12x20xf32>) dimensions = [0]
  %o = kernel.custom(%ab, %b) grid <1, 1, 3> block <128, 1, 1> : (tensor<3x12x20xf32>, tensor<3x20x7xf32>) -> tensor<3x12x7xf32> {
  ^bb0(%in0: tensor<3x12x20xf32>, %in1: tensor<3x20x7xf32>, %out0: tensor<3x12x7xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<1x12x7xf32> {
      %x = block.load %in0 imap <z = 0> fmap 2 : tensor<3x12x20xf32> -> tensor<1x12x20xf32>
      %y = block.load %in1 imap <z = 0> fmap 1 : tensor<3x20x7xf32> -> tensor<1x20x7xf32>
      %p = block.matmul %x, %y : tensor<1x12x20xf32>, tensor<1x20x7xf32>
      block.yield %p : tensor<1x12x7xf32>
    }
    block.store %m, %out0 omap <z = 0> : tensor<1x12x7xf32> into tensor<3x12x7xf32>
    block.return
  }
  return %o : tensor<3x12x7xf32>
}

func.func private @shared_matrix_reference(%a: tensor<12x20xf32>, %b: tensor<3x20x7xf32>) -> tensor<3x12x7xf32> {
  %e = tensor.empty() : tensor<3x12x20xf32>
  %ab = linalg.broadcast ins(%a : tensor<12x20xf32>) outs(%e : tensor<3x12x20xf32>) dimensions = [0]
  %m = kernel.matmul %ab, %b : tensor<3x12x20xf32>, tensor<3x20x7xf32>
  return %m : tensor<3x12x7xf32>
}

// A tile that holds two of the copies (2 along the broadcast dim) would
// need them repeated: the broadcast stays.
// CHECK-LABEL: func.func @two_copies_per_tile
// CHECK: linalg.broadcast
// CHECK: kernel.custom(%{{.*}}) grid <2, 1, 1>
// CHECK: block.load %in0 imap <x = 1> : tensor<2x8x64xf32> -> tensor<2x4x64xf32>
func.func @two_copies_per_tile(%a: tensor<8x64xf32>) -> tensor<2x8x64xf32> {
  %e = tensor.empty() : tensor<2x8x64xf32>
  %ab = linalg.broadcast ins(%a : tensor<8x64xf32>) outs(%e : tensor<2x8x64xf32>) dimensions = [0]
  %o = kernel.custom(%ab) grid <2, 1, 1> block <128, 1, 1> : (tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  ^bb0(%in0: tensor<2x8x64xf32>, %out0: tensor<2x8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<2x4x64xf32> {
      %x = block.load %in0 imap <x = 1> : tensor<2x8x64xf32> -> tensor<2x4x64xf32>
      %s = block.exp %x : tensor<2x4x64xf32>
      block.yield %s : tensor<2x4x64xf32>
    }
    block.store %m, %out0 omap <x = 1> : tensor<2x4x64xf32> into tensor<2x8x64xf32>
    block.return
  }
  return %o : tensor<2x8x64xf32>
}
