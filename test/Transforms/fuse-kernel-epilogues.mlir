// RUN: mlsopt-opt %s --fuse-kernel-epilogues --split-input-file | FileCheck %s

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

// Operands from two kernels: the op stays a kernel of its own.
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
  %4 = kernel.custom(%x) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<2x64xf16> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf16> -> tensor<2x64xf16>
      %3 = block.silu %2 : tensor<2x64xf16>
      block.yield %3 : tensor<2x64xf16>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x64xf16> into tensor<8x64xf16>
    block.return
  }
  %o = kernel.add %0, %4 : tensor<8x64xf16>, tensor<8x64xf16>
  return %o : tensor<8x64xf16>
}

// -----

// An operand that is not a kernel output (a function argument): not fused,
// the kernel would have to read it.
// CHECK-LABEL: func.func @reads_an_argument(
// CHECK: kernel.custom
// CHECK: kernel.add
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
