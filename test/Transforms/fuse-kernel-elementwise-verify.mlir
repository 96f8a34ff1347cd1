// The fused kernels compute what the unfused programs do: each function is
// checked against a reference written with pre-defined kernel ops only
// (which the pass leaves alone) by the finite-field verifier.
// RUN: mlsopt-opt %s --fuse-kernel-elementwise | FileCheck %s --check-prefix=FUSED
// RUN: mlsopt-opt %s --fuse-kernel-elementwise | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s
// The CPU pipeline, the numerical oracle of the GPU code, takes them too.
// RUN: mlsopt-opt %s --fuse-kernel-elementwise --mlsopt-cpu-pipeline | FileCheck %s --check-prefix=CPU
// CPU: llvm.func @bias_then_sum(
// CPU: llvm.func @exp_then_chain(
// CPU: llvm.func @normed_scores(
// CPU: llvm.func @masked_row_sums(
// CPU: llvm.func @masked_scores(
// CPU: llvm.func @bias_after_a_loop(

// FUSED-LABEL: func.func @bias_then_sum(
// FUSED-NOT: kernel.add
// FUSED-LABEL: func.func private @bias_then_sum_reference(
// FUSED-LABEL: func.func @exp_then_chain(
// FUSED-NOT: kernel.silu
// FUSED-NOT: kernel.mul_scalar
// FUSED-LABEL: func.func private @exp_then_chain_reference(
// FUSED-LABEL: func.func @normed_scores(
// FUSED-NOT: kernel.rms_norm
// FUSED: block.rms_norm
// FUSED: block.rms_norm
// FUSED-LABEL: func.func private @normed_scores_reference(
// A causal mask before a kernel is computed on each loaded tile, placed as
// the load places it (the grid's rows, the loop's columns); after a kernel,
// on each stored tile, placed as the store places it.
// FUSED-LABEL: func.func @masked_row_sums(
// FUSED-NOT: kernel.triangle_fill
// FUSED: block.triangle_fill %{{.*}} dims [0, 1] diagonal 1 value 0xFFF0000000000000 imap <x = 0> fmap 1 : tensor<2x32xf32>
// FUSED-LABEL: func.func private @masked_row_sums_reference(
// FUSED-LABEL: func.func @masked_scores(
// FUSED-NOT: kernel.triangle_fill
// FUSED: block.triangle_fill %{{.*}} dims [1, 2] diagonal 3 value -1.000000e+04 imap <x = 0, y = 1> : tensor<1x8x32xf32>
// FUSED-LABEL: func.func private @masked_scores_reference(
// A bias after a loop of 4 iterations is loaded after it.
// FUSED-LABEL: func.func @bias_after_a_loop(
// FUSED-NOT: kernel.add
// FUSED: block.yield
// FUSED: block.load %{{.*}} imap <> : tensor<1x64xf32> -> tensor<1x64xf32>
// FUSED-LABEL: func.func private @bias_after_a_loop_reference(

// CHECK: remark: @bias_then_sum is equivalent to @bias_then_sum_reference
// CHECK: remark: @exp_then_chain is equivalent to @exp_then_chain_reference
// CHECK: remark: @normed_scores is equivalent to @normed_scores_reference
// CHECK: remark: @masked_row_sums is equivalent to @masked_row_sums_reference
// CHECK: remark: @masked_scores is equivalent to @masked_scores_reference
// CHECK: remark: @bias_after_a_loop is equivalent to @bias_after_a_loop_reference

func.func @bias_then_sum(%x: tensor<8x64xf32>, %b: tensor<1x64xf32>) -> tensor<8x1xf32> attributes {mlsopt.equivalent_to = @bias_then_sum_reference} {
  %xb = kernel.add %x, %b : tensor<8x64xf32>, tensor<1x64xf32>
  %0 = kernel.custom(%xb) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x1xf32>):
    %1 = block.for_loop 2 iterations accumulate (sum) : tensor<2x1xf32> {
      %2 = block.load %in0 imap <x = 0> fmap 1 : tensor<8x64xf32> -> tensor<2x32xf32>
      %3 = block.reduce_sum %2 dim 1 : tensor<2x32xf32>
      block.yield %3 : tensor<2x1xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x1xf32> into tensor<8x1xf32>
    block.return
  }
  return %0 : tensor<8x1xf32>
}

func.func private @bias_then_sum_reference(%x: tensor<8x64xf32>, %b: tensor<1x64xf32>) -> tensor<8x1xf32> {
  %xb = kernel.add %x, %b : tensor<8x64xf32>, tensor<1x64xf32>
  %s = kernel.reduce_sum %xb dim 1 : tensor<8x64xf32>
  return %s : tensor<8x1xf32>
}

func.func @exp_then_chain(%x: tensor<8x64xf32>, %y: tensor<8x1xf32>) -> tensor<8x64xf32> attributes {mlsopt.equivalent_to = @exp_then_chain_reference} {
  %0:2 = kernel.custom(%x, %y) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>, tensor<8x1xf32>) -> (tensor<8x64xf32>, tensor<8x1xf32>) {
  ^bb0(%in0: tensor<8x64xf32>, %in1: tensor<8x1xf32>, %out0: tensor<8x64xf32>, %out1: tensor<8x1xf32>):
    %1:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<2x64xf32>, tensor<2x1xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<8x64xf32> -> tensor<2x64xf32>
      %3 = block.load %in1 imap <x = 0> : tensor<8x1xf32> -> tensor<2x1xf32>
      %4 = block.exp %2 : tensor<2x64xf32>
      block.yield %4, %3 : tensor<2x64xf32>, tensor<2x1xf32>
    }
    block.store %1#0, %out0 omap <x = 0> : tensor<2x64xf32> into tensor<8x64xf32>
    block.store %1#1, %out1 omap <x = 0> : tensor<2x1xf32> into tensor<8x1xf32>
    block.return
  }
  %d = kernel.div %0#0, %0#1 : tensor<8x64xf32>, tensor<8x1xf32>
  %a = kernel.silu %d : tensor<8x64xf32>
  %h = kernel.mul_scalar %a, 5.000000e-01 : tensor<8x64xf32>
  return %h : tensor<8x64xf32>
}

func.func private @exp_then_chain_reference(%x: tensor<8x64xf32>, %y: tensor<8x1xf32>) -> tensor<8x64xf32> {
  %e = kernel.exp %x : tensor<8x64xf32>
  %d = kernel.div %e, %y : tensor<8x64xf32>, tensor<8x1xf32>
  %a = kernel.silu %d : tensor<8x64xf32>
  %h = kernel.mul_scalar %a, 5.000000e-01 : tensor<8x64xf32>
  return %h : tensor<8x64xf32>
}

// Row sums of exp(rms_norm(Q) rms_norm(K)), K normalized over dim 1: the
// norms run on the kernel's Q and K tiles, which span the head dim.
func.func @normed_scores(%q: tensor<2x16x64xf32>, %k: tensor<2x64x32xf32>) -> tensor<2x16x1xf32> attributes {mlsopt.equivalent_to = @normed_scores_reference} {
  %qn = kernel.rms_norm %q {epsilon = 1.0e-06 : f64} : tensor<2x16x64xf32>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x64x32xf32>
  %0 = kernel.custom(%qn, %kn) grid <2, 1, 1> block <128, 1, 1> : (tensor<2x16x64xf32>, tensor<2x64x32xf32>) -> tensor<2x16x1xf32> {
  ^bb0(%in0: tensor<2x16x64xf32>, %in1: tensor<2x64x32xf32>, %out0: tensor<2x16x1xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x16x1xf32> {
      %2 = block.load %in0 imap <x = 0> : tensor<2x16x64xf32> -> tensor<1x16x64xf32>
      %3 = block.load %in1 imap <x = 0> : tensor<2x64x32xf32> -> tensor<1x64x32xf32>
      %4 = block.matmul %2, %3 : tensor<1x16x64xf32>, tensor<1x64x32xf32>
      %5 = block.exp %4 : tensor<1x16x32xf32>
      %6 = block.reduce_sum %5 dim 2 : tensor<1x16x32xf32>
      block.yield %6 : tensor<1x16x1xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<1x16x1xf32> into tensor<2x16x1xf32>
    block.return
  }
  return %0 : tensor<2x16x1xf32>
}

func.func private @normed_scores_reference(%q: tensor<2x16x64xf32>, %k: tensor<2x64x32xf32>) -> tensor<2x16x1xf32> {
  %qn = kernel.rms_norm %q {epsilon = 1.0e-06 : f64} : tensor<2x16x64xf32>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x64x32xf32>
  %s = kernel.matmul %qn, %kn : tensor<2x16x64xf32>, tensor<2x64x32xf32>
  %e = kernel.exp %s : tensor<2x16x32xf32>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x16x32xf32>
  return %l : tensor<2x16x1xf32>
}

func.func @masked_row_sums(%x: tensor<8x64xf32>) -> tensor<8x1xf32> attributes {mlsopt.equivalent_to = @masked_row_sums_reference} {
  %m = kernel.triangle_fill %x dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<8x64xf32>
  %0 = kernel.custom(%m) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x1xf32>):
    %1 = block.for_loop 2 iterations accumulate (sum) : tensor<2x1xf32> {
      %2 = block.load %in0 imap <x = 0> fmap 1 : tensor<8x64xf32> -> tensor<2x32xf32>
      %3 = block.exp %2 : tensor<2x32xf32>
      %4 = block.reduce_sum %3 dim 1 : tensor<2x32xf32>
      block.yield %4 : tensor<2x1xf32>
    }
    block.store %1, %out0 omap <x = 0> : tensor<2x1xf32> into tensor<8x1xf32>
    block.return
  }
  return %0 : tensor<8x1xf32>
}

func.func private @masked_row_sums_reference(%x: tensor<8x64xf32>) -> tensor<8x1xf32> {
  %m = kernel.triangle_fill %x dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<8x64xf32>
  %e = kernel.exp %m : tensor<8x64xf32>
  %s = kernel.reduce_sum %e dim 1 : tensor<8x64xf32>
  return %s : tensor<8x1xf32>
}

func.func @masked_scores(%q: tensor<2x16x64xf32>, %k: tensor<2x64x32xf32>) -> tensor<2x16x32xf32> attributes {mlsopt.equivalent_to = @masked_scores_reference} {
  %0 = kernel.custom(%q, %k) grid <2, 2, 1> block <128, 1, 1> : (tensor<2x16x64xf32>, tensor<2x64x32xf32>) -> tensor<2x16x32xf32> {
  ^bb0(%in0: tensor<2x16x64xf32>, %in1: tensor<2x64x32xf32>, %out0: tensor<2x16x32xf32>):
    %1 = block.for_loop 2 iterations accumulate (sum) : tensor<1x8x32xf32> {
      %2 = block.load %in0 imap <x = 0, y = 1> fmap 2 : tensor<2x16x64xf32> -> tensor<1x8x32xf32>
      %3 = block.load %in1 imap <x = 0> fmap 1 : tensor<2x64x32xf32> -> tensor<1x32x32xf32>
      %4 = block.matmul %2, %3 : tensor<1x8x32xf32>, tensor<1x32x32xf32>
      block.yield %4 : tensor<1x8x32xf32>
    }
    block.store %1, %out0 omap <x = 0, y = 1> : tensor<1x8x32xf32> into tensor<2x16x32xf32>
    block.return
  }
  %m = kernel.triangle_fill %0 dims [1, 2] diagonal 3 value -1.0e4 : tensor<2x16x32xf32>
  return %m : tensor<2x16x32xf32>
}

func.func private @masked_scores_reference(%q: tensor<2x16x64xf32>, %k: tensor<2x64x32xf32>) -> tensor<2x16x32xf32> {
  %s = kernel.matmul %q, %k : tensor<2x16x64xf32>, tensor<2x64x32xf32>
  %m = kernel.triangle_fill %s dims [1, 2] diagonal 3 value -1.0e4 : tensor<2x16x32xf32>
  return %m : tensor<2x16x32xf32>
}

func.func @bias_after_a_loop(%x: tensor<64x256xf32>, %w: tensor<256x64xf32>, %b: tensor<1x64xf32>) -> tensor<64x64xf32> attributes {mlsopt.equivalent_to = @bias_after_a_loop_reference} {
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

func.func private @bias_after_a_loop_reference(%x: tensor<64x256xf32>, %w: tensor<256x64xf32>, %b: tensor<1x64xf32>) -> tensor<64x64xf32> {
  %m = kernel.matmul %x, %w : tensor<64x256xf32>, tensor<256x64xf32>
  %1 = kernel.add %m, %b : tensor<64x64xf32>, tensor<1x64xf32>
  return %1 : tensor<64x64xf32>
}
