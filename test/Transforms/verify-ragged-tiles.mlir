// Ragged grid splits: where the grid size does not divide a dim, the last
// block's tile runs past the end; loads read zeros there and stores drop
// it. Both engines and the f32 run on the CPU (--mlsopt-cpu-pipeline's
// lowering) must agree with the reference: a load that read past the end
// instead of zeros, or a store that wrote past it, would give other
// numbers or fault.
// RUN: mlsopt-opt %s --verify-equivalence --split-input-file --verify-diagnostics --mlir-print-op-on-diagnostic=false
// RUN: mlsopt-opt %s --verify-equivalence="engine=evaluator" --split-input-file --verify-diagnostics --mlir-print-op-on-diagnostic=false

// Columns: 13 cut in 3 tiles of 5 (5, 5, 3); rows: 10 in 2 tiles of 5.
func.func @ref(%x: tensor<10x16xf32>, %w: tensor<16x13xf32>) -> tensor<10x13xf32> {
  %m = kernel.matmul %x, %w : tensor<10x16xf32>, tensor<16x13xf32>
  return %m : tensor<10x13xf32>
}
// expected-remark @+1 {{@ragged_columns is equivalent to @ref: }}
func.func @ragged_columns(%x: tensor<10x16xf32>, %w: tensor<16x13xf32>) -> tensor<10x13xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x, %w) grid <2, 3, 1> block <32, 1, 1>
      : (tensor<10x16xf32>, tensor<16x13xf32>) -> tensor<10x13xf32> {
  ^bb0(%in0: tensor<10x16xf32>, %in1: tensor<16x13xf32>, %out0: tensor<10x13xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<5x5xf32> {
      %xt = block.load %in0 imap <x = 0> fmap 1 : tensor<10x16xf32> -> tensor<5x4xf32>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<16x13xf32> -> tensor<4x5xf32>
      %m = block.matmul %xt, %wt : tensor<5x4xf32>, tensor<4x5xf32>
      block.yield %m : tensor<5x5xf32>
    }
    block.store %acc, %out0 omap <x = 0, y = 1> : tensor<5x5xf32> into tensor<10x13xf32>
    block.return
  }
  return %o : tensor<10x13xf32>
}

// -----

// Rows: a softmax's 10 rows cut in 3 tiles of 4 (4, 4, 2). The last block
// computes exp(0) = 1 on its two rows of zeros past the end, and drops them.
func.func @ref(%x: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %e = kernel.exp %x : tensor<10x12xf32>
  %s = kernel.reduce_sum %e dim 1 : tensor<10x12xf32>
  %r = kernel.div %e, %s : tensor<10x12xf32>, tensor<10x1xf32>
  return %r : tensor<10x12xf32>
}
// expected-remark @+1 {{@ragged_rows is equivalent to @ref: }}
func.func @ragged_rows(%x: tensor<10x12xf32>) -> tensor<10x12xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x) grid <3, 1, 1> block <32, 1, 1>
      : (tensor<10x12xf32>) -> tensor<10x12xf32> {
  ^bb0(%in0: tensor<10x12xf32>, %out0: tensor<10x12xf32>):
    %s = block.for_loop 1 iterations accumulate (sum) : tensor<4x1xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<10x12xf32> -> tensor<4x12xf32>
      %e = block.exp %t : tensor<4x12xf32>
      %s = block.reduce_sum %e dim 1 : tensor<4x12xf32>
      block.yield %s : tensor<4x1xf32>
    }
    %t = block.load %in0 imap <x = 0> : tensor<10x12xf32> -> tensor<4x12xf32>
    %e = block.exp %t : tensor<4x12xf32>
    %r = block.div %e, %s : tensor<4x12xf32>, tensor<4x1xf32>
    block.store %r, %out0 omap <x = 0> : tensor<4x12xf32> into tensor<10x12xf32>
    block.return
  }
  return %o : tensor<10x12xf32>
}

// -----

// The reduced dim: k = 13 cut by grid x in 2 chunks (7, 6), each block's
// partial product stored below the other's and the halves added after. Right because
// the zeros past the end of both tiles add 0 * 0 to the last chunk.
func.func @ref(%x: tensor<4x13xf32>, %w: tensor<13x6xf32>) -> tensor<4x6xf32> {
  %m = kernel.matmul %x, %w : tensor<4x13xf32>, tensor<13x6xf32>
  return %m : tensor<4x6xf32>
}
// expected-remark @+1 {{@ragged_chunks is equivalent to @ref: }}
func.func @ragged_chunks(%x: tensor<4x13xf32>, %w: tensor<13x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %p = kernel.custom (%x, %w) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<4x13xf32>, tensor<13x6xf32>) -> tensor<8x6xf32> {
  ^bb0(%in0: tensor<4x13xf32>, %in1: tensor<13x6xf32>, %out0: tensor<8x6xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<4x6xf32> {
      %xt = block.load %in0 imap <x = 1> : tensor<4x13xf32> -> tensor<4x7xf32>
      %wt = block.load %in1 imap <x = 0> : tensor<13x6xf32> -> tensor<7x6xf32>
      %m = block.matmul %xt, %wt : tensor<4x7xf32>, tensor<7x6xf32>
      block.yield %m : tensor<4x6xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<4x6xf32> into tensor<8x6xf32>
    block.return
  }
  %a = tensor.extract_slice %p[0, 0] [4, 6] [1, 1] : tensor<8x6xf32> to tensor<4x6xf32>
  %b = tensor.extract_slice %p[4, 0] [4, 6] [1, 1] : tensor<8x6xf32> to tensor<4x6xf32>
  %s = kernel.add %a, %b : tensor<4x6xf32>, tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}

// -----

// The same with exp of both tiles: past the end, exp(0) * exp(0) = 1 joins
// the last chunk's sums, so the split is wrong where k is ragged.
func.func @ref(%x: tensor<4x13xf32>, %w: tensor<13x6xf32>) -> tensor<4x6xf32> {
  %ex = kernel.exp %x : tensor<4x13xf32>
  %ew = kernel.exp %w : tensor<13x6xf32>
  %m = kernel.matmul %ex, %ew : tensor<4x13xf32>, tensor<13x6xf32>
  return %m : tensor<4x6xf32>
}
// expected-error @+1 {{@exp_past_the_end is not equivalent to @ref}}
func.func @exp_past_the_end(%x: tensor<4x13xf32>, %w: tensor<13x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %p = kernel.custom (%x, %w) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<4x13xf32>, tensor<13x6xf32>) -> tensor<8x6xf32> {
  ^bb0(%in0: tensor<4x13xf32>, %in1: tensor<13x6xf32>, %out0: tensor<8x6xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<4x6xf32> {
      %xt = block.load %in0 imap <x = 1> : tensor<4x13xf32> -> tensor<4x7xf32>
      %wt = block.load %in1 imap <x = 0> : tensor<13x6xf32> -> tensor<7x6xf32>
      %ex = block.exp %xt : tensor<4x7xf32>
      %ew = block.exp %wt : tensor<7x6xf32>
      %m = block.matmul %ex, %ew : tensor<4x7xf32>, tensor<7x6xf32>
      block.yield %m : tensor<4x6xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<4x6xf32> into tensor<8x6xf32>
    block.return
  }
  %a = tensor.extract_slice %p[0, 0] [4, 6] [1, 1] : tensor<8x6xf32> to tensor<4x6xf32>
  %b = tensor.extract_slice %p[4, 0] [4, 6] [1, 1] : tensor<8x6xf32> to tensor<4x6xf32>
  %s = kernel.add %a, %b : tensor<4x6xf32>, tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}

// -----

// A ragged loop: k = 13 walked in 4 iterations of 4 (4, 4, 4, 1). The last
// iteration's tiles read zeros past the end, which add nothing to the sums.
func.func @ref(%x: tensor<6x13xf32>, %w: tensor<13x5xf32>) -> tensor<6x5xf32> {
  %m = kernel.matmul %x, %w : tensor<6x13xf32>, tensor<13x5xf32>
  return %m : tensor<6x5xf32>
}
// expected-remark @+1 {{@ragged_loop is equivalent to @ref: }}
func.func @ragged_loop(%x: tensor<6x13xf32>, %w: tensor<13x5xf32>) -> tensor<6x5xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <32, 1, 1>
      : (tensor<6x13xf32>, tensor<13x5xf32>) -> tensor<6x5xf32> {
  ^bb0(%in0: tensor<6x13xf32>, %in1: tensor<13x5xf32>, %out0: tensor<6x5xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<6x5xf32> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<6x13xf32> -> tensor<6x4xf32>
      %wt = block.load %in1 imap <> fmap 0 : tensor<13x5xf32> -> tensor<4x5xf32>
      %m = block.matmul %xt, %wt : tensor<6x4xf32>, tensor<4x5xf32>
      block.yield %m : tensor<6x5xf32>
    }
    block.store %acc, %out0 omap <> : tensor<6x5xf32> into tensor<6x5xf32>
    block.return
  }
  return %o : tensor<6x5xf32>
}

// -----

// A ragged loop over the reduced dim of a sum of exps: exp(0) = 1 joins the
// sum for each of the 3 elements past the end of 13, so it is reported.
func.func @ref(%x: tensor<6x13xf32>) -> tensor<6x1xf32> {
  %e = kernel.exp %x : tensor<6x13xf32>
  %s = kernel.reduce_sum %e dim 1 : tensor<6x13xf32>
  return %s : tensor<6x1xf32>
}
// expected-error @+1 {{@exp_past_the_loop_end is not equivalent to @ref}}
func.func @exp_past_the_loop_end(%x: tensor<6x13xf32>) -> tensor<6x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<6x13xf32>) -> tensor<6x1xf32> {
  ^bb0(%in0: tensor<6x13xf32>, %out0: tensor<6x1xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<3x1xf32> {
      %xt = block.load %in0 imap <x = 0> fmap 1 : tensor<6x13xf32> -> tensor<3x4xf32>
      %e = block.exp %xt : tensor<3x4xf32>
      %s = block.reduce_sum %e dim 1 : tensor<3x4xf32>
      block.yield %s : tensor<3x1xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<3x1xf32> into tensor<6x1xf32>
    block.return
  }
  return %o : tensor<6x1xf32>
}
