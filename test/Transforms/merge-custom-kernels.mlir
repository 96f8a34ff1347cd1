// Custom kernels with the same launch merge into one where the cost model
// finds one launch faster (part of --fuse-kernel-elementwise and of
// --superoptimize after it replaced the subprograms).
// RUN: mlsopt-opt %s --fuse-kernel-elementwise --split-input-file | FileCheck %s

// Siblings reading the same input, each in a loop of one iteration: one
// loop, which loads the shared tile once and yields both results.
// CHECK-LABEL: func.func @siblings(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64x256xf32>, %[[Y:[^:]*]]: tensor<64x256xf32>
// CHECK: %[[K:.*]]:2 = kernel.custom(%[[X]], %[[Y]]) grid <16, 1, 1> block <128, 1, 1>
// CHECK-NEXT: ^bb0(%[[IN0:[^:]*]]: {{.*}}, %[[IN1:[^:]*]]: {{.*}}, %[[OUT0:[^:]*]]: {{.*}}, %[[OUT1:[^:]*]]: {{.*}}):
// CHECK-NEXT: %[[R:.*]]:2 = block.for_loop 1 iterations accumulate (sum, sum)
// CHECK-NEXT: %[[T:.*]] = block.load %[[IN0]]
// CHECK-NOT: block.load %[[IN0]]
// CHECK: block.load %[[IN1]]
// CHECK-NOT: block.load
// CHECK: block.store %[[R]]#0, %[[OUT0]]
// CHECK-NEXT: block.store %[[R]]#1, %[[OUT1]]
// CHECK-NOT: kernel.
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @siblings(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %0 = kernel.custom(%x) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%in0: tensor<64x256xf32>, %out0: tensor<64x256xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<4x256xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x256xf32> -> tensor<4x256xf32>
      %3 = block.exp %2 : tensor<4x256xf32>
      block.yield %3 : tensor<4x256xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<4x256xf32> into tensor<64x256xf32>
    block.return
  }
  %4 = kernel.custom(%x, %y) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%in0: tensor<64x256xf32>, %in1: tensor<64x256xf32>, %out0: tensor<64x256xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<4x256xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x256xf32> -> tensor<4x256xf32>
      %3 = block.load %in1 imap <x = 0> : tensor<64x256xf32> -> tensor<4x256xf32>
      %5 = block.mul %2, %3 : tensor<4x256xf32>, tensor<4x256xf32>
      block.yield %5 : tensor<4x256xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<4x256xf32> into tensor<64x256xf32>
    block.return
  }
  return %0, %4 : tensor<64x256xf32>, tensor<64x256xf32>
}

// -----

// A producer and its consumer, the consumer loading the producer's output
// as the producer stores it: in one loop, the consumer reads the value the
// producer computes there, including the scaling the producer does after
// its loop (computed again, in the loop, on the yielded row sums). The
// mean nothing else reads is no longer stored.
// CHECK-LABEL: func.func @producer_consumer(
// CHECK: %[[K:.*]]:2 = kernel.custom(
// CHECK-SAME: -> (tensor<64x1xf32>, tensor<64x512xf32>)
// CHECK: %[[R:.*]]:2 = block.for_loop 1 iterations accumulate (sum, sum)
// CHECK-NEXT: %[[T:.*]] = block.load
// CHECK-NEXT: %[[S:.*]] = block.reduce_sum %[[T]] dim 1
// CHECK-NEXT: %[[G:.*]] = thread.graph(%[[S]], %[[T]])
// CHECK-NEXT: ^bb0(%[[SE:[^:]*]]: f32, %[[TE:[^:]*]]: f32):
// CHECK-NEXT: %[[M:.*]] = thread.mul_scalar %[[SE]], 0.001953125
// CHECK-NEXT: thread.binary sub %[[TE]], %[[M]]
// CHECK-NOT: block.load
// CHECK: block.yield %[[S]], %[[G]]
// CHECK: block.store %[[R]]#0
// CHECK-NEXT: block.store %[[R]]#1
// CHECK-NEXT: block.return
// CHECK-NOT: kernel.
// CHECK: return %[[K]]#1, %[[K]]#0
func.func @producer_consumer(%x: tensor<64x512xf32>) -> (tensor<64x512xf32>, tensor<64x1xf32>) {
  %0:2 = kernel.custom(%x) grid <64, 1, 1> block <128, 1, 1> : (tensor<64x512xf32>) -> (tensor<64x1xf32>, tensor<64x1xf32>) {
  ^bb0(%in0: tensor<64x512xf32>, %out0: tensor<64x1xf32>, %out1: tensor<64x1xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x1xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x512xf32> -> tensor<1x512xf32>
      %3 = block.reduce_sum %2 dim 1 : tensor<1x512xf32>
      block.yield %3 : tensor<1x1xf32>
    }
    %4 = block.mul_scalar %1, 1.953125e-03 : tensor<1x1xf32>
    block.store %1, %out0 omap <x = 0> : tensor<1x1xf32> into tensor<64x1xf32>
    block.store %4, %out1 omap <x = 0> : tensor<1x1xf32> into tensor<64x1xf32>
    block.return
  }
  %5 = kernel.custom(%x, %0#1) grid <64, 1, 1> block <128, 1, 1> : (tensor<64x512xf32>, tensor<64x1xf32>) -> tensor<64x512xf32> {
  ^bb0(%in0: tensor<64x512xf32>, %in1: tensor<64x1xf32>, %out0: tensor<64x512xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x512xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x512xf32> -> tensor<1x512xf32>
      %3 = block.load %in1 imap <x = 0> : tensor<64x1xf32> -> tensor<1x1xf32>
      %4 = block.sub %2, %3 : tensor<1x512xf32>, tensor<1x1xf32>
      block.yield %4 : tensor<1x512xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x512xf32> into tensor<64x512xf32>
    block.return
  }
  return %5, %0#0 : tensor<64x512xf32>, tensor<64x1xf32>
}

// -----

// A matmul kernel whose loop walks k, and a consumer of one iteration that
// adds a bias to its output: the consumer's body runs after the loop, on
// the tile the matmul stores, and loads only the bias.
// CHECK-LABEL: func.func @matmul_then_bias(
// CHECK: kernel.custom
// CHECK-SAME: -> (tensor<128x256xf16>, tensor<128x256xf16>)
// CHECK: %[[ACC:.*]] = block.for_loop 8 iterations accumulate (sum)
// CHECK: block.matmul
// CHECK: block.yield
// CHECK: block.store %[[ACC]]
// CHECK-NEXT: %[[B:.*]] = block.load %{{.*}} imap <y = 1> : tensor<1x256xf16> -> tensor<1x64xf16>
// CHECK-NEXT: %[[SUM:.*]] = thread.graph(%[[ACC]], %[[B]])
// CHECK: thread.binary add
// CHECK: block.store %[[SUM]]
// CHECK-NOT: kernel.
// CHECK: return
func.func @matmul_then_bias(%a: tensor<128x512xf16>, %w: tensor<512x256xf16>, %bias: tensor<1x256xf16>) -> (tensor<128x256xf16>, tensor<128x256xf16>) {
  %0 = kernel.custom(%a, %w) grid <2, 4, 1> block <128, 1, 1> : (tensor<128x512xf16>, tensor<512x256xf16>) -> tensor<128x256xf16> {
  ^bb0(%in0: tensor<128x512xf16>, %in1: tensor<512x256xf16>, %out0: tensor<128x256xf16>):
    %1 = block.for_loop 8 iterations accumulate (sum) : tensor<64x64xf16> {
      %2 = block.load %in0 imap <x = 0> fmap 1 : tensor<128x512xf16> -> tensor<64x64xf16>
      %3 = block.load %in1 imap <y = 1> fmap 0 : tensor<512x256xf16> -> tensor<64x64xf16>
      %4 = block.matmul %2, %3 : tensor<64x64xf16>, tensor<64x64xf16>
      block.yield %4 : tensor<64x64xf16>
    }
    block.store %1, %out0 omap <x = 0, y = 1> : tensor<64x64xf16> into tensor<128x256xf16>
    block.return
  }
  %5 = kernel.custom(%0, %bias) grid <2, 4, 1> block <128, 1, 1> : (tensor<128x256xf16>, tensor<1x256xf16>) -> tensor<128x256xf16> {
  ^bb0(%in0: tensor<128x256xf16>, %in1: tensor<1x256xf16>, %out0: tensor<128x256xf16>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<64x64xf16> {
      %2 = block.load %in0 imap <x = 0, y = 1> : tensor<128x256xf16> -> tensor<64x64xf16>
      %3 = block.load %in1 imap <y = 1> : tensor<1x256xf16> -> tensor<1x64xf16>
      %4 = block.add %2, %3 : tensor<64x64xf16>, tensor<1x64xf16>
      block.yield %4 : tensor<64x64xf16>
    }
    block.store %1, %out0 omap <x = 0, y = 1> : tensor<64x64xf16> into tensor<128x256xf16>
    block.return
  }
  return %0, %5 : tensor<128x256xf16>, tensor<128x256xf16>
}

// -----

// An elementwise kernel op beside a kernel that loads its operand: the
// kernel computes the op too, on the tile it loads already.
// CHECK-LABEL: func.func @op_beside_kernel(
// CHECK: %[[K:.*]]:2 = kernel.custom(%{{[^,]*}}) grid
// CHECK: block.load
// CHECK-NOT: block.load
// CHECK: thread.unary exp
// CHECK-NOT: kernel.
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @op_beside_kernel(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %0 = kernel.custom(%x) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%in0: tensor<64x256xf32>, %out0: tensor<64x256xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<4x256xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x256xf32> -> tensor<4x256xf32>
      %3 = block.silu %2 : tensor<4x256xf32>
      block.yield %3 : tensor<4x256xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<4x256xf32> into tensor<64x256xf32>
    block.return
  }
  %e = kernel.exp %x : tensor<64x256xf32>
  return %0, %e : tensor<64x256xf32>, tensor<64x256xf32>
}

// -----

// A consumer that loads the producer's output cut otherwise (each block
// reads whole columns the producer's blocks store in pieces) needs the
// other blocks' tiles: the two stay.
// CHECK-LABEL: func.func @cut_otherwise(
// CHECK: kernel.custom
// CHECK: kernel.custom
// CHECK: return
func.func @cut_otherwise(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = kernel.custom(%x) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%in0: tensor<64x256xf32>, %out0: tensor<64x256xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<4x256xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x256xf32> -> tensor<4x256xf32>
      %3 = block.exp %2 : tensor<4x256xf32>
      block.yield %3 : tensor<4x256xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<4x256xf32> into tensor<64x256xf32>
    block.return
  }
  %4 = kernel.custom(%0) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%in0: tensor<64x256xf32>, %out0: tensor<64x256xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<64x16xf32> {
      %2 = block.load %in0 imap <x = 1> : tensor<64x256xf32> -> tensor<64x16xf32>
      %3 = block.reduce_sum %2 dim 0 : tensor<64x16xf32>
      %5 = block.sub %2, %3 : tensor<64x16xf32>, tensor<1x16xf32>
      block.yield %5 : tensor<64x16xf32>
    }
    block.store %1, %out0 omap <x = 1> : tensor<64x16xf32> into tensor<64x256xf32>
    block.return
  }
  return %4 : tensor<64x256xf32>
}

// -----

// A path from the first kernel to the second through another op (a matmul
// left to a library kernel): merged, the second would run before the op it
// reads. The two stay.
// CHECK-LABEL: func.func @path_through_other_op(
// CHECK: kernel.custom
// CHECK: kernel.matmul
// CHECK: kernel.custom
// CHECK: return
func.func @path_through_other_op(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = kernel.custom(%x) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%in0: tensor<64x64xf32>, %out0: tensor<64x64xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<4x64xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x64xf32> -> tensor<4x64xf32>
      %3 = block.exp %2 : tensor<4x64xf32>
      block.yield %3 : tensor<4x64xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<4x64xf32> into tensor<64x64xf32>
    block.return
  }
  %m = kernel.matmul %0, %0 : tensor<64x64xf32>, tensor<64x64xf32>
  %4 = kernel.custom(%x, %m) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%in0: tensor<64x64xf32>, %in1: tensor<64x64xf32>, %out0: tensor<64x64xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<4x64xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x64xf32> -> tensor<4x64xf32>
      %3 = block.load %in1 imap <x = 0> : tensor<64x64xf32> -> tensor<4x64xf32>
      %5 = block.add %2, %3 : tensor<4x64xf32>, tensor<4x64xf32>
      block.yield %5 : tensor<4x64xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<4x64xf32> into tensor<64x64xf32>
    block.return
  }
  return %4 : tensor<64x64xf32>
}

// -----

// A consumer that multiplies the producer's f16 output on the tensor cores
// (it loads f16 tiles) where the producer computes in f32 and rounds as it
// stores: in one loop, the consumer reads the producer's values rounded to
// f16, as storing and loading them did.
// CHECK-LABEL: func.func @rounded_for_matmul(
// CHECK: kernel.custom
// CHECK-SAME: -> (tensor<97x33xf16>, tensor<97x16xf16>)
// CHECK: block.for_loop 1 iterations accumulate (sum, sum)
// CHECK: %[[V:.*]]:2 = thread.graph
// CHECK: %[[E:.*]] = thread.unary exp
// CHECK-NEXT: %[[R:.*]] = thread.convert %[[E]] : f32 to f16
// CHECK-NEXT: thread.yield %[[E]], %[[R]]
// CHECK-NOT: block.load %in0
// CHECK: block.matmul %[[V]]#1,
// CHECK-NOT: kernel.
// CHECK: return
func.func @rounded_for_matmul(%x: tensor<97x33xf16>, %w: tensor<33x16xf16>) -> (tensor<97x33xf16>, tensor<97x16xf16>) {
  %0 = kernel.custom(%x) grid <97, 1, 1> block <128, 1, 1> : (tensor<97x33xf16>) -> tensor<97x33xf16> {
  ^bb0(%in0: tensor<97x33xf16>, %out0: tensor<97x33xf16>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x33xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<97x33xf16> -> tensor<1x33xf32>
      %3 = block.exp %2 : tensor<1x33xf32>
      block.yield %3 : tensor<1x33xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x33xf32> into tensor<97x33xf16>
    block.return
  }
  %4 = kernel.custom(%0, %w) grid <97, 1, 1> block <128, 1, 1> : (tensor<97x33xf16>, tensor<33x16xf16>) -> tensor<97x16xf16> {
  ^bb0(%in0: tensor<97x33xf16>, %in1: tensor<33x16xf16>, %out0: tensor<97x16xf16>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x16xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<97x33xf16> -> tensor<1x33xf16>
      %3 = block.load %in1 imap <> : tensor<33x16xf16> -> tensor<33x16xf16>
      %5 = block.matmul %2, %3 : tensor<1x33xf16>, tensor<33x16xf16> -> tensor<1x16xf32>
      block.yield %5 : tensor<1x16xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x16xf32> into tensor<97x16xf16>
    block.return
  }
  return %0, %4 : tensor<97x33xf16>, tensor<97x16xf16>
}

// -----

// An elementwise op before the kernel that loads its operand, whose
// result only the function returns: the kernel computes it too.
// CHECK-LABEL: func.func @op_before_kernel(
// CHECK: %[[K:.*]]:2 = kernel.custom(%{{[^,]*}}) grid
// CHECK: block.load
// CHECK-NOT: block.load
// CHECK: thread.unary exp
// CHECK-NOT: kernel.
// CHECK: return %[[K]]#1, %[[K]]#0
func.func @op_before_kernel(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %e = kernel.exp %x : tensor<64x256xf32>
  %0 = kernel.custom(%x) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%in0: tensor<64x256xf32>, %out0: tensor<64x256xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<4x256xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x256xf32> -> tensor<4x256xf32>
      %3 = block.silu %2 : tensor<4x256xf32>
      block.yield %3 : tensor<4x256xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<4x256xf32> into tensor<64x256xf32>
    block.return
  }
  return %e, %0 : tensor<64x256xf32>, tensor<64x256xf32>
}

// -----

// Two kernels with one launch that share nothing: one launch saved.
// CHECK-LABEL: func.func @unrelated(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64x256xf32>, %[[Y:[^:]*]]: tensor<64x256xf32>
// CHECK: %[[K:.*]]:2 = kernel.custom(%[[X]], %[[Y]])
// CHECK: block.for_loop 1 iterations accumulate (sum, sum)
// CHECK-NOT: kernel.
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @unrelated(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %0 = kernel.custom(%x) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%in0: tensor<64x256xf32>, %out0: tensor<64x256xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<4x256xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x256xf32> -> tensor<4x256xf32>
      %3 = block.exp %2 : tensor<4x256xf32>
      block.yield %3 : tensor<4x256xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<4x256xf32> into tensor<64x256xf32>
    block.return
  }
  %4 = kernel.custom(%y) grid <16, 1, 1> block <128, 1, 1> : (tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%in0: tensor<64x256xf32>, %out0: tensor<64x256xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<4x256xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<64x256xf32> -> tensor<4x256xf32>
      %3 = block.silu %2 : tensor<4x256xf32>
      block.yield %3 : tensor<4x256xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<4x256xf32> into tensor<64x256xf32>
    block.return
  }
  return %0, %4 : tensor<64x256xf32>, tensor<64x256xf32>
}
