// The roofline alone decides in the main run; by default, a fusion the
// latency term says is slower is refused as well (the VETO run).
// RUN: mlsopt-opt %s --fuse-kernel-elementwise=latency-veto=false --split-input-file | FileCheck %s
// RUN: mlsopt-opt %s --fuse-kernel-elementwise --split-input-file | FileCheck %s --check-prefix=VETO

// The combine kernel of a flash-decoding attention, and the division the
// partition left on its own: the division becomes the kernel's epilogue,
// on the tiles its blocks store (the sum's tile broadcast along the last
// dim), and the two outputs only the division read are dropped.
// CHECK-LABEL: func.func @combine_then_div(
// CHECK: %[[K:.*]] = kernel.custom({{.*}}) grid <2, 32, 1> block <128, 1, 1> : ({{.*}}) -> tensor<2x256x64xf16> {
// CHECK: ^bb0(%{{.*}}: tensor<2x256x1024xf16>, %{{.*}}: tensor<2x256x16xf16>, %[[OUT:.*]]: tensor<2x256x64xf16>):
// CHECK: %[[ACC:.*]]:2 = block.for_loop 16 iterations accumulate (sum, sum)
// CHECK: %[[Q:.*]] = thread.graph(%[[ACC]]#0, %[[ACC]]#1) : (tensor<1x8x64xf16>, tensor<1x8x1xf16>) -> tensor<1x8x64xf16>
// CHECK-NEXT: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16):
// CHECK-NEXT: %[[D:.*]] = thread.binary div %[[A]], %[[B]] : f16
// CHECK-NEXT: thread.yield %[[D]]
// CHECK: block.store %[[Q]], %[[OUT]] omap <x = 0, y = 1> : tensor<1x8x64xf16> into tensor<2x256x64xf16>
// CHECK-NEXT: block.return
// CHECK-NOT: kernel.
// CHECK: return %[[K]]
func.func @combine_then_div(%p: tensor<2x256x1024xf16>, %s: tensor<2x256x16xf16>) -> tensor<2x256x64xf16> {
  %0:2 = kernel.custom(%p, %s) grid <2, 32, 1> block <128, 1, 1> : (tensor<2x256x1024xf16>, tensor<2x256x16xf16>) -> (tensor<2x256x64xf16>, tensor<2x256x1xf16>) {
  ^bb0(%in0: tensor<2x256x1024xf16>, %in1: tensor<2x256x16xf16>, %out0: tensor<2x256x64xf16>, %out1: tensor<2x256x1xf16>):
    %1:2 = block.for_loop 16 iterations accumulate (sum, sum) : tensor<1x8x64xf16>, tensor<1x8x1xf16> {
      %2 = block.load %in0 imap <x = 0, y = 1> fmap 2 : tensor<2x256x1024xf16> -> tensor<1x8x64xf16>
      %3 = block.load %in1 imap <x = 0, y = 1> fmap 2 : tensor<2x256x16xf16> -> tensor<1x8x1xf16>
      block.yield %2, %3 : tensor<1x8x64xf16>, tensor<1x8x1xf16>
    }
    block.store %1#0, %out0 omap <x = 0, y = 1> : tensor<1x8x64xf16> into tensor<2x256x64xf16>
    block.store %1#1, %out1 omap <x = 0, y = 1> : tensor<1x8x1xf16> into tensor<2x256x1xf16>
    block.return
  }
  %o = kernel.div %0#0, %0#1 : tensor<2x256x64xf16>, tensor<2x256x1xf16>
  return %o : tensor<2x256x64xf16>
}

// -----

// A chain of elementwise ops joins one thread graph after the loop's; an
// output something else reads (here the function's second result) stays.
// CHECK-LABEL: func.func @chain_and_kept_output(
// CHECK: %[[K:.*]]:2 = kernel.custom({{.*}}) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
// CHECK: ^bb0(%{{.*}}: tensor<8x64xf32>, %[[KEPT:.*]]: tensor<8x64xf32>, %[[OUT:.*]]: tensor<8x64xf32>):
// CHECK: block.store %[[X:.*]], %[[KEPT]] omap <x = 0>
// CHECK-NEXT: %[[T:.*]] = thread.graph(%[[X]]) : (tensor<2x64xf32>) -> tensor<2x64xf32>
// CHECK-NEXT: ^bb0(%[[E:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = thread.unary silu %[[E]]
// CHECK-NEXT: %[[M:.*]] = thread.mul_scalar %[[S]], 5.000000e-01
// CHECK-NEXT: %[[N:.*]] = thread.unary neg %[[M]]
// CHECK-NEXT: thread.yield %[[N]]
// CHECK: block.store %[[T]], %[[OUT]] omap <x = 0>
// CHECK-NOT: kernel.
// CHECK: return %[[K]]#1, %[[K]]#0
func.func @chain_and_kept_output(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = kernel.custom(%x) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<2x64xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf32> -> tensor<2x64xf32>
      %3 = block.exp %2 : tensor<2x64xf32>
      block.yield %3 : tensor<2x64xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x64xf32> into tensor<8x64xf32>
    block.return
  }
  %a = kernel.silu %0 : tensor<8x64xf32>
  %h = kernel.mul_scalar %a, 5.000000e-01 : tensor<8x64xf32>
  %o = kernel.neg %h : tensor<8x64xf32>
  return %o, %0 : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Operands from two kernels with different launches (merge-custom-kernels.mlir
// has them with one): the op stays a kernel of its own.
// CHECK-LABEL: func.func @two_producers(
// CHECK-COUNT-2: kernel.custom
// CHECK: kernel.add
func.func @two_producers(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %0 = kernel.custom(%x) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<2x64xf16> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf16> -> tensor<2x64xf16>
      %3 = block.exp %2 : tensor<2x64xf16>
      block.yield %3 : tensor<2x64xf16>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x64xf16> into tensor<8x64xf16>
    block.return
  }
  %4 = kernel.custom(%x) grid <8, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x64xf16> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf16> -> tensor<1x64xf16>
      %3 = block.silu %2 : tensor<1x64xf16>
      block.yield %3 : tensor<1x64xf16>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x64xf16> into tensor<8x64xf16>
    block.return
  }
  %o = kernel.add %0, %4 : tensor<8x64xf16>, tensor<8x64xf16>
  return %o : tensor<8x64xf16>
}

// -----

// An operand that is not a kernel output (a function argument, a
// residual): the kernel's for-loop runs once, so it loads the operand's
// tiles as its result's are cut, and adds in its epilogue.
// CHECK-LABEL: func.func @reads_an_argument(
// CHECK-SAME: %[[X:.*]]: tensor<8x64xf16>, %[[R:.*]]: tensor<8x64xf16>
// CHECK: kernel.custom(%[[X]], %[[R]])
// CHECK: block.load %in1 imap <x = 0> : tensor<8x64xf16> -> tensor<2x64xf16>
// CHECK-NOT: kernel.add
func.func @reads_an_argument(%x: tensor<8x64xf16>, %r: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %0 = kernel.custom(%x) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<2x64xf16> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf16> -> tensor<2x64xf16>
      %3 = block.exp %2 : tensor<2x64xf16>
      block.yield %3 : tensor<2x64xf16>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x64xf16> into tensor<8x64xf16>
    block.return
  }
  %o = kernel.add %0, %r : tensor<8x64xf16>, tensor<8x64xf16>
  return %o : tensor<8x64xf16>
}

// -----

// Blocks that store different parts of the two operands (rows of one,
// columns of the other): no block holds the elements an add needs.
// CHECK-LABEL: func.func @tiles_disagree(
// CHECK: kernel.custom
// CHECK: kernel.add
func.func @tiles_disagree(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %0:2 = kernel.custom(%x) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>, %out1: tensor<8x64xf16>):
    %1:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<2x64xf16>, tensor<8x16xf16> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf16> -> tensor<2x64xf16>
      %3 = block.load %in0 imap <x = 1> : tensor<8x64xf16> -> tensor<8x16xf16>
      block.yield %2, %3 : tensor<2x64xf16>, tensor<8x16xf16>
    }
    block.store %1#0, %out0 omap <x = 0> : tensor<2x64xf16> into tensor<8x64xf16>
    block.store %1#1, %out1 omap <x = 1> : tensor<8x16xf16> into tensor<8x64xf16>
    block.return
  }
  %o = kernel.add %0#0, %0#1 : tensor<8x64xf16>, tensor<8x64xf16>
  return %o : tensor<8x64xf16>
}

// -----

// Prologue: the scale of Q, a kernel of its own before the attention's
// split kernel, is applied to each Q tile the kernel loads; the kernel reads
// Q itself.
// CHECK-LABEL: func.func @scaled_q(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x256x64xf16>, %[[K:[^:]*]]: tensor<2x64x4096xf16>, %[[V:[^:]*]]: tensor<2x4096x64xf16>
// CHECK-NOT: kernel.mul_scalar
// CHECK: kernel.custom(%[[Q]], %[[K]], %[[V]])
// CHECK: ^bb0(%[[IN:.*]]: tensor<2x256x64xf16>, %{{.*}}: tensor<2x64x4096xf16>, %{{.*}}: tensor<2x4096x64xf16>,
// CHECK: %[[T:.*]] = block.load %[[IN]] imap <x = 0, y = 1> : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
// CHECK-NEXT: %[[S:.*]] = thread.graph(%[[T]])
// CHECK-NEXT: ^bb0(%[[E:.*]]: f16):
// CHECK-NEXT: thread.mul_scalar %[[E]], 1.250000e-01
// CHECK: block.matmul %[[S]]
// CHECK-NOT: kernel.
// CHECK: return
func.func @scaled_q(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> (tensor<2x256x1024xf16>, tensor<2x256x16xf16>) {
  %qs = kernel.mul_scalar %q, 1.250000e-01 : tensor<2x256x64xf16>
  %0:2 = kernel.custom(%qs, %k, %v) grid <2, 4, 16> block <128, 1, 1> : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> (tensor<2x256x1024xf16>, tensor<2x256x16xf16>) {
  ^bb0(%in0: tensor<2x256x64xf16>, %in1: tensor<2x64x4096xf16>, %in2: tensor<2x4096x64xf16>, %out0: tensor<2x256x1024xf16>, %out1: tensor<2x256x16xf16>):
    %3:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<1x64x64xf16>, tensor<1x64x1xf16> {
      %4 = block.load %in0 imap <x = 0, y = 1> : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
      %5 = block.load %in1 imap <x = 0, z = 2> : tensor<2x64x4096xf16> -> tensor<1x64x256xf16>
      %6 = block.load %in2 imap <x = 0, z = 1> : tensor<2x4096x64xf16> -> tensor<1x256x64xf16>
      %7 = block.matmul %4, %5 : tensor<1x64x64xf16>, tensor<1x64x256xf16>
      %8 = block.exp %7 : tensor<1x64x256xf16>
      %9 = block.matmul %8, %6 : tensor<1x64x256xf16>, tensor<1x256x64xf16>
      %10 = block.reduce_sum %8 dim 2 : tensor<1x64x256xf16>
      block.yield %9, %10 : tensor<1x64x64xf16>, tensor<1x64x1xf16>
    }
    block.store %3#0, %out0 omap <x = 0, y = 1, z = 2> : tensor<1x64x64xf16> into tensor<2x256x1024xf16>
    block.store %3#1, %out1 omap <x = 0, y = 1, z = 2> : tensor<1x64x1xf16> into tensor<2x256x16xf16>
    block.return
  }
  return %0#0, %0#1 : tensor<2x256x1024xf16>, tensor<2x256x16xf16>
}

// -----

// A broadcast operand (a bias row) is loaded without the grid split of the
// dim it stretches along, with the for-loop's split of the other: each
// block and iteration gets the 1x32 piece of the bias its 2x32 tile needs.
// CHECK-LABEL: func.func @bias_then_sum(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x64xf16>, %[[B:[^:]*]]: tensor<1x64xf16>
// CHECK: kernel.custom(%[[X]], %[[B]])
// CHECK: ^bb0(%[[INX:.*]]: tensor<8x64xf16>, %[[INB:.*]]: tensor<1x64xf16>,
// CHECK: block.for_loop 2 iterations
// CHECK-NEXT: %[[TX:.*]] = block.load %[[INX]] imap <x = 0> fmap 1 : tensor<8x64xf16> -> tensor<2x32xf16>
// CHECK-NEXT: %[[TB:.*]] = block.load %[[INB]] imap <> fmap 1 : tensor<1x64xf16> -> tensor<1x32xf16>
// CHECK-NEXT: thread.graph(%[[TX]], %[[TB]]) : (tensor<2x32xf16>, tensor<1x32xf16>) -> tensor<2x32xf16>
// CHECK: thread.binary add
// CHECK-NOT: kernel.add
func.func @bias_then_sum(%x: tensor<8x64xf16>, %b: tensor<1x64xf16>) -> tensor<8x1xf16> {
  %xb = kernel.add %x, %b : tensor<8x64xf16>, tensor<1x64xf16>
  %0 = kernel.custom(%xb) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x1xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x1xf16>):
    %1 = block.for_loop 2 iterations accumulate (sum) : tensor<2x1xf16> {
      %2 = block.load %in0 imap <x = 0> fmap 1 : tensor<8x64xf16> -> tensor<2x32xf16>
      %3 = block.reduce_sum %2 dim 1 : tensor<2x32xf16>
      block.yield %3 : tensor<2x1xf16>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x1xf16> into tensor<8x1xf16>
    block.return
  }
  return %0 : tensor<8x1xf16>
}

// -----

// The op's result is also a result of the function: it stays.
// CHECK-LABEL: func.func @result_read_twice(
// CHECK: kernel.exp
// CHECK: kernel.custom
func.func @result_read_twice(%x: tensor<8x64xf16>) -> (tensor<8x1xf16>, tensor<8x64xf16>) {
  %e = kernel.exp %x : tensor<8x64xf16>
  %0 = kernel.custom(%e) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x1xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x1xf16>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<2x1xf16> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf16> -> tensor<2x64xf16>
      %3 = block.reduce_sum %2 dim 1 : tensor<2x64xf16>
      block.yield %3 : tensor<2x1xf16>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x1xf16> into tensor<8x1xf16>
    block.return
  }
  return %0, %e : tensor<8x1xf16>, tensor<8x64xf16>
}

// -----

// Each of 128 blocks reads all of the 1 MiB sum: fused, each would read both
// 1 MiB operands, 128 MiB more from L2 than the two launches move, which
// costs more than the launch it saves. The cost model keeps them apart.
// CHECK-LABEL: func.func @read_by_every_block(
// CHECK: kernel.add
// CHECK: kernel.custom
func.func @read_by_every_block(%a: tensor<4096x128xf16>, %b: tensor<4096x128xf16>) -> tensor<128x128xf16> {
  %s = kernel.add %a, %b : tensor<4096x128xf16>, tensor<4096x128xf16>
  %0 = kernel.custom(%s) grid <128, 1, 1> block <128, 1, 1> : (tensor<4096x128xf16>) -> tensor<128x128xf16> {
  ^bb0(%in0: tensor<4096x128xf16>, %out0: tensor<128x128xf16>):
    %1 = block.for_loop 64 iterations accumulate (sum) : tensor<1x128xf16> {
      %2 = block.load %in0 imap <> fmap 0 : tensor<4096x128xf16> -> tensor<64x128xf16>
      %3 = block.reduce_sum %2 dim 0 : tensor<64x128xf16>
      block.yield %3 : tensor<1x128xf16>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x128xf16> into tensor<128x128xf16>
    block.return
  }
  return %0 : tensor<128x128xf16>
}

// -----

// Two such sums read by one kernel: each fusion is tried and given up, and
// giving one up must not put the other back on the pattern driver's
// worklist (it did: the trial kernel, erased, read the other's result, and
// the two retried each other forever).
// CHECK-LABEL: func.func @two_read_by_every_block(
// CHECK: kernel.add
// CHECK: kernel.add
// CHECK: kernel.custom
func.func @two_read_by_every_block(%a: tensor<4096x128xf16>, %b: tensor<4096x128xf16>) -> tensor<128x128xf16> {
  %s = kernel.add %a, %b : tensor<4096x128xf16>, tensor<4096x128xf16>
  %t = kernel.add %b, %a : tensor<4096x128xf16>, tensor<4096x128xf16>
  %0 = kernel.custom(%s, %t) grid <128, 1, 1> block <128, 1, 1> : (tensor<4096x128xf16>, tensor<4096x128xf16>) -> tensor<128x128xf16> {
  ^bb0(%in0: tensor<4096x128xf16>, %in1: tensor<4096x128xf16>, %out0: tensor<128x128xf16>):
    %1 = block.for_loop 64 iterations accumulate (sum) : tensor<1x128xf16> {
      %2 = block.load %in0 imap <> fmap 0 : tensor<4096x128xf16> -> tensor<64x128xf16>
      %3 = block.load %in1 imap <> fmap 0 : tensor<4096x128xf16> -> tensor<64x128xf16>
      %4 = block.mul %2, %3 : tensor<64x128xf16>, tensor<64x128xf16>
      %5 = block.reduce_sum %4 dim 0 : tensor<64x128xf16>
      block.yield %5 : tensor<1x128xf16>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x128xf16> into tensor<128x128xf16>
    block.return
  }
  return %0 : tensor<128x128xf16>
}

// -----

// rms_norm is elementwise once a tile holds whole rows of its dim: QKNorm's
// normalizations of Q (over its last dim) and of K (over dim 1) run on the
// tiles the attention kernel loads, each of which spans the head dim.
// With the latency veto, K's normalization stays a kernel of its own: the
// latency term says the kernel that also normalizes K's tiles is slower
// than the two launches.
// VETO-LABEL: func.func @qk_norms(
// VETO-NEXT: kernel.rms_norm %arg1 dim 1
// VETO-NEXT: kernel.custom(%arg0, %0, %arg2)
// VETO: block.rms_norm %{{.*}} : tensor<1x64x64xf16>
// CHECK-LABEL: func.func @qk_norms(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x256x64xf16>, %[[K:[^:]*]]: tensor<2x64x4096xf16>, %[[V:[^:]*]]: tensor<2x4096x64xf16>
// CHECK-NOT: kernel.rms_norm
// CHECK: kernel.custom(%[[Q]], %[[K]], %[[V]])
// CHECK: %[[QT:.*]] = block.load %{{.*}} imap <x = 0, y = 1> : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
// CHECK-NEXT: %[[QN:.*]] = block.rms_norm %[[QT]] {epsilon = 9.9999999999999995E-7 : f64} : tensor<1x64x64xf16>
// CHECK-NEXT: %[[KT:.*]] = block.load %{{.*}} imap <x = 0, z = 2> : tensor<2x64x4096xf16> -> tensor<1x64x256xf16>
// CHECK-NEXT: %[[KN:.*]] = block.rms_norm %[[KT]] dim 1 {epsilon = 9.9999999999999995E-7 : f64} : tensor<1x64x256xf16>
// CHECK: block.matmul %[[QN]], %[[KN]]
// CHECK-NOT: kernel.
// CHECK: return
func.func @qk_norms(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> (tensor<2x256x1024xf16>, tensor<2x256x16xf16>) {
  %qn = kernel.rms_norm %q {epsilon = 1.0e-06 : f64} : tensor<2x256x64xf16>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x64x4096xf16>
  %0:2 = kernel.custom(%qn, %kn, %v) grid <2, 4, 16> block <128, 1, 1> : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> (tensor<2x256x1024xf16>, tensor<2x256x16xf16>) {
  ^bb0(%in0: tensor<2x256x64xf16>, %in1: tensor<2x64x4096xf16>, %in2: tensor<2x4096x64xf16>, %out0: tensor<2x256x1024xf16>, %out1: tensor<2x256x16xf16>):
    %3:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<1x64x64xf16>, tensor<1x64x1xf16> {
      %4 = block.load %in0 imap <x = 0, y = 1> : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
      %5 = block.load %in1 imap <x = 0, z = 2> : tensor<2x64x4096xf16> -> tensor<1x64x256xf16>
      %6 = block.load %in2 imap <x = 0, z = 1> : tensor<2x4096x64xf16> -> tensor<1x256x64xf16>
      %7 = block.matmul %4, %5 : tensor<1x64x64xf16>, tensor<1x64x256xf16>
      %8 = block.exp %7 : tensor<1x64x256xf16>
      %9 = block.matmul %8, %6 : tensor<1x64x256xf16>, tensor<1x256x64xf16>
      %10 = block.reduce_sum %8 dim 2 : tensor<1x64x256xf16>
      block.yield %9, %10 : tensor<1x64x64xf16>, tensor<1x64x1xf16>
    }
    block.store %3#0, %out0 omap <x = 0, y = 1, z = 2> : tensor<1x64x64xf16> into tensor<2x256x1024xf16>
    block.store %3#1, %out1 omap <x = 0, y = 1, z = 2> : tensor<1x64x1xf16> into tensor<2x256x16xf16>
    block.return
  }
  return %0#0, %0#1 : tensor<2x256x1024xf16>, tensor<2x256x16xf16>
}

// -----

// The loop walks the normalized dim in halves: no tile holds a whole row,
// so the normalization stays a kernel of its own.
// CHECK-LABEL: func.func @norm_rows_split(
// CHECK: kernel.rms_norm
// CHECK: kernel.custom
func.func @norm_rows_split(%x: tensor<8x64xf16>) -> tensor<8x1xf16> {
  %n = kernel.rms_norm %x : tensor<8x64xf16>
  %0 = kernel.custom(%n) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x1xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x1xf16>):
    %1 = block.for_loop 2 iterations accumulate (sum) : tensor<2x1xf16> {
      %2 = block.load %in0 imap <x = 0> fmap 1 : tensor<8x64xf16> -> tensor<2x32xf16>
      %3 = block.reduce_sum %2 dim 1 : tensor<2x32xf16>
      block.yield %3 : tensor<2x1xf16>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x1xf16> into tensor<8x1xf16>
    block.return
  }
  return %0 : tensor<8x1xf16>
}

// -----

// Epilogue: a post-norm over whole stored rows joins the kernel; over
// rows the blocks store in halves it does not.
// CHECK-LABEL: func.func @post_norm(
// CHECK: kernel.custom
// CHECK: block.rms_norm %{{.*}} : tensor<2x64xf32>
// CHECK-NOT: kernel.rms_norm
// CHECK-LABEL: func.func @post_norm_half_rows(
// CHECK: kernel.custom
// CHECK: kernel.rms_norm
func.func @post_norm(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = kernel.custom(%x) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<2x64xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf32> -> tensor<2x64xf32>
      %3 = block.exp %2 : tensor<2x64xf32>
      block.yield %3 : tensor<2x64xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x64xf32> into tensor<8x64xf32>
    block.return
  }
  %n = kernel.rms_norm %0 : tensor<8x64xf32>
  return %n : tensor<8x64xf32>
}
func.func @post_norm_half_rows(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = kernel.custom(%x) grid <4, 2, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<2x32xf32> {
      %2 = block.load %in0 imap <x = 0, y = 1> : tensor<8x64xf32> -> tensor<2x32xf32>
      %3 = block.exp %2 : tensor<2x32xf32>
      block.yield %3 : tensor<2x32xf32>
    }
    block.store %1, %out0 omap <x = 0, y = 1> : tensor<2x32xf32> into tensor<8x64xf32>
    block.return
  }
  %n = kernel.rms_norm %0 : tensor<8x64xf32>
  return %n : tensor<8x64xf32>
}

// -----

// The FlashAttention kernel --superoptimize finds for QKNorm at b = 8 on
// sm_90, with its norms still kernels of their own. Fused, the normalized
// tiles take 40 KiB of shared memory more (188672 bytes): within sm_90's
// 227 KiB, past sm_80's 163. For a module targeting sm_80, Q's norm (an
// 8 KiB tile) joins and K's (32 KiB) stays a kernel.
// CHECK-LABEL: func.func @flash_qknorm_sm80(
// CHECK: kernel.rms_norm %{{.*}} dim 1
// CHECK-NOT: kernel.rms_norm
// CHECK: kernel.custom
// CHECK-COUNT-1: block.rms_norm
// CHECK-NOT: block.rms_norm
// CHECK: return
module attributes {mlsopt.target = "sm_80"} {
func.func @flash_qknorm_sm80(%q: tensor<16x256x64xf16>, %k: tensor<16x64x4096xf16>, %v: tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> {
  %qn = kernel.rms_norm %q {epsilon = 1.0e-06 : f64} : tensor<16x256x64xf16>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<16x64x4096xf16>
  %0 = kernel.custom(%qn, %kn, %v) grid <16, 4, 2> block <128, 1, 1> : (tensor<16x256x64xf16>, tensor<16x64x4096xf16>, tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> {
  ^bb0(%in0: tensor<16x256x64xf16>, %in1: tensor<16x64x4096xf16>, %in2: tensor<16x4096x64xf16>, %out0: tensor<16x256x64xf16>):
    %1:2 = block.for_loop 16 iterations accumulate (sum, sum) : tensor<1x64x32xf16>, tensor<1x64x1xf16> {
      %3 = block.load %in0 imap <x = 0, y = 1> : tensor<16x256x64xf16> -> tensor<1x64x64xf16>
      %5 = block.load %in1 imap <x = 0> fmap 2 : tensor<16x64x4096xf16> -> tensor<1x64x256xf16>
      %7 = block.load %in2 imap <x = 0, z = 2> fmap 1 : tensor<16x4096x64xf16> -> tensor<1x256x32xf16>
      %8 = block.matmul %3, %5 : tensor<1x64x64xf16>, tensor<1x64x256xf16>
      %9 = block.exp %8 : tensor<1x64x256xf16>
      %10 = block.matmul %9, %7 : tensor<1x64x256xf16>, tensor<1x256x32xf16>
      %11 = block.reduce_sum %9 dim 2 : tensor<1x64x256xf16>
      block.yield %10, %11 : tensor<1x64x32xf16>, tensor<1x64x1xf16>
    }
    %2 = block.div %1#0, %1#1 : tensor<1x64x32xf16>, tensor<1x64x1xf16>
    block.store %2, %out0 omap <x = 0, y = 1, z = 2> : tensor<1x64x32xf16> into tensor<16x256x64xf16>
    block.return
  }
  return %0 : tensor<16x256x64xf16>
}
}

// -----

// The same program for sm_90: both norms join the kernel.
// CHECK-LABEL: func.func @flash_qknorm_sm90(
// CHECK-NOT: kernel.rms_norm
// CHECK: kernel.custom
// CHECK-COUNT-2: block.rms_norm
module attributes {mlsopt.target = "sm_90"} {
func.func @flash_qknorm_sm90(%q: tensor<16x256x64xf16>, %k: tensor<16x64x4096xf16>, %v: tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> {
  %qn = kernel.rms_norm %q {epsilon = 1.0e-06 : f64} : tensor<16x256x64xf16>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<16x64x4096xf16>
  %0 = kernel.custom(%qn, %kn, %v) grid <16, 4, 2> block <128, 1, 1> : (tensor<16x256x64xf16>, tensor<16x64x4096xf16>, tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> {
  ^bb0(%in0: tensor<16x256x64xf16>, %in1: tensor<16x64x4096xf16>, %in2: tensor<16x4096x64xf16>, %out0: tensor<16x256x64xf16>):
    %1:2 = block.for_loop 16 iterations accumulate (sum, sum) : tensor<1x64x32xf16>, tensor<1x64x1xf16> {
      %3 = block.load %in0 imap <x = 0, y = 1> : tensor<16x256x64xf16> -> tensor<1x64x64xf16>
      %5 = block.load %in1 imap <x = 0> fmap 2 : tensor<16x64x4096xf16> -> tensor<1x64x256xf16>
      %7 = block.load %in2 imap <x = 0, z = 2> fmap 1 : tensor<16x4096x64xf16> -> tensor<1x256x32xf16>
      %8 = block.matmul %3, %5 : tensor<1x64x64xf16>, tensor<1x64x256xf16>
      %9 = block.exp %8 : tensor<1x64x256xf16>
      %10 = block.matmul %9, %7 : tensor<1x64x256xf16>, tensor<1x256x32xf16>
      %11 = block.reduce_sum %9 dim 2 : tensor<1x64x256xf16>
      block.yield %10, %11 : tensor<1x64x32xf16>, tensor<1x64x1xf16>
    }
    %2 = block.div %1#0, %1#1 : tensor<1x64x32xf16>, tensor<1x64x1xf16>
    block.store %2, %out0 omap <x = 0, y = 1, z = 2> : tensor<1x64x32xf16> into tensor<16x256x64xf16>
    block.return
  }
  return %0 : tensor<16x256x64xf16>
}
}

// -----

// An op between the kernel and its epilogue reads the kernel's output: the
// fused kernel takes the kernel's place, before that reader.
// CHECK-LABEL: func.func @reader_in_between(
// CHECK: %[[K:.*]]:2 = kernel.custom
// CHECK: thread.unary neg
// CHECK: %[[S:.*]] = kernel.reduce_sum %[[K]]#0 dim 1
// CHECK-NOT: kernel.neg
// CHECK: return %[[K]]#1, %[[S]]
func.func @reader_in_between(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x1xf32>) {
  %0 = kernel.custom(%x) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<2x64xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf32> -> tensor<2x64xf32>
      %3 = block.exp %2 : tensor<2x64xf32>
      block.yield %3 : tensor<2x64xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x64xf32> into tensor<8x64xf32>
    block.return
  }
  %s = kernel.reduce_sum %0 dim 1 : tensor<8x64xf32>
  %n = kernel.neg %0 : tensor<8x64xf32>
  return %n, %s : tensor<8x64xf32>, tensor<8x1xf32>
}

// -----

// An f16 RMSNorm computed in f32 (LLaMA's): the search keeps the lone
// rms_norm as it is, with a conversion on each side. The rms_norm becomes
// its default block graph, whose loads and stores do both conversions:
// one launch, not three.
// CHECK-LABEL: func.func @norm_between_conversions(
// CHECK-SAME: %[[X:.*]]: tensor<64x512xf16>
// CHECK-NOT: kernel.convert
// CHECK: %[[K:.*]] = kernel.custom(%[[X]]) {{.*}} : (tensor<64x512xf16>) -> tensor<64x512xf16>
// CHECK: block.load %{{.*}} : tensor<64x512xf16> -> tensor<1x512xf32>
// CHECK: block.rms_norm %{{.*}} : tensor<1x512xf32>
// CHECK: block.store %{{.*}} : tensor<1x512xf32> into tensor<64x512xf16>
// CHECK-NOT: kernel.
// CHECK: return %[[K]]
func.func @norm_between_conversions(%x: tensor<64x512xf16>) -> tensor<64x512xf16> {
  %0 = kernel.convert %x : tensor<64x512xf16> to tensor<64x512xf32>
  %1 = kernel.rms_norm %0 {epsilon = 1.0e-6 : f64} : tensor<64x512xf32>
  %2 = kernel.convert %1 : tensor<64x512xf32> to tensor<64x512xf16>
  return %2 : tensor<64x512xf16>
}

// -----

// A conversion beside a kernel op that another op reads too: the op's
// kernel could not convert in its store, so the op stays pre-defined.
// CHECK-LABEL: func.func @conversion_of_a_shared_result(
// CHECK: %[[N:.*]] = kernel.rms_norm
// CHECK: kernel.convert %[[N]]
func.func @conversion_of_a_shared_result(%x: tensor<64x512xf32>) -> (tensor<64x512xf16>, tensor<64x512xf32>) {
  %1 = kernel.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<64x512xf32>
  %2 = kernel.convert %1 : tensor<64x512xf32> to tensor<64x512xf16>
  return %2, %1 : tensor<64x512xf16>, tensor<64x512xf32>
}

// -----

// A softmax's division of a kernel's exp by a library kernel's row sum,
// then the conversion to f16: the division reads the sum, made after the
// kernel, so it is no epilogue of it; it becomes its default block graph,
// which stores f16. One launch for the two, where two stayed.
// CHECK-LABEL: func.func @division_by_a_library_sum(
// CHECK: %[[E:.*]] = kernel.custom(%arg0)
// CHECK: %[[S:.*]] = kernel.reduce_sum %[[E]] dim 1
// CHECK: %[[O:.*]] = kernel.custom(%[[E]], %[[S]]) {{.*}} -> tensor<8x4096xf16>
// CHECK: thread.binary div
// CHECK: block.store %{{.*}} into tensor<8x4096xf16>
// CHECK-NOT: kernel.
// CHECK: return %[[O]]
func.func @division_by_a_library_sum(%x: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %e = kernel.custom(%x) grid <8, 16, 1> block <128, 1, 1> : (tensor<8x4096xf16>) -> tensor<8x4096xf32> {
  ^bb0(%in0: tensor<8x4096xf16>, %out0: tensor<8x4096xf32>):
    %r = block.for_loop 1 iterations accumulate (sum) : tensor<1x256xf32> {
      %a = block.load %in0 imap <x = 0, y = 1> : tensor<8x4096xf16> -> tensor<1x256xf32>
      %t = block.exp %a : tensor<1x256xf32>
      block.yield %t : tensor<1x256xf32>
    }
    block.store %r, %out0 omap <x = 0, y = 1> : tensor<1x256xf32> into tensor<8x4096xf32>
    block.return
  }
  %s = kernel.reduce_sum %e dim 1 : tensor<8x4096xf32>
  %d = kernel.div %e, %s : tensor<8x4096xf32>, tensor<8x1xf32>
  %o = kernel.convert %d : tensor<8x4096xf32> to tensor<8x4096xf16>
  return %o : tensor<8x4096xf16>
}

// -----

// A linear layer whose output is handed on transposed, the matmul kept as
// it is by the search: the matmul becomes its default block graph, whose
// blocks store their tiles permuted. One launch, not two.
// CHECK-LABEL: func.func @matmul_then_transpose(
// CHECK: %[[K:.*]] = kernel.custom
// CHECK: %[[ACC:.*]] = block.for_loop
// CHECK: %[[T:.*]] = block.transpose %[[ACC]] [1, 0]
// CHECK: block.store %[[T]]
// CHECK-NOT: kernel.
// CHECK: return %[[K]]
func.func @matmul_then_transpose(%x: tensor<128x256xf32>, %w: tensor<256x64xf32>) -> tensor<64x128xf32> {
  %0 = kernel.matmul %x, %w : tensor<128x256xf32>, tensor<256x64xf32>
  %1 = kernel.transpose %0 [1, 0] : tensor<128x64xf32>
  return %1 : tensor<64x128xf32>
}

// -----

// A Gram matrix X^T X, the matmul kept as a library kernel: its default
// block graph is a split-k pair (one 64x64 output tile, k = 4096), and the
// transpose moves into its first kernel, which loads each chunk of X once,
// as stored, and multiplies its permuted tile by it. Two launches and no
// copy of X. The f16 tiles are multiplied as loaded, the partial sums
// stay f32 (a widening matmul), and the second kernel rounds once.
// CHECK-LABEL: func.func @transpose_into_split_matmul(
// CHECK-NOT: kernel.transpose
// CHECK: %[[P:.*]] = kernel.custom(%arg0) grid <1, 1, 128> block <128, 1, 1> : (tensor<4096x64xf16>) -> tensor<64x8192xf32>
// CHECK: %[[T:.*]] = block.load %in0 imap <z = 0> : tensor<4096x64xf16> -> tensor<32x64xf16>
// CHECK-NEXT: %[[TT:.*]] = block.transpose %[[T]] [1, 0]
// CHECK-NEXT: block.matmul %[[TT]], %[[T]] : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK: kernel.custom(%[[P]]) grid <64, 1, 1>
// CHECK-NOT: kernel.
// CHECK: return
func.func @transpose_into_split_matmul(%x: tensor<4096x64xf16>) -> tensor<64x64xf16> {
  %t = kernel.transpose %x [1, 0] : tensor<4096x64xf16>
  %g = kernel.matmul %t, %x : tensor<64x4096xf16>, tensor<4096x64xf16>
  return %g : tensor<64x64xf16>
}

// -----

// The same norm with its gain (LLaMA's RMSNorm in f16): the gain, an
// argument the kernel does not make, is loaded in the kernel's one
// iteration and yielded to a sum accumulator of its own, which passes its
// one tile through; the product is the epilogue. One launch, not two.
// CHECK-LABEL: func.func @norm_gain_between_conversions(
// CHECK-SAME: %[[X:.*]]: tensor<64x512xf16>, %[[G:.*]]: tensor<512xf16>
// CHECK: %[[GE:.*]] = tensor.expand_shape %[[G]]
// CHECK: %[[K:.*]] = kernel.custom(%[[X]], %[[GE]])
// CHECK: %[[ACC:.*]]:2 = block.for_loop 1 iterations accumulate (sum, sum)
// CHECK: %[[N:.*]] = block.rms_norm
// CHECK: %[[GT:.*]] = block.load %{{.*}} imap <> : tensor<1x512xf16> -> tensor<1x512xf32>
// CHECK: block.yield %[[N]], %[[GT]]
// CHECK: thread.graph(%[[ACC]]#1, %[[ACC]]#0)
// CHECK: block.store
// CHECK-NOT: kernel.
// CHECK: return %[[K]]
func.func @norm_gain_between_conversions(%x: tensor<64x512xf16>, %g: tensor<512xf16>) -> tensor<64x512xf16> {
  %0 = kernel.convert %x : tensor<64x512xf16> to tensor<64x512xf32>
  %1 = kernel.rms_norm %0 {epsilon = 1.0e-6 : f64} : tensor<64x512xf32>
  %2 = kernel.convert %1 : tensor<64x512xf32> to tensor<64x512xf16>
  %ge = tensor.expand_shape %g [[0, 1]] output_shape [1, 512] : tensor<512xf16> into tensor<1x512xf16>
  %3 = kernel.mul %ge, %2 : tensor<1x512xf16>, tensor<64x512xf16>
  return %3 : tensor<64x512xf16>
}

// -----

// A bias after a kernel whose for-loop runs 4 times: a load in the loop
// would be summed 4 times, so the kernel loads the bias's tile once after
// the loop, beside the product's, and adds it there.
// CHECK-LABEL: func.func @bias_after_a_loop(
// CHECK: %[[K:.*]] = kernel.custom(%{{.*}}, %{{.*}}, %{{.*}}) grid <4, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>, tensor<256x64xf32>, tensor<1x64xf32>) -> tensor<64x64xf32> {
// CHECK: ^bb0(%{{.*}}: tensor<64x256xf32>, %{{.*}}: tensor<256x64xf32>, %[[B:.*]]: tensor<1x64xf32>,
// CHECK: %[[ACC:.*]] = block.for_loop 4 iterations accumulate (sum) : tensor<16x64xf32> {
// CHECK-NOT: %[[B]]
// CHECK: block.yield
// CHECK: %[[BT:.*]] = block.load %[[B]] imap <> : tensor<1x64xf32> -> tensor<1x64xf32>
// CHECK: thread.graph(%[[ACC]], %[[BT]])
// CHECK: thread.binary add
// CHECK-NOT: kernel.add
// CHECK: return %[[K]] :
func.func @bias_after_a_loop(%x: tensor<64x256xf32>, %w: tensor<256x64xf32>, %b: tensor<1x64xf32>) -> tensor<64x64xf32> {
  %0 = kernel.custom(%x, %w) grid <4, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>, tensor<256x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%in0: tensor<64x256xf32>, %in1: tensor<256x64xf32>, %out0: tensor<64x64xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<16x64xf32> {
      %a = block.load %in0 imap <x = 0> fmap 1 : tensor<64x256xf32> -> tensor<16x64xf32>
      %w0 = block.load %in1 imap <> fmap 0 : tensor<256x64xf32> -> tensor<64x64xf32>
      %m = block.matmul %a, %w0 : tensor<16x64xf32>, tensor<64x64xf32>
      block.yield %m : tensor<16x64xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<16x64xf32> into tensor<64x64xf32>
    block.return
  }
  %1 = kernel.add %0, %b : tensor<64x64xf32>, tensor<1x64xf32>
  return %1 : tensor<64x64xf32>
}

// -----

// A ragged loop: the row sum's last iteration reads zeros past column 1025,
// which add nothing. exp of them would add exp(0) = 1 each, so the exp is
// not loaded into the kernel; relu keeps them 0 and is.
// CHECK-LABEL: func.func @exp_sum(
// CHECK: kernel.exp
// CHECK-NOT: thread.unary exp
func.func @exp_sum(%x: tensor<64x1025xf32>) -> tensor<64x1xf32> {
  %e = kernel.exp %x : tensor<64x1025xf32>
  %s = kernel.custom (%e) grid <64, 1, 1> block <128, 1, 1> : (tensor<64x1025xf32>) -> tensor<64x1xf32> {
  ^bb0(%in0: tensor<64x1025xf32>, %out0: tensor<64x1xf32>):
    %acc = block.for_loop 2 iterations accumulate (sum) : tensor<1x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<64x1025xf32> -> tensor<1x1024xf32>
      %r = block.reduce_sum %t dim 1 : tensor<1x1024xf32>
      block.yield %r : tensor<1x1xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<1x1xf32> into tensor<64x1xf32>
    block.return
  }
  return %s : tensor<64x1xf32>
}

// -----

// A ragged tile that only elementwise ops carry to the store: what exp
// makes of the zeros past row 4095 stays past it, where the ragged store
// drops it, so the exp is loaded into the kernel (it stayed a launch of
// its own: sin, exp and cos were refused at any ragged shape).
// CHECK-LABEL: func.func @exp_cos_ragged_rows(
// CHECK-NOT: kernel.exp
// CHECK: block.load %{{.*}} imap <x = 0> : tensor<4095x7xf32> -> tensor<16x7xf32>
// CHECK: thread.unary exp
// CHECK: thread.unary cos
func.func @exp_cos_ragged_rows(%x: tensor<4095x7xf32>) -> tensor<4095x7xf32> {
  %e = kernel.exp %x : tensor<4095x7xf32>
  %c = kernel.custom(%e) grid <256, 1, 1> block <128, 1, 1> : (tensor<4095x7xf32>) -> tensor<4095x7xf32> {
  ^bb0(%in0: tensor<4095x7xf32>, %out0: tensor<4095x7xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<16x7xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<4095x7xf32> -> tensor<16x7xf32>
      %g = thread.graph(%t) : (tensor<16x7xf32>) -> tensor<16x7xf32> {
      ^bb0(%a: f32):
        %y = thread.unary cos %a : f32
        thread.yield %y : f32
      }
      block.yield %g : tensor<16x7xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<16x7xf32> into tensor<4095x7xf32>
    block.return
  }
  return %c : tensor<4095x7xf32>
}

// -----

// CHECK-LABEL: func.func @relu_sum(
// CHECK-NOT: kernel.relu
// CHECK: block.load %{{.*}} imap <x = 0> fmap 1 : tensor<64x1025xf32> -> tensor<1x1024xf32>
// CHECK: thread.unary relu
func.func @relu_sum(%x: tensor<64x1025xf32>) -> tensor<64x1xf32> {
  %e = kernel.relu %x : tensor<64x1025xf32>
  %s = kernel.custom (%e) grid <64, 1, 1> block <128, 1, 1> : (tensor<64x1025xf32>) -> tensor<64x1xf32> {
  ^bb0(%in0: tensor<64x1025xf32>, %out0: tensor<64x1xf32>):
    %acc = block.for_loop 2 iterations accumulate (sum) : tensor<1x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<64x1025xf32> -> tensor<1x1024xf32>
      %r = block.reduce_sum %t dim 1 : tensor<1x1024xf32>
      block.yield %r : tensor<1x1xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<1x1xf32> into tensor<64x1xf32>
    block.return
  }
  return %s : tensor<64x1xf32>
}

// -----

// K^T read by two kernels, one of K's column norms and the matmul of the
// queries with K^T (cosine similarities, as --superoptimize leaves them):
// each kernel loads K as stored and transposes its tiles, and the
// transpose's launch goes (2 launches, 3 before).
// CHECK-LABEL: func.func @transpose_read_by_two_kernels(
// CHECK-SAME: %[[Q:.*]]: tensor<64x128xf16>, %[[K:.*]]: tensor<1024x128xf16>)
// CHECK-NOT: kernel.transpose
// CHECK: %[[N:.*]] = kernel.custom(%[[K]])
// CHECK: block.load %{{.*}} imap <x = 0> : tensor<1024x128xf16> -> tensor<4x128xf32>
// CHECK-NEXT: block.transpose %{{.*}} [1, 0] : tensor<4x128xf32>
// CHECK: kernel.custom(%[[Q]], %[[K]], %[[N]])
// CHECK: %[[T:.*]] = block.load %{{.*}} imap <y = 0> : tensor<1024x128xf16> -> tensor<16x128xf16>
// CHECK-NEXT: %[[TT:.*]] = block.transpose %[[T]] [1, 0] : tensor<16x128xf16>
// CHECK: block.matmul %{{.*}}, %[[TT]]
// CHECK-NOT: kernel.transpose
// CHECK: return
func.func @transpose_read_by_two_kernels(%arg0: tensor<64x128xf16>, %arg1: tensor<1024x128xf16>) -> tensor<64x1024xf16> {
  %0 = kernel.transpose %arg1 [1, 0] : tensor<1024x128xf16>
  %1 = kernel.custom(%0) grid <256, 1, 1> block <128, 1, 1> : (tensor<128x1024xf16>) -> tensor<1x1024xf16> {
  ^bb0(%in0: tensor<128x1024xf16>, %out0: tensor<1x1024xf16>):
    %3 = block.for_loop 1 iterations accumulate (sum) : tensor<1x4xf32> {
      %5 = block.load %in0 imap <x = 1> : tensor<128x1024xf16> -> tensor<128x4xf32>
      %6 = thread.graph(%5) : (tensor<128x4xf32>) -> tensor<128x4xf32> {
      ^bb0(%arg2: f32):
        %8 = thread.unary square %arg2 : f32
        thread.yield %8 : f32
      }
      %7 = block.reduce_sum %6 dim 0 : tensor<128x4xf32>
      block.yield %7 : tensor<1x4xf32>
    }
    %4 = thread.graph(%3) : (tensor<1x4xf32>) -> tensor<1x4xf32> {
    ^bb0(%arg2: f32):
      %5 = thread.unary rsqrt %arg2 : f32
      thread.yield %5 : f32
    }
    block.store %4, %out0 omap <x = 1> : tensor<1x4xf32> into tensor<1x1024xf16>
    block.return
  }
  %2 = kernel.custom(%arg0, %0, %1) grid <16, 64, 1> block <128, 1, 1> : (tensor<64x128xf16>, tensor<128x1024xf16>, tensor<1x1024xf16>) -> tensor<64x1024xf16> {
  ^bb0(%in0: tensor<64x128xf16>, %in1: tensor<128x1024xf16>, %in2: tensor<1x1024xf16>, %out0: tensor<64x1024xf16>):
    %3 = block.for_loop 1 iterations accumulate (sum) : tensor<4x16xf32> {
      %4 = block.load %in0 imap <x = 0> : tensor<64x128xf16> -> tensor<4x128xf32>
      %5 = thread.graph(%4) : (tensor<4x128xf32>) -> tensor<4x128xf32> {
      ^bb0(%arg2: f32):
        %12 = thread.unary square %arg2 : f32
        thread.yield %12 : f32
      }
      %6 = block.load %in0 imap <x = 0> : tensor<64x128xf16> -> tensor<4x128xf16>
      %7 = block.load %in1 imap <y = 1> : tensor<128x1024xf16> -> tensor<128x16xf16>
      %8 = block.load %in2 imap <y = 1> : tensor<1x1024xf16> -> tensor<1x16xf32>
      %9 = block.reduce_sum %5 dim 1 : tensor<4x128xf32>
      %10 = block.matmul %6, %7 : tensor<4x128xf16>, tensor<128x16xf16> -> tensor<4x16xf32>
      %11 = thread.graph(%9, %8, %10) : (tensor<4x1xf32>, tensor<1x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32> {
      ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
        %12 = thread.unary rsqrt %arg2 : f32
        %13 = thread.binary mul %arg3, %arg4 : f32
        %14 = thread.binary mul %12, %13 : f32
        thread.yield %14 : f32
      }
      block.yield %11 : tensor<4x16xf32>
    }
    block.store %3, %out0 omap <x = 0, y = 1> : tensor<4x16xf32> into tensor<64x1024xf16>
    block.return
  }
  return %2 : tensor<64x1024xf16>
}

// -----

// The same K^T also returned: the transpose stays, and so do its readers.
// CHECK-LABEL: func.func @transpose_also_returned(
// CHECK: %[[T:.*]] = kernel.transpose
// CHECK: kernel.custom(%[[T]])
// CHECK: return %[[T]]
func.func @transpose_also_returned(%k: tensor<1024x128xf16>) -> (tensor<128x1024xf16>, tensor<1x1024xf16>) {
  %0 = kernel.transpose %k [1, 0] : tensor<1024x128xf16>
  %1 = kernel.custom(%0) grid <256, 1, 1> block <128, 1, 1> : (tensor<128x1024xf16>) -> tensor<1x1024xf16> {
  ^bb0(%in0: tensor<128x1024xf16>, %out0: tensor<1x1024xf16>):
    %3 = block.for_loop 1 iterations accumulate (sum) : tensor<1x4xf32> {
      %5 = block.load %in0 imap <x = 1> : tensor<128x1024xf16> -> tensor<128x4xf32>
      %7 = block.reduce_sum %5 dim 0 : tensor<128x4xf32>
      block.yield %7 : tensor<1x4xf32>
    }
    block.store %3, %out0 omap <x = 1> : tensor<1x4xf32> into tensor<1x1024xf16>
    block.return
  }
  return %0, %1 : tensor<128x1024xf16>, tensor<1x1024xf16>
}

// -----

// A causal mask built as a tensor of its own (Hugging Face's: a
// triangle_fill of zeros with -inf), added to the scores by the kernel
// that reads it at full rank through a unit-dim expand_shape: the expand
// moves above the fill, the fill's dims with it, and the kernel computes
// the mask on the constant's tiles instead of a launch writing it.
// CHECK-LABEL: func.func @mask_tensor_through_expand(
// CHECK-NOT: kernel.triangle_fill
// CHECK: %[[C:.*]] = arith.constant dense<0.000000e+00> : tensor<1x32x32xf32>
// CHECK-NOT: kernel.triangle_fill
// CHECK: kernel.custom(%arg0, %[[C]])
// CHECK: %[[M:.*]] = block.load %{{.*}} imap <y = 1> : tensor<1x32x32xf32> -> tensor<1x1x32xf32>
// CHECK: block.triangle_fill %[[M]] dims [1, 2] diagonal 1 value 0xFFF0000000000000 imap <y = 1> : tensor<1x1x32xf32>
// CHECK-NOT: kernel.triangle_fill
// CHECK: return
func.func @mask_tensor_through_expand(%s: tensor<2x32x32xf32>) -> tensor<2x32x32xf32> {
  %cst = arith.constant dense<0.0> : tensor<32x32xf32>
  %m = kernel.triangle_fill %cst dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<32x32xf32>
  %e = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 32, 32] : tensor<32x32xf32> into tensor<1x32x32xf32>
  %o = kernel.custom(%s, %e) grid <2, 32, 1> block <128, 1, 1> : (tensor<2x32x32xf32>, tensor<1x32x32xf32>) -> tensor<2x32x32xf32> {
  ^bb0(%in0: tensor<2x32x32xf32>, %in1: tensor<1x32x32xf32>, %out0: tensor<2x32x32xf32>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<1x1x32xf32> {
      %x = block.load %in0 imap <x = 0, y = 1> : tensor<2x32x32xf32> -> tensor<1x1x32xf32>
      %k = block.load %in1 imap <y = 1> : tensor<1x32x32xf32> -> tensor<1x1x32xf32>
      %y = block.add %x, %k : tensor<1x1x32xf32>, tensor<1x1x32xf32>
      block.yield %y : tensor<1x1x32xf32>
    }
    block.store %a, %out0 omap <x = 0, y = 1> : tensor<1x1x32xf32> into tensor<2x32x32xf32>
    block.return
  }
  return %o : tensor<2x32x32xf32>
}

// -----

// A conversion read by two custom kernels, one of them through a unit-dim
// expand (a masked mean pooling's count and masked sum): the expand reads a
// copy of the conversion moved above it, and each kernel then loads the
// integers and converts them itself; no launch converts the mask.
// CHECK-LABEL: func.func @conversion_read_twice(
// CHECK-NOT: kernel.int_to_float
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{.*}} into tensor<4x16x1xi64>
// CHECK: kernel.custom(%arg1, %arg0, %[[E]])
// CHECK-COUNT-2: thread.int_to_float %{{.*}} : i64 to f32
// CHECK-NOT: kernel.int_to_float
// CHECK: return
func.func @conversion_read_twice(%x: tensor<4x16x64xf32>, %m: tensor<4x16xi64>) -> (tensor<4x1xf32>, tensor<4x16x64xf32>) {
  %f = kernel.int_to_float %m : tensor<4x16xi64> to tensor<4x16xf32>
  %c = kernel.custom(%f) grid <4, 1, 1> block <128, 1, 1> : (tensor<4x16xf32>) -> tensor<4x1xf32> {
  ^bb0(%in0: tensor<4x16xf32>, %out0: tensor<4x1xf32>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<1x1xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<4x16xf32> -> tensor<1x16xf32>
      %s = block.reduce_sum %t dim 1 : tensor<1x16xf32>
      block.yield %s : tensor<1x1xf32>
    }
    block.store %a, %out0 omap <x = 0> : tensor<1x1xf32> into tensor<4x1xf32>
    block.return
  }
  %e = tensor.expand_shape %f [[0], [1, 2]] output_shape [4, 16, 1] : tensor<4x16xf32> into tensor<4x16x1xf32>
  %p = kernel.custom(%x, %e) grid <4, 1, 1> block <128, 1, 1> : (tensor<4x16x64xf32>, tensor<4x16x1xf32>) -> tensor<4x16x64xf32> {
  ^bb0(%in0: tensor<4x16x64xf32>, %in1: tensor<4x16x1xf32>, %out0: tensor<4x16x64xf32>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<1x16x64xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<4x16x64xf32> -> tensor<1x16x64xf32>
      %k = block.load %in1 imap <x = 0> : tensor<4x16x1xf32> -> tensor<1x16x1xf32>
      %y = block.mul %t, %k : tensor<1x16x64xf32>, tensor<1x16x1xf32>
      block.yield %y : tensor<1x16x64xf32>
    }
    block.store %a, %out0 omap <x = 0> : tensor<1x16x64xf32> into tensor<4x16x64xf32>
    block.return
  }
  return %c, %p : tensor<4x1xf32>, tensor<4x16x64xf32>
}

// -----

// The same conversion also returned: it stays for the return, and the
// kernels read it as before.
// CHECK-LABEL: func.func @conversion_also_returned(
// CHECK: %[[F:.*]] = kernel.int_to_float %arg1
// CHECK: %[[E:.*]] = tensor.expand_shape %[[F]]
// CHECK: kernel.custom(%[[F]], %arg0, %[[E]])
// CHECK-NOT: thread.int_to_float
// CHECK: return
func.func @conversion_also_returned(%x: tensor<4x16x64xf32>, %m: tensor<4x16xi64>) -> (tensor<4x1xf32>, tensor<4x16x64xf32>, tensor<4x16xf32>) {
  %f = kernel.int_to_float %m : tensor<4x16xi64> to tensor<4x16xf32>
  %c = kernel.custom(%f) grid <4, 1, 1> block <128, 1, 1> : (tensor<4x16xf32>) -> tensor<4x1xf32> {
  ^bb0(%in0: tensor<4x16xf32>, %out0: tensor<4x1xf32>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<1x1xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<4x16xf32> -> tensor<1x16xf32>
      %s = block.reduce_sum %t dim 1 : tensor<1x16xf32>
      block.yield %s : tensor<1x1xf32>
    }
    block.store %a, %out0 omap <x = 0> : tensor<1x1xf32> into tensor<4x1xf32>
    block.return
  }
  %e = tensor.expand_shape %f [[0], [1, 2]] output_shape [4, 16, 1] : tensor<4x16xf32> into tensor<4x16x1xf32>
  %p = kernel.custom(%x, %e) grid <4, 1, 1> block <128, 1, 1> : (tensor<4x16x64xf32>, tensor<4x16x1xf32>) -> tensor<4x16x64xf32> {
  ^bb0(%in0: tensor<4x16x64xf32>, %in1: tensor<4x16x1xf32>, %out0: tensor<4x16x64xf32>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<1x16x64xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<4x16x64xf32> -> tensor<1x16x64xf32>
      %k = block.load %in1 imap <x = 0> : tensor<4x16x1xf32> -> tensor<1x16x1xf32>
      %y = block.mul %t, %k : tensor<1x16x64xf32>, tensor<1x16x1xf32>
      block.yield %y : tensor<1x16x64xf32>
    }
    block.store %a, %out0 omap <x = 0> : tensor<1x16x64xf32> into tensor<4x16x64xf32>
    block.return
  }
  return %c, %p, %f : tensor<4x1xf32>, tensor<4x16x64xf32>, tensor<4x16xf32>
}
