// RUN: mlsopt-opt %s --thread-fuse-elementwise --split-input-file | FileCheck %s

// A chain after the for-loop, with a value (silu) used twice, becomes one
// thread graph over the two accumulators.
// CHECK-LABEL: func.func @epilogue
// CHECK:         %[[ACC:.*]]:2 = block.for_loop
// CHECK:         %[[G:.*]] = thread.graph(%[[ACC]]#0, %[[ACC]]#1) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16):
// CHECK-NEXT:      %[[S:.*]] = thread.unary silu %[[A]] : f16
// CHECK-NEXT:      %[[M:.*]] = thread.binary mul %[[S]], %[[B]] : f16
// CHECK-NEXT:      %[[H:.*]] = thread.mul_scalar %[[M]], 5.000000e-01 : f16
// CHECK-NEXT:      %[[R:.*]] = thread.binary add %[[H]], %[[S]] : f16
// CHECK-NEXT:      thread.yield %[[R]] : f16
// CHECK:         block.store %[[G]], %out0
// CHECK-NOT:     block.silu
// CHECK-NOT:     block.mul
func.func @epilogue(%x: tensor<8x64xf16>, %w1: tensor<64x64xf16>, %w2: tensor<64x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x, %w1, %w2) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<64x64xf16>, %in2: tensor<64x64xf16>, %out0: tensor<8x64xf16>):
    %acc:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<8x64xf16>, tensor<8x64xf16> {
      %xt = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %w1t = block.load %in1 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %w2t = block.load %in2 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %a = block.matmul %xt, %w1t : tensor<8x64xf16>, tensor<64x64xf16>
      %b = block.matmul %xt, %w2t : tensor<8x64xf16>, tensor<64x64xf16>
      block.yield %a, %b : tensor<8x64xf16>, tensor<8x64xf16>
    }
    %s = block.silu %acc#0 : tensor<8x64xf16>
    %m = block.mul %s, %acc#1 : tensor<8x64xf16>, tensor<8x64xf16>
    %n = block.mul_scalar %m, 0.5 : tensor<8x64xf16>
    %q = block.add %n, %s : tensor<8x64xf16>, tensor<8x64xf16>
    block.store %q, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

// Inside the loop, the chain between a load and a matmul becomes a prologue
// with a broadcast operand; the reduction stops the chain: the graph after it
// stays separate because the reduce result is not elementwise.
// CHECK-LABEL: func.func @prologue
// CHECK:         block.for_loop
// CHECK:           %[[X:.*]] = block.load %in0
// CHECK:           %[[G:.*]] = thread.graph(%[[X]]) : (tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK:             thread.unary exp
// CHECK-NEXT:        thread.unary neg
// CHECK:           %[[R:.*]] = block.reduce_sum %[[G]] dim 1
// CHECK:           %[[G2:.*]] = thread.graph(%[[G]], %[[R]]) : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x64xf32>
// CHECK-NEXT:      ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:        thread.binary div
// CHECK:           block.matmul %[[G2]]
func.func @prologue(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %in1: tensor<64x32xf32>, %out0: tensor<8x32xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf32> {
      %xt = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      %wt = block.load %in1 imap <> : tensor<64x32xf32> -> tensor<64x32xf32>
      %e = block.exp %xt : tensor<8x64xf32>
      %n = block.neg %e : tensor<8x64xf32>
      %r = block.reduce_sum %n dim 1 : tensor<8x64xf32>
      %d = block.div %n, %r : tensor<8x64xf32>, tensor<8x1xf32>
      %m = block.matmul %d, %wt : tensor<8x64xf32>, tensor<64x32xf32>
      block.yield %m : tensor<8x32xf32>
    }
    block.store %acc, %out0 omap <> : tensor<8x32xf32> into tensor<8x32xf32>
    block.return
  }
  return %o : tensor<8x32xf32>
}

// -----

// Attention's probabilities: exp(S) is summed in f32 and rounded to f16 for
// the product with V. The rounding reads only the exp graph's result, which
// the sum reads too, so the exp graph computes it as a second result: one
// graph, each element exponentiated once and written in both types. After
// the loop, the division and the rounding of its result for the store are
// one graph, as any chain is.
// CHECK-LABEL: func.func @rounded_probabilities
// CHECK:         block.for_loop
// CHECK:           %[[S:.*]] = block.matmul
// CHECK-NEXT:      %[[P:.*]]:2 = thread.graph(%[[S]]) : (tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf16>) {
// CHECK-NEXT:      ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:        %[[E:.*]] = thread.unary exp %[[A]] : f32
// CHECK-NEXT:        %[[H:.*]] = thread.convert %[[E]] : f32 to f16
// CHECK-NEXT:        thread.yield %[[E]], %[[H]] : f32, f16
// CHECK-NEXT:      }
// CHECK-NEXT:      block.reduce_sum %[[P]]#0 dim 1
// CHECK-NEXT:      block.matmul %[[P]]#1, %{{.*}} : tensor<8x64xf16>, tensor<64x32xf16> -> tensor<8x32xf32>
// CHECK-NOT:       block.convert
// CHECK:         block.yield
// CHECK:         thread.graph
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      thread.binary div
// CHECK-NEXT:      thread.convert %{{.*}} : f32 to f16
func.func @rounded_probabilities(%q: tensor<8x16xf16>, %k: tensor<16x64xf16>, %v: tensor<64x32xf16>) -> tensor<8x32xf16> {
  %o = kernel.custom (%q, %k, %v) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x16xf16>, tensor<16x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf16> {
  ^bb0(%in0: tensor<8x16xf16>, %in1: tensor<16x64xf16>, %in2: tensor<64x32xf16>, %out0: tensor<8x32xf16>):
    %acc:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<8x32xf32>, tensor<8x1xf32> {
      %qt = block.load %in0 imap <> : tensor<8x16xf16> -> tensor<8x16xf16>
      %kt = block.load %in1 imap <> : tensor<16x64xf16> -> tensor<16x64xf16>
      %vt = block.load %in2 imap <> : tensor<64x32xf16> -> tensor<64x32xf16>
      %s = block.matmul %qt, %kt : tensor<8x16xf16>, tensor<16x64xf16> -> tensor<8x64xf32>
      %e = block.exp %s : tensor<8x64xf32>
      %l = block.reduce_sum %e dim 1 : tensor<8x64xf32>
      %p = block.convert %e : tensor<8x64xf32> to tensor<8x64xf16>
      %pv = block.matmul %p, %vt : tensor<8x64xf16>, tensor<64x32xf16> -> tensor<8x32xf32>
      block.yield %pv, %l : tensor<8x32xf32>, tensor<8x1xf32>
    }
    %d = block.div %acc#0, %acc#1 : tensor<8x32xf32>, tensor<8x1xf32>
    %h = block.convert %d : tensor<8x32xf32> to tensor<8x32xf16>
    block.store %h, %out0 omap <> : tensor<8x32xf16> into tensor<8x32xf16>
    block.return
  }
  return %o : tensor<8x32xf16>
}

// -----

// RMSNorm + matmul in f32 for an f16 program, and x + y: x rounded to f16
// for the product reads the tile the sum reads, so it moves up into the
// nearest earlier graph that reads it, the sum's, and one graph computes
// both. The sum's graph reads y, loaded after the squares' graph, so it
// cannot move up to that one, which stays.
// CHECK-LABEL: func.func @shared_operand
// CHECK:         %[[X:.*]] = block.load %in0
// CHECK-NEXT:    %[[SQ:.*]] = thread.graph(%[[X]]) : (tensor<4x64xf32>) -> tensor<4x64xf32> {
// CHECK:           thread.unary square
// CHECK:         %[[Y:.*]] = block.load %in1
// CHECK-NEXT:    %[[G:.*]]:2 = thread.graph(%[[X]], %[[Y]]) : (tensor<4x64xf32>, tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf16>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = thread.binary add %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[H:.*]] = thread.convert %[[A]] : f32 to f16
// CHECK-NEXT:      thread.yield %[[S]], %[[H]] : f32, f16
// CHECK-NEXT:    }
// CHECK:         block.matmul %[[G]]#1
// CHECK:         block.reduce_sum %[[SQ]]
// CHECK:         block.yield %{{.*}}, %{{.*}}, %[[G]]#0
func.func @shared_operand(%x: tensor<4x64xf16>, %y: tensor<4x64xf16>, %w: tensor<64x32xf16>) -> (tensor<4x32xf16>, tensor<4x1xf16>, tensor<4x64xf16>) {
  %o:3 = kernel.custom (%x, %y, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<4x64xf16>, tensor<4x64xf16>, tensor<64x32xf16>) -> (tensor<4x32xf16>, tensor<4x1xf16>, tensor<4x64xf16>) {
  ^bb0(%in0: tensor<4x64xf16>, %in1: tensor<4x64xf16>, %in2: tensor<64x32xf16>, %out0: tensor<4x32xf16>, %out1: tensor<4x1xf16>, %out2: tensor<4x64xf16>):
    %acc:3 = block.for_loop 1 iterations accumulate (sum, sum, sum) : tensor<4x32xf32>, tensor<4x1xf32>, tensor<4x64xf32> {
      %xt = block.load %in0 imap <> : tensor<4x64xf16> -> tensor<4x64xf32>
      %sq = block.square %xt : tensor<4x64xf32>
      %yt = block.load %in1 imap <> : tensor<4x64xf16> -> tensor<4x64xf32>
      %xy = block.add %xt, %yt : tensor<4x64xf32>, tensor<4x64xf32>
      %wt = block.load %in2 imap <> : tensor<64x32xf16> -> tensor<64x32xf16>
      %xh = block.convert %xt : tensor<4x64xf32> to tensor<4x64xf16>
      %m = block.matmul %xh, %wt : tensor<4x64xf16>, tensor<64x32xf16> -> tensor<4x32xf32>
      %s = block.reduce_sum %sq dim 1 : tensor<4x64xf32>
      block.yield %m, %s, %xy : tensor<4x32xf32>, tensor<4x1xf32>, tensor<4x64xf32>
    }
    block.store %acc#0, %out0 omap <> : tensor<4x32xf32> into tensor<4x32xf16>
    block.store %acc#1, %out1 omap <> : tensor<4x1xf32> into tensor<4x1xf16>
    block.store %acc#2, %out2 omap <> : tensor<4x64xf32> into tensor<4x64xf16>
    block.return
  }
  return %o#0, %o#1, %o#2 : tensor<4x32xf16>, tensor<4x1xf16>, tensor<4x64xf16>
}

// -----

// Kernel-level elementwise ops are not part of any block graph and stay.
// CHECK-LABEL: func.func @kernel_level
// CHECK-NEXT:    kernel.exp
// CHECK-NOT:     thread.graph
func.func @kernel_level(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %e = kernel.exp %x : tensor<8x64xf16>
  return %e : tensor<8x64xf16>
}

// -----

// Block ops outside a block graph stay as they are: a thread graph there
// would fail its verifier ("must be part of a block graph").
// CHECK-LABEL: func.func @outside_a_block_graph
// CHECK-NEXT: block.exp
// CHECK-NEXT: block.mul
// CHECK-NOT: thread.graph
func.func @outside_a_block_graph(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = block.exp %x : tensor<4x8xf32>
  %m = block.mul %e, %x : tensor<4x8xf32>, tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// Merged graphs can take more shared memory than the block graph had: fused,
// the gain and bias of this LayerNorm over 16384 f32 (64 KiB a row) are read
// by one graph, so their loads land while the norm computes, beside its
// operand and result (4 x 64 KiB, past the 227 KiB of sm_90). The kernel
// keeps its block ops, which need 3 x 64 KiB at most; --superoptimize
// failed with this kernel's shared memory error. The same LayerNorm over
// 8192 values fits fused.
// CHECK-LABEL: func.func @layernorm_past_shared_memory_fused
// CHECK-NOT: thread.graph
// CHECK: block.sub
// CHECK: block.rms_norm
// CHECK: block.mul
// CHECK: block.add
// CHECK-LABEL: func.func @layernorm_fused
// CHECK: thread.graph
// CHECK: block.rms_norm
// CHECK: thread.graph
// CHECK-NOT: block.add
// CHECK: return
func.func @layernorm_past_shared_memory_fused(%x: tensor<2x16384xf32>, %g: tensor<1x16384xf32>, %b: tensor<1x16384xf32>) -> tensor<2x16384xf32> {
  %0 = kernel.custom(%x, %g, %b) grid <2, 1, 1> block <128, 1, 1> : (tensor<2x16384xf32>, tensor<1x16384xf32>, tensor<1x16384xf32>) -> tensor<2x16384xf32> {
  ^bb0(%in0: tensor<2x16384xf32>, %in1: tensor<1x16384xf32>, %in2: tensor<1x16384xf32>, %out0: tensor<2x16384xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x16384xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<2x16384xf32> -> tensor<1x16384xf32>
      %3 = block.load %in1 imap <> : tensor<1x16384xf32> -> tensor<1x16384xf32>
      %4 = block.load %in2 imap <> : tensor<1x16384xf32> -> tensor<1x16384xf32>
      %5 = block.reduce_sum %2 dim 1 : tensor<1x16384xf32>
      %6 = block.mul_scalar %5, 6.103515625E-5 : tensor<1x1xf32>
      %7 = block.sub %2, %6 : tensor<1x16384xf32>, tensor<1x1xf32>
      %8 = block.rms_norm %7 {epsilon = 1.0E-5 : f64} : tensor<1x16384xf32>
      %9 = block.mul %3, %8 : tensor<1x16384xf32>, tensor<1x16384xf32>
      %10 = block.add %4, %9 : tensor<1x16384xf32>, tensor<1x16384xf32>
      block.yield %10 : tensor<1x16384xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x16384xf32> into tensor<2x16384xf32>
    block.return
  }
  return %0 : tensor<2x16384xf32>
}
func.func @layernorm_fused(%x: tensor<2x8192xf32>, %g: tensor<1x8192xf32>, %b: tensor<1x8192xf32>) -> tensor<2x8192xf32> {
  %0 = kernel.custom(%x, %g, %b) grid <2, 1, 1> block <128, 1, 1> : (tensor<2x8192xf32>, tensor<1x8192xf32>, tensor<1x8192xf32>) -> tensor<2x8192xf32> {
  ^bb0(%in0: tensor<2x8192xf32>, %in1: tensor<1x8192xf32>, %in2: tensor<1x8192xf32>, %out0: tensor<2x8192xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x8192xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<2x8192xf32> -> tensor<1x8192xf32>
      %3 = block.load %in1 imap <> : tensor<1x8192xf32> -> tensor<1x8192xf32>
      %4 = block.load %in2 imap <> : tensor<1x8192xf32> -> tensor<1x8192xf32>
      %5 = block.reduce_sum %2 dim 1 : tensor<1x8192xf32>
      %6 = block.mul_scalar %5, 1.220703125E-4 : tensor<1x1xf32>
      %7 = block.sub %2, %6 : tensor<1x8192xf32>, tensor<1x1xf32>
      %8 = block.rms_norm %7 {epsilon = 1.0E-5 : f64} : tensor<1x8192xf32>
      %9 = block.mul %3, %8 : tensor<1x8192xf32>, tensor<1x8192xf32>
      %10 = block.add %4, %9 : tensor<1x8192xf32>, tensor<1x8192xf32>
      block.yield %10 : tensor<1x8192xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x8192xf32> into tensor<2x8192xf32>
    block.return
  }
  return %0 : tensor<2x8192xf32>
}

// -----

// The limit is the module's target's: on sm_86 (99 KiB) the LayerNorm over
// 8192 values, fused above on sm_90, keeps its block ops (fused, it needs
// 4 x 32 KiB; as it is, 3 x 32 KiB).
// CHECK-LABEL: func.func @layernorm_on_sm86
// CHECK-NOT: thread.graph
// CHECK: block.add
module attributes {mlsopt.target = "sm_86"} {
func.func @layernorm_on_sm86(%x: tensor<2x8192xf32>, %g: tensor<1x8192xf32>, %b: tensor<1x8192xf32>) -> tensor<2x8192xf32> {
  %0 = kernel.custom(%x, %g, %b) grid <2, 1, 1> block <128, 1, 1> : (tensor<2x8192xf32>, tensor<1x8192xf32>, tensor<1x8192xf32>) -> tensor<2x8192xf32> {
  ^bb0(%in0: tensor<2x8192xf32>, %in1: tensor<1x8192xf32>, %in2: tensor<1x8192xf32>, %out0: tensor<2x8192xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x8192xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<2x8192xf32> -> tensor<1x8192xf32>
      %3 = block.load %in1 imap <> : tensor<1x8192xf32> -> tensor<1x8192xf32>
      %4 = block.load %in2 imap <> : tensor<1x8192xf32> -> tensor<1x8192xf32>
      %5 = block.reduce_sum %2 dim 1 : tensor<1x8192xf32>
      %6 = block.mul_scalar %5, 1.220703125E-4 : tensor<1x1xf32>
      %7 = block.sub %2, %6 : tensor<1x8192xf32>, tensor<1x1xf32>
      %8 = block.rms_norm %7 {epsilon = 1.0E-5 : f64} : tensor<1x8192xf32>
      %9 = block.mul %3, %8 : tensor<1x8192xf32>, tensor<1x8192xf32>
      %10 = block.add %4, %9 : tensor<1x8192xf32>, tensor<1x8192xf32>
      block.yield %10 : tensor<1x8192xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x8192xf32> into tensor<2x8192xf32>
    block.return
  }
  return %0 : tensor<2x8192xf32>
}
}
