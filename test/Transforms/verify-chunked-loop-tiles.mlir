// A grid dim and the for-loop split the same dim (a split-K): the grid cuts
// it into one chunk per block and the loop walks the block's chunk, so that
// block b loads its tile of iteration i at b * tile * iterations + i * tile.
// Both engines must agree with the reference: placing the tiles at
// b * tile + i * tile instead would make the blocks' chunks overlap and
// leave the end of the dim unread.
// RUN: mlsopt-opt %s --verify-equivalence --split-input-file --verify-diagnostics --mlir-print-op-on-diagnostic=false
// RUN: mlsopt-opt %s --verify-equivalence="engine=evaluator" --split-input-file --verify-diagnostics --mlir-print-op-on-diagnostic=false

// k = 24 on 2 blocks along x, each walking its 12 in 3 iterations of 4;
// the two partial products are added after the kernel.
func.func @ref(%x: tensor<4x24xf32>, %w: tensor<24x6xf32>) -> tensor<4x6xf32> {
  %m = kernel.matmul %x, %w : tensor<4x24xf32>, tensor<24x6xf32>
  return %m : tensor<4x6xf32>
}
// expected-remark @+1 {{@split_k is equivalent to @ref: }}
func.func @split_k(%x: tensor<4x24xf32>, %w: tensor<24x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %p = kernel.custom (%x, %w) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<4x24xf32>, tensor<24x6xf32>) -> tensor<8x6xf32> {
  ^bb0(%in0: tensor<4x24xf32>, %in1: tensor<24x6xf32>, %out0: tensor<8x6xf32>):
    %acc = block.for_loop 3 iterations accumulate (sum) : tensor<4x6xf32> {
      %xt = block.load %in0 imap <x = 1> fmap 1 : tensor<4x24xf32> -> tensor<4x4xf32>
      %wt = block.load %in1 imap <x = 0> fmap 0 : tensor<24x6xf32> -> tensor<4x6xf32>
      %m = block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x6xf32>
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

// Attention over 32 keys split across 2 blocks along y, each walking its 16
// keys in 2 iterations of 8 (Mirage's chameleon and MLA graphs): each block
// stores its partial numerator and denominator, which the kernel ops after
// it combine. The queries' rows are split along x.
func.func @ref(%q: tensor<8x4xf32>, %k: tensor<4x32xf32>, %v: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %a = kernel.matmul %q, %k : tensor<8x4xf32>, tensor<4x32xf32>
  %e = kernel.exp %a : tensor<8x32xf32>
  %s = kernel.reduce_sum %e dim 1 : tensor<8x32xf32>
  %n = kernel.matmul %e, %v : tensor<8x32xf32>, tensor<32x4xf32>
  %o = kernel.div %n, %s : tensor<8x4xf32>, tensor<8x1xf32>
  return %o : tensor<8x4xf32>
}
// expected-remark @+1 {{@split_keys is equivalent to @ref: }}
func.func @split_keys(%q: tensor<8x4xf32>, %k: tensor<4x32xf32>, %v: tensor<32x4xf32>) -> tensor<8x4xf32> attributes {mlsopt.equivalent_to = @ref} {
  %p:2 = kernel.custom (%q, %k, %v) grid <2, 2, 1> block <32, 1, 1>
      : (tensor<8x4xf32>, tensor<4x32xf32>, tensor<32x4xf32>) -> (tensor<8x8xf32>, tensor<8x2xf32>) {
  ^bb0(%in0: tensor<8x4xf32>, %in1: tensor<4x32xf32>, %in2: tensor<32x4xf32>, %out0: tensor<8x8xf32>, %out1: tensor<8x2xf32>):
    %acc:2 = block.for_loop 2 iterations accumulate (sum, sum) : tensor<4x4xf32>, tensor<4x1xf32> {
      %qt = block.load %in0 imap <x = 0> : tensor<8x4xf32> -> tensor<4x4xf32>
      %kt = block.load %in1 imap <y = 1> fmap 1 : tensor<4x32xf32> -> tensor<4x8xf32>
      %vt = block.load %in2 imap <y = 0> fmap 0 : tensor<32x4xf32> -> tensor<8x4xf32>
      %a = block.matmul %qt, %kt : tensor<4x4xf32>, tensor<4x8xf32>
      %e = block.exp %a : tensor<4x8xf32>
      %n = block.matmul %e, %vt : tensor<4x8xf32>, tensor<8x4xf32>
      %s = block.reduce_sum %e dim 1 : tensor<4x8xf32>
      block.yield %n, %s : tensor<4x4xf32>, tensor<4x1xf32>
    }
    block.store %acc#0, %out0 omap <x = 0, y = 1> : tensor<4x4xf32> into tensor<8x8xf32>
    block.store %acc#1, %out1 omap <x = 0, y = 1> : tensor<4x1xf32> into tensor<8x2xf32>
    block.return
  }
  %n0 = tensor.extract_slice %p#0[0, 0] [8, 4] [1, 1] : tensor<8x8xf32> to tensor<8x4xf32>
  %n1 = tensor.extract_slice %p#0[0, 4] [8, 4] [1, 1] : tensor<8x8xf32> to tensor<8x4xf32>
  %n = kernel.add %n0, %n1 : tensor<8x4xf32>, tensor<8x4xf32>
  %s = kernel.reduce_sum %p#1 dim 1 : tensor<8x2xf32>
  %o = kernel.div %n, %s : tensor<8x4xf32>, tensor<8x1xf32>
  return %o : tensor<8x4xf32>
}
