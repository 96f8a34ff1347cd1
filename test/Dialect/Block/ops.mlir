// RUN: mlsopt-opt %s | mlsopt-opt | FileCheck %s
// RUN: mlsopt-opt %s --mlir-print-op-generic | mlsopt-opt | FileCheck %s

// Round-trip tests of every block op. The inferred type of a compute op is
// checked where a later op spells it out (a use, block.yield, block.store).

// A plain GEMM: load without fmap (the same tile every iteration) and with
// fmap, imap `<>` and `<x = 1>`, one sum accumulator.
// CHECK-LABEL: func.func @matmul_sum
func.func @matmul_sum(%x: tensor<8x4096xf16>, %w: tensor<4096x6144xf16>,
                      %b: tensor<1x64xf16>) -> tensor<8x6144xf16> {
  // CHECK: kernel.custom(%{{.*}}, %{{.*}}, %{{.*}}) grid <96, 1, 1> block <128, 1, 1>
  // CHECK-SAME: : (tensor<8x4096xf16>, tensor<4096x6144xf16>, tensor<1x64xf16>) -> tensor<8x6144xf16> {
  // CHECK-NEXT: ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x6144xf16>, %in2: tensor<1x64xf16>, %out0: tensor<8x6144xf16>):
  %o = kernel.custom (%x, %w, %b) grid <96, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>, tensor<4096x6144xf16>, tensor<1x64xf16>) -> tensor<8x6144xf16> {
  ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x6144xf16>, %in2: tensor<1x64xf16>,
       %out0: tensor<8x6144xf16>):
    // CHECK: %[[ACC:.*]]:2 = block.for_loop 64 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<1x64xf16> {
    %acc:2 = block.for_loop 64 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<1x64xf16> {
      // CHECK-NEXT: %[[XT:.*]] = block.load %in0 imap <> fmap 1 : tensor<8x4096xf16> -> tensor<8x64xf16>
      %xt = block.load %in0 imap <> fmap 1 : tensor<8x4096xf16> -> tensor<8x64xf16>
      // CHECK-NEXT: %[[WT:.*]] = block.load %in1 imap <x = 1> fmap 0 : tensor<4096x6144xf16> -> tensor<64x64xf16>
      %wt = block.load %in1 imap <x = 1> fmap 0 : tensor<4096x6144xf16> -> tensor<64x64xf16>
      // CHECK-NEXT: %[[BT:.*]] = block.load %in2 imap <> : tensor<1x64xf16> -> tensor<1x64xf16>
      %bt = block.load %in2 imap <> : tensor<1x64xf16> -> tensor<1x64xf16>
      // CHECK-NEXT: %[[M:.*]] = block.matmul %[[XT]], %[[WT]] : tensor<8x64xf16>, tensor<64x64xf16>
      %m = block.matmul %xt, %wt : tensor<8x64xf16>, tensor<64x64xf16>
      // CHECK-NEXT: block.yield %[[M]], %[[BT]] : tensor<8x64xf16>, tensor<1x64xf16>
      block.yield %m, %bt : tensor<8x64xf16>, tensor<1x64xf16>
    }
    // Broadcasting: 8x64 + 1x64 -> 8x64.
    // CHECK: %[[Y:.*]] = block.add %[[ACC]]#0, %[[ACC]]#1 : tensor<8x64xf16>, tensor<1x64xf16>
    %y = block.add %acc#0, %acc#1 : tensor<8x64xf16>, tensor<1x64xf16>
    // CHECK-NEXT: block.store %[[Y]], %out0 omap <x = 1> : tensor<8x64xf16> into tensor<8x6144xf16>
    block.store %y, %out0 omap <x = 1> : tensor<8x64xf16> into tensor<8x6144xf16>
    // CHECK-NEXT: block.return
    block.return
  }
  return %o : tensor<8x6144xf16>
}

// A widening matmul: bf16 tiles, their product summed into f32 and not
// rounded, which an f32 epilogue reads.
// CHECK-LABEL: func.func @widening_matmul
func.func @widening_matmul(%x: tensor<16x256xbf16>, %w: tensor<256x64xbf16>) -> tensor<16x64xbf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<16x256xbf16>, tensor<256x64xbf16>) -> tensor<16x64xbf16> {
  ^bb0(%in0: tensor<16x256xbf16>, %in1: tensor<256x64xbf16>, %out0: tensor<16x64xbf16>):
    // CHECK: block.for_loop 4 iterations accumulate (sum) : tensor<16x64xf32>
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<16x64xf32> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<16x256xbf16> -> tensor<16x64xbf16>
      %wt = block.load %in1 imap <> fmap 0 : tensor<256x64xbf16> -> tensor<64x64xbf16>
      // CHECK: %[[M:.*]] = block.matmul %{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xf32>
      %m = block.matmul %xt, %wt : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xf32>
      // CHECK-NEXT: block.yield %[[M]] : tensor<16x64xf32>
      block.yield %m : tensor<16x64xf32>
    }
    // CHECK: block.silu %{{.*}} : tensor<16x64xf32>
    %s = block.silu %acc : tensor<16x64xf32>
    block.store %s, %out0 omap <> : tensor<16x64xf32> into tensor<16x64xbf16>
    block.return
  }
  return %o : tensor<16x64xbf16>
}

// A tile computed in f32 rounded to bf16 for a widening matmul, as an f32
// kernel multiplies what its bf16 program multiplies on the tensor cores.
// CHECK-LABEL: func.func @rounded_matmul_operand
func.func @rounded_matmul_operand(%x: tensor<16x64xf32>, %w: tensor<64x64xbf16>) -> tensor<16x64xf32> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<16x64xf32>, tensor<64x64xbf16>) -> tensor<16x64xf32> {
  ^bb0(%in0: tensor<16x64xf32>, %in1: tensor<64x64xbf16>, %out0: tensor<16x64xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<16x64xf32> {
      %xt = block.load %in0 imap <> : tensor<16x64xf32> -> tensor<16x64xf32>
      %wt = block.load %in1 imap <> : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %e = block.exp %xt : tensor<16x64xf32>
      // CHECK: %[[R:.*]] = block.convert %{{.*}} : tensor<16x64xf32> to tensor<16x64xbf16>
      %r = block.convert %e : tensor<16x64xf32> to tensor<16x64xbf16>
      // CHECK-NEXT: block.matmul %[[R]], %{{.*}} : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xf32>
      %m = block.matmul %r, %wt : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xf32>
      block.yield %m : tensor<16x64xf32>
    }
    block.store %acc, %out0 omap <> : tensor<16x64xf32> into tensor<16x64xf32>
    block.return
  }
  return %o : tensor<16x64xf32>
}

// A load through a window: the second half of each row of a fused gate-up
// product, 64 columns per block, 16 rows per iteration (summed).
// CHECK-LABEL: func.func @windowed_load
func.func @windowed_load(%h: tensor<32x5632xf16>) -> tensor<16x2816xf16> {
  %o = kernel.custom (%h) grid <44, 1, 1> block <128, 1, 1>
      : (tensor<32x5632xf16>) -> tensor<16x2816xf16> {
  ^bb0(%in0: tensor<32x5632xf16>, %out0: tensor<16x2816xf16>):
    %acc = block.for_loop 2 iterations accumulate (sum) : tensor<16x64xf16> {
      // CHECK: block.load %in0 window [0, 2816] [32, 2816] imap <x = 1> fmap 0 : tensor<32x5632xf16> -> tensor<16x64xf16>
      %u = block.load %in0 window [0, 2816] [32, 2816] imap <x = 1> fmap 0 : tensor<32x5632xf16> -> tensor<16x64xf16>
      block.yield %u : tensor<16x64xf16>
    }
    block.store %acc, %out0 omap <x = 1> : tensor<16x64xf16> into tensor<16x2816xf16>
    block.return
  }
  return %o : tensor<16x2816xf16>
}

// Every accumulator kind, including the online-softmax `rescale by k` (also
// by a max accumulator that comes after it), with f32 tiles.
// CHECK-LABEL: func.func @accumulators
func.func @accumulators(%x: tensor<16x1024xf32>)
    -> (tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>,
        tensor<16x64xf32>, tensor<16x64xf32>) {
  // CHECK: kernel.custom(%{{.*}}) grid <1, 1, 1> block <256, 1, 1> : (tensor<16x1024xf32>) -> (tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  // CHECK-NEXT: ^bb0(%in0: tensor<16x1024xf32>, %out0: tensor<16x1xf32>, %out1: tensor<16x1xf32>, %out2: tensor<16x1xf32>, %out3: tensor<16x1xf32>, %out4: tensor<16x64xf32>, %out5: tensor<16x64xf32>):
  %o:6 = kernel.custom (%x) grid <1, 1, 1> block <256, 1, 1>
      : (tensor<16x1024xf32>) -> (tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>,
                                  tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  ^bb0(%in0: tensor<16x1024xf32>, %out0: tensor<16x1xf32>, %out1: tensor<16x1xf32>,
       %out2: tensor<16x1xf32>, %out3: tensor<16x1xf32>, %out4: tensor<16x64xf32>,
       %out5: tensor<16x64xf32>):
    // CHECK: %[[A:.*]]:6 = block.for_loop 16 iterations accumulate (sum, max, mean, rms, rescale by 1, rescale by 1) : tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32> {
    %a:6 = block.for_loop 16 iterations accumulate (sum, max, mean, rms, rescale by 1, rescale by 1)
        : tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>,
          tensor<16x64xf32>, tensor<16x64xf32> {
      // CHECK: block.load %in0 imap <> fmap 1 : tensor<16x1024xf32> -> tensor<16x64xf32>
      %t = block.load %in0 imap <> fmap 1 : tensor<16x1024xf32> -> tensor<16x64xf32>
      // CHECK: block.reduce_sum %{{.*}} dim 1 : tensor<16x64xf32>
      %s = block.reduce_sum %t dim 1 : tensor<16x64xf32>
      // CHECK: block.reduce_max %{{.*}} dim 1 : tensor<16x64xf32>
      %m = block.reduce_max %t dim 1 : tensor<16x64xf32>
      // CHECK: block.sub %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<16x1xf32>
      %d = block.sub %t, %m : tensor<16x64xf32>, tensor<16x1xf32>
      // CHECK: block.exp %{{.*}} : tensor<16x64xf32>
      %e = block.exp %d : tensor<16x64xf32>
      // CHECK: block.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>
      block.yield %s, %m, %s, %s, %e, %t : tensor<16x1xf32>, tensor<16x1xf32>,
          tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    }
    // CHECK: block.store %[[A]]#0, %out0 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    block.store %a#0, %out0 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    // CHECK: block.store %[[A]]#1, %out1 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    block.store %a#1, %out1 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    // CHECK: block.store %[[A]]#2, %out2 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    block.store %a#2, %out2 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    // CHECK: block.store %[[A]]#3, %out3 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    block.store %a#3, %out3 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    // CHECK: block.store %[[A]]#4, %out4 omap <> : tensor<16x64xf32> into tensor<16x64xf32>
    block.store %a#4, %out4 omap <> : tensor<16x64xf32> into tensor<16x64xf32>
    // CHECK: block.store %[[A]]#5, %out5 omap <> : tensor<16x64xf32> into tensor<16x64xf32>
    block.store %a#5, %out5 omap <> : tensor<16x64xf32> into tensor<16x64xf32>
    block.return
  }
  return %o#0, %o#1, %o#2, %o#3, %o#4, %o#5 : tensor<16x1xf32>, tensor<16x1xf32>,
      tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

// A rescale accumulator before the max accumulator it names, whose max is a
// row vector (1x64) that broadcasts to the rescaled 8x64 value.
// CHECK-LABEL: func.func @rescale_before_max
func.func @rescale_before_max(%x: tensor<64x64xbf16>) -> tensor<8x64xbf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<64x64xbf16>) -> tensor<8x64xbf16> {
  ^bb0(%in0: tensor<64x64xbf16>, %out0: tensor<8x64xbf16>):
    // CHECK: block.for_loop 8 iterations accumulate (rescale by 1, max) : tensor<8x64xbf16>, tensor<1x64xbf16> {
    %a:2 = block.for_loop 8 iterations accumulate (rescale by 1, max)
        : tensor<8x64xbf16>, tensor<1x64xbf16> {
      // CHECK: block.load %in0 imap <> fmap 0 : tensor<64x64xbf16> -> tensor<8x64xbf16>
      %t = block.load %in0 imap <> fmap 0 : tensor<64x64xbf16> -> tensor<8x64xbf16>
      // CHECK: block.reduce_max %{{.*}} dim 0 : tensor<8x64xbf16>
      %m = block.reduce_max %t dim 0 : tensor<8x64xbf16>
      // CHECK: block.yield %{{.*}}, %{{.*}} : tensor<8x64xbf16>, tensor<1x64xbf16>
      block.yield %t, %m : tensor<8x64xbf16>, tensor<1x64xbf16>
    }
    // CHECK: block.store %{{.*}}, %out0 omap <> : tensor<8x64xbf16> into tensor<8x64xbf16>
    block.store %a#0, %out0 omap <> : tensor<8x64xbf16> into tensor<8x64xbf16>
    block.return
  }
  return %o : tensor<8x64xbf16>
}

// All elementwise and shape ops of the block level on tiles, inside the loop
// and after it.
// CHECK-LABEL: func.func @compute_ops
func.func @compute_ops(%x: tensor<8x64xf16>, %y: tensor<8x64xf16>, %z: tensor<64x64xf16>)
    -> tensor<8x129xf16> {
  %o = kernel.custom (%x, %y, %z) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<64x64xf16>) -> tensor<8x129xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<8x64xf16>, %in2: tensor<64x64xf16>,
       %out0: tensor<8x129xf16>):
    // CHECK: %[[ACC:.*]]:3 = block.for_loop 1 iterations accumulate (sum, max, mean) : tensor<8x64xf16>, tensor<8x64xf16>, tensor<64x64xf16> {
    %acc:3 = block.for_loop 1 iterations accumulate (sum, max, mean)
        : tensor<8x64xf16>, tensor<8x64xf16>, tensor<64x64xf16> {
      %a = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %b = block.load %in1 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %w = block.load %in2 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      // CHECK: block.exp %{{.*}} : tensor<8x64xf16>
      %0 = block.exp %a : tensor<8x64xf16>
      // CHECK-NEXT: block.log %{{.*}} : tensor<8x64xf16>
      %1 = block.log %0 : tensor<8x64xf16>
      // CHECK-NEXT: block.sqrt %{{.*}} : tensor<8x64xf16>
      %2 = block.sqrt %1 : tensor<8x64xf16>
      // CHECK-NEXT: block.rsqrt %{{.*}} : tensor<8x64xf16>
      %3 = block.rsqrt %2 : tensor<8x64xf16>
      // CHECK-NEXT: block.square %{{.*}} : tensor<8x64xf16>
      %4 = block.square %3 : tensor<8x64xf16>
      // CHECK-NEXT: block.silu %{{.*}} : tensor<8x64xf16>
      %5 = block.silu %4 : tensor<8x64xf16>
      // CHECK-NEXT: block.sigmoid %{{.*}} : tensor<8x64xf16>
      %6 = block.sigmoid %5 : tensor<8x64xf16>
      // CHECK-NEXT: block.gelu %{{.*}} : tensor<8x64xf16>
      %7 = block.gelu %6 : tensor<8x64xf16>
      // CHECK-NEXT: block.relu %{{.*}} : tensor<8x64xf16>
      %8 = block.relu %7 : tensor<8x64xf16>
      // CHECK-NEXT: block.tanh %{{.*}} : tensor<8x64xf16>
      %9 = block.tanh %8 : tensor<8x64xf16>
      // CHECK-NEXT: block.erf %{{.*}} : tensor<8x64xf16>
      %10 = block.erf %9 : tensor<8x64xf16>
      // CHECK-NEXT: %[[GT:.*]] = block.gelu_tanh %{{.*}} : tensor<8x64xf16>
      %gt = block.gelu_tanh %10 : tensor<8x64xf16>
      // CHECK-NEXT: %[[SIN:.*]] = block.sin %[[GT]] : tensor<8x64xf16>
      %sin = block.sin %gt : tensor<8x64xf16>
      // CHECK-NEXT: %[[COS:.*]] = block.cos %[[SIN]] : tensor<8x64xf16>
      %cos = block.cos %sin : tensor<8x64xf16>
      // CHECK-NEXT: %[[L1P:.*]] = block.log1p %[[COS]] : tensor<8x64xf16>
      %l1p = block.log1p %cos : tensor<8x64xf16>
      // CHECK-NEXT: %[[SP:.*]] = block.softplus %[[L1P]] : tensor<8x64xf16>
      %sp = block.softplus %l1p : tensor<8x64xf16>
      // CHECK-NEXT: %[[FL:.*]] = block.floor %[[SP]] : tensor<8x64xf16>
      %fl = block.floor %sp : tensor<8x64xf16>
      // CHECK-NEXT: %[[CE:.*]] = block.ceil %[[FL]] : tensor<8x64xf16>
      %ce = block.ceil %fl : tensor<8x64xf16>
      // CHECK-NEXT: %[[RO:.*]] = block.round %[[CE]] : tensor<8x64xf16>
      %ro = block.round %ce : tensor<8x64xf16>
      // CHECK-NEXT: %[[NEG:.*]] = block.neg %[[RO]] : tensor<8x64xf16>
      %11 = block.neg %ro : tensor<8x64xf16>
      // CHECK-NEXT: block.add %[[NEG]], %{{.*}} : tensor<8x64xf16>, tensor<8x64xf16>
      %12 = block.add %11, %b : tensor<8x64xf16>, tensor<8x64xf16>
      // CHECK-NEXT: block.sub %{{.*}}, %{{.*}} : tensor<8x64xf16>, tensor<8x64xf16>
      %13 = block.sub %12, %b : tensor<8x64xf16>, tensor<8x64xf16>
      // CHECK-NEXT: block.mul %{{.*}}, %{{.*}} : tensor<8x64xf16>, tensor<8x64xf16>
      %14 = block.mul %13, %b : tensor<8x64xf16>, tensor<8x64xf16>
      // CHECK-NEXT: %[[DIV:.*]] = block.div %{{.*}}, %{{.*}} : tensor<8x64xf16>, tensor<8x64xf16>
      %15 = block.div %14, %b : tensor<8x64xf16>, tensor<8x64xf16>
      // CHECK-NEXT: %[[MS:.*]] = block.mul_scalar %{{.*}}, 1.250000e-01 : tensor<8x64xf16>
      %16 = block.mul_scalar %15, 0.125 : tensor<8x64xf16>
      // CHECK-NEXT: %[[AS:.*]] = block.add_scalar %[[MS]], -1.000000e+00 : tensor<8x64xf16>
      %17 = block.add_scalar %16, -1.0 : tensor<8x64xf16>
      // CHECK-NEXT: %[[LO:.*]] = block.max_scalar %[[AS]], -1.500000e+00 : tensor<8x64xf16>
      %18 = block.max_scalar %17, -1.5 : tensor<8x64xf16>
      // CHECK-NEXT: %[[HI:.*]] = block.min_scalar %[[LO]], 2.000000e+00 : tensor<8x64xf16>
      %19 = block.min_scalar %18, 2.0 : tensor<8x64xf16>
      // CHECK-NEXT: %[[MAX:.*]] = block.max %[[HI]], %{{.*}} : tensor<8x64xf16>, tensor<8x64xf16>
      %20 = block.max %19, %b : tensor<8x64xf16>, tensor<8x64xf16>
      // CHECK-NEXT: %[[MIN:.*]] = block.min %[[MAX]], %{{.*}} : tensor<8x64xf16>, tensor<8x64xf16>
      %21 = block.min %20, %16 : tensor<8x64xf16>, tensor<8x64xf16>
      // CHECK-NEXT: block.yield %[[DIV]], %[[MIN]], %{{.*}} : tensor<8x64xf16>, tensor<8x64xf16>, tensor<64x64xf16>
      block.yield %15, %21, %w : tensor<8x64xf16>, tensor<8x64xf16>, tensor<64x64xf16>
    }
    // CHECK: %[[R1:.*]] = block.rms_norm %[[ACC]]#0 : tensor<8x64xf16>
    %r1 = block.rms_norm %acc#0 : tensor<8x64xf16>
    // CHECK-NEXT: %[[R2:.*]] = block.rms_norm %[[ACC]]#1 {epsilon = 9.9999999999999995E-7 : f64} : tensor<8x64xf16>
    %r2 = block.rms_norm %acc#1 {epsilon = 1.0e-6} : tensor<8x64xf16>
    // CHECK-NEXT: %[[S:.*]] = block.reduce_sum %[[R1]] dim 1 : tensor<8x64xf16>
    %s = block.reduce_sum %r1 dim 1 : tensor<8x64xf16>
    // CHECK-NEXT: %[[M:.*]] = block.reduce_max %[[R2]] dim 0 : tensor<8x64xf16>
    %m = block.reduce_max %r2 dim 0 : tensor<8x64xf16>
    // Both operands stretch: 8x1 * 1x64 -> 8x64.
    // CHECK-NEXT: %[[OUTER:.*]] = block.mul %[[S]], %[[M]] : tensor<8x1xf16>, tensor<1x64xf16>
    %outer = block.mul %s, %m : tensor<8x1xf16>, tensor<1x64xf16>
    // CHECK-NEXT: %[[MM:.*]] = block.matmul %[[OUTER]], %[[ACC]]#2 : tensor<8x64xf16>, tensor<64x64xf16>
    %mm = block.matmul %outer, %acc#2 : tensor<8x64xf16>, tensor<64x64xf16>
    // CHECK-NEXT: %[[ONE:.*]] = block.concat %[[S]] dim 0 : tensor<8x1xf16>
    %one = block.concat %s dim 0 : tensor<8x1xf16>
    // CHECK-NEXT: %[[C:.*]] = block.concat %[[OUTER]], %[[MM]], %[[ONE]] dim 1 : tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x1xf16>
    %c = block.concat %outer, %mm, %one dim 1 : tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x1xf16>
    // CHECK-NEXT: block.store %[[C]], %out0 omap <> : tensor<8x129xf16> into tensor<8x129xf16>
    block.store %c, %out0 omap <> : tensor<8x129xf16> into tensor<8x129xf16>
    block.return
  }
  return %o : tensor<8x129xf16>
}

// Batched matmul and rank-extending broadcasts on 3-D tiles, on a grid with
// y and z larger than 1: imap and omap use x, y and z.
// CHECK-LABEL: func.func @grid_xyz
func.func @grid_xyz(%q: tensor<4x128x64xbf16>, %k: tensor<4x64x512xbf16>,
                    %bias: tensor<512xbf16>) -> tensor<4x128x512xbf16> {
  // CHECK: kernel.custom(%{{.*}}, %{{.*}}, %{{.*}}) grid <8, 4, 2> block <64, 2, 2>
  %o = kernel.custom (%q, %k, %bias) grid <8, 4, 2> block <64, 2, 2>
      : (tensor<4x128x64xbf16>, tensor<4x64x512xbf16>, tensor<512xbf16>)
        -> tensor<4x128x512xbf16> {
  ^bb0(%in0: tensor<4x128x64xbf16>, %in1: tensor<4x64x512xbf16>, %in2: tensor<512xbf16>,
       %out0: tensor<4x128x512xbf16>):
    // CHECK: block.for_loop 4 iterations accumulate (sum, mean) : tensor<2x32x64xbf16>, tensor<64xbf16> {
    %acc:2 = block.for_loop 4 iterations accumulate (sum, mean)
        : tensor<2x32x64xbf16>, tensor<64xbf16> {
      // The printer lists the grid dims in x, y, z order.
      // CHECK-NEXT: block.load %in0 imap <y = 1, z = 0> fmap 2 : tensor<4x128x64xbf16> -> tensor<2x32x16xbf16>
      %qt = block.load %in0 imap <z = 0, y = 1> fmap 2
          : tensor<4x128x64xbf16> -> tensor<2x32x16xbf16>
      // CHECK-NEXT: block.load %in1 imap <x = 2, z = 0> fmap 1 : tensor<4x64x512xbf16> -> tensor<2x16x64xbf16>
      %kt = block.load %in1 imap <x = 2, z = 0> fmap 1
          : tensor<4x64x512xbf16> -> tensor<2x16x64xbf16>
      // CHECK-NEXT: block.load %in2 imap <x = 0> : tensor<512xbf16> -> tensor<64xbf16>
      %bt = block.load %in2 imap <x = 0> : tensor<512xbf16> -> tensor<64xbf16>
      // CHECK-NEXT: block.matmul %{{.*}}, %{{.*}} : tensor<2x32x16xbf16>, tensor<2x16x64xbf16>
      %s = block.matmul %qt, %kt : tensor<2x32x16xbf16>, tensor<2x16x64xbf16>
      // CHECK-NEXT: block.yield %{{.*}}, %{{.*}} : tensor<2x32x64xbf16>, tensor<64xbf16>
      block.yield %s, %bt : tensor<2x32x64xbf16>, tensor<64xbf16>
    }
    // Rank extension: 2x32x64 + 64 -> 2x32x64.
    // CHECK: %[[Y:.*]] = block.add %{{.*}}, %{{.*}} : tensor<2x32x64xbf16>, tensor<64xbf16>
    %y = block.add %acc#0, %acc#1 : tensor<2x32x64xbf16>, tensor<64xbf16>
    // CHECK-NEXT: block.store %[[Y]], %out0 omap <x = 2, y = 1, z = 0> : tensor<2x32x64xbf16> into tensor<4x128x512xbf16>
    block.store %y, %out0 omap <x = 2, y = 1, z = 0>
        : tensor<2x32x64xbf16> into tensor<4x128x512xbf16>
    block.return
  }
  return %o : tensor<4x128x512xbf16>
}

// Several outputs with their own omaps; the grid along y splits a different
// dim of each output, and a grid dim of size 1 may be mapped or not.
// CHECK-LABEL: func.func @multi_output
func.func @multi_output(%x: tensor<64x128xf32>)
    -> (tensor<64x128xf32>, tensor<64x1xf32>, tensor<1x128xf32>) {
  // CHECK: kernel.custom(%{{.*}}) grid <1, 4, 1> block <32, 8, 1> : (tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x1xf32>, tensor<1x128xf32>) {
  // CHECK-NEXT: ^bb0(%in0: tensor<64x128xf32>, %out0: tensor<64x128xf32>, %out1: tensor<64x1xf32>, %out2: tensor<1x128xf32>):
  %o:3 = kernel.custom (%x) grid <1, 4, 1> block <32, 8, 1>
      : (tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x1xf32>, tensor<1x128xf32>) {
  ^bb0(%in0: tensor<64x128xf32>, %out0: tensor<64x128xf32>, %out1: tensor<64x1xf32>,
       %out2: tensor<1x128xf32>):
    // CHECK: block.for_loop 2 iterations accumulate (sum, rms, max) : tensor<16x128xf32>, tensor<16x1xf32>, tensor<1x32xf32> {
    %a:3 = block.for_loop 2 iterations accumulate (sum, rms, max)
        : tensor<16x128xf32>, tensor<16x1xf32>, tensor<1x32xf32> {
      // CHECK-NEXT: block.load %in0 imap <y = 0> : tensor<64x128xf32> -> tensor<16x128xf32>
      %t = block.load %in0 imap <y = 0> : tensor<64x128xf32> -> tensor<16x128xf32>
      // CHECK-NEXT: block.load %in0 imap <y = 1> fmap 0 : tensor<64x128xf32> -> tensor<32x32xf32>
      %u = block.load %in0 imap <y = 1> fmap 0 : tensor<64x128xf32> -> tensor<32x32xf32>
      %r = block.reduce_sum %t dim 1 : tensor<16x128xf32>
      %m = block.reduce_max %u dim 0 : tensor<32x32xf32>
      // CHECK: block.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x128xf32>, tensor<16x1xf32>, tensor<1x32xf32>
      block.yield %t, %r, %m : tensor<16x128xf32>, tensor<16x1xf32>, tensor<1x32xf32>
    }
    // CHECK: block.store %{{.*}}, %out0 omap <y = 0> : tensor<16x128xf32> into tensor<64x128xf32>
    block.store %a#0, %out0 omap <y = 0> : tensor<16x128xf32> into tensor<64x128xf32>
    // CHECK-NEXT: block.store %{{.*}}, %out1 omap <y = 0> : tensor<16x1xf32> into tensor<64x1xf32>
    block.store %a#1, %out1 omap <y = 0> : tensor<16x1xf32> into tensor<64x1xf32>
    // CHECK-NEXT: block.store %{{.*}}, %out2 omap <x = 0, y = 1> : tensor<1x32xf32> into tensor<1x128xf32>
    block.store %a#2, %out2 omap <x = 0, y = 1> : tensor<1x32xf32> into tensor<1x128xf32>
    block.return
  }
  return %o#0, %o#1, %o#2 : tensor<64x128xf32>, tensor<64x1xf32>, tensor<1x128xf32>
}

// Shared memory exactly at the limit passes: at most two 227x256xf16 tiles are
// live at a time (the load and exp, then exp, the loop's result, and
// sigmoid), 2 x 116224 = the 232448 bytes of sm_90, the default target.
// CHECK-LABEL: func.func @smem_at_sm90_limit
func.func @smem_at_sm90_limit(%x: tensor<227x256xf16>) -> tensor<227x256xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <1024, 1, 1>
      : (tensor<227x256xf16>) -> tensor<227x256xf16> {
  ^bb0(%in0: tensor<227x256xf16>, %out0: tensor<227x256xf16>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<227x256xf16> {
      %t = block.load %in0 imap <> : tensor<227x256xf16> -> tensor<227x256xf16>
      %e = block.exp %t : tensor<227x256xf16>
      block.yield %e : tensor<227x256xf16>
    }
    // CHECK: block.sigmoid %{{.*}} : tensor<227x256xf16>
    %s = block.sigmoid %a : tensor<227x256xf16>
    block.store %s, %out0 omap <> : tensor<227x256xf16> into tensor<227x256xf16>
    block.return
  }
  return %o : tensor<227x256xf16>
}

// A module for another chip: two live 99x256xf16 tiles are exactly the
// 101376 bytes of sm_86.
// CHECK: module attributes {mlsopt.target = "sm_86"}
module attributes {mlsopt.target = "sm_86"} {
  // CHECK-LABEL: func.func @smem_at_sm86_limit
  func.func @smem_at_sm86_limit(%x: tensor<99x256xf16>) -> tensor<99x256xf16> {
    %o = kernel.custom (%x) grid <1, 1, 1> block <1024, 1, 1>
        : (tensor<99x256xf16>) -> tensor<99x256xf16> {
    ^bb0(%in0: tensor<99x256xf16>, %out0: tensor<99x256xf16>):
      %a = block.for_loop 1 iterations accumulate (sum) : tensor<99x256xf16> {
        %t = block.load %in0 imap <> : tensor<99x256xf16> -> tensor<99x256xf16>
        %e = block.exp %t : tensor<99x256xf16>
        block.yield %e : tensor<99x256xf16>
      }
      // CHECK: block.sigmoid %{{.*}} : tensor<99x256xf16>
      %s = block.sigmoid %a : tensor<99x256xf16>
      block.store %s, %out0 omap <> : tensor<99x256xf16> into tensor<99x256xf16>
      block.return
    }
    return %o : tensor<99x256xf16>
  }
}

// A weight stored [n, k] read by a matmul through block.transpose.
// CHECK-LABEL: func.func @transposed_weight
func.func @transposed_weight(%x: tensor<8x64xf16>, %w: tensor<96x64xf16>) -> tensor<8x96xf16> {
  %o = kernel.custom (%x, %w) grid <3, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>, tensor<96x64xf16>) -> tensor<8x96xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<96x64xf16>, %out0: tensor<8x96xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<8x32xf16> {
      %a = block.load %in0 imap <> fmap 1 : tensor<8x64xf16> -> tensor<8x32xf16>
      // CHECK: %[[W:.*]] = block.load %in1 imap <x = 0> fmap 1 : tensor<96x64xf16> -> tensor<32x32xf16>
      %b = block.load %in1 imap <x = 0> fmap 1 : tensor<96x64xf16> -> tensor<32x32xf16>
      // CHECK-NEXT: %[[WT:.*]] = block.transpose %[[W]] [1, 0] : tensor<32x32xf16>
      %bt = block.transpose %b [1, 0] : tensor<32x32xf16>
      // CHECK-NEXT: block.matmul %{{.*}}, %[[WT]] : tensor<8x32xf16>, tensor<32x32xf16>
      %p = block.matmul %a, %bt : tensor<8x32xf16>, tensor<32x32xf16>
      block.yield %p : tensor<8x32xf16>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x32xf16> into tensor<8x96xf16>
    block.return
  }
  return %o : tensor<8x96xf16>
}

// Loads and stores that convert: f16 in device memory, f32 tiles.
// CHECK-LABEL: func.func @converting_transfers
func.func @converting_transfers(%x: tensor<8x64xf16>) -> tensor<8x64xbf16> {
  %o = kernel.custom (%x) grid <8, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xbf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xbf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<1x64xf32> {
      // CHECK: block.load %in0 imap <x = 0> : tensor<8x64xf16> -> tensor<1x64xf32>
      %a = block.load %in0 imap <x = 0> : tensor<8x64xf16> -> tensor<1x64xf32>
      %e = block.exp %a : tensor<1x64xf32>
      block.yield %e : tensor<1x64xf32>
    }
    // CHECK: block.store %{{.*}}, %out0 omap <x = 0> : tensor<1x64xf32> into tensor<8x64xbf16>
    block.store %m, %out0 omap <x = 0> : tensor<1x64xf32> into tensor<8x64xbf16>
    block.return
  }
  return %o : tensor<8x64xbf16>
}

// A causal mask on tiles: the grid places the rows, the for-loop the
// columns.
// CHECK-LABEL: func.func @triangle_fill
func.func @triangle_fill(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1> : (tensor<4x8xf32>) -> tensor<4x1xf32> {
  ^bb0(%in0: tensor<4x8xf32>, %out0: tensor<4x1xf32>):
    %s = block.for_loop 2 iterations accumulate (sum) : tensor<2x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<4x8xf32> -> tensor<2x4xf32>
      // CHECK: block.triangle_fill %{{.*}} dims [0, 1] diagonal 1 value 0xFFF0000000000000 imap <x = 0> fmap 1 : tensor<2x4xf32>
      %m = block.triangle_fill %t dims [0, 1] diagonal 1 value 0xFFF0000000000000 imap <x = 0> fmap 1 : tensor<2x4xf32>
      %r = block.reduce_sum %m dim 1 : tensor<2x4xf32>
      block.yield %r : tensor<2x1xf32>
    }
    // CHECK: block.triangle_fill %{{.*}} dims [1, 0] diagonal 0 value -1.000000e+04 imap <x = 0> : tensor<2x1xf32>
    %f = block.triangle_fill %s dims [1, 0] diagonal 0 value -1.0e4 imap <x = 0> : tensor<2x1xf32>
    block.store %f, %out0 omap <x = 0> : tensor<2x1xf32> into tensor<4x1xf32>
    block.return
  }
  return %o : tensor<4x1xf32>
}

// A mask read by a kernel: its i1 tiles are loaded as stored and mapped to
// the scores' bias by block.where.
// CHECK-LABEL: func.func @where
func.func @where(%s: tensor<8x64xf32>, %m: tensor<1x64xi1>) -> tensor<8x64xf32> {
  // CHECK: kernel.custom(%{{.*}}, %{{.*}}) {{.*}} : (tensor<8x64xf32>, tensor<1x64xi1>) -> tensor<8x64xf32>
  %o = kernel.custom (%s, %m) grid <8, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>, tensor<1x64xi1>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %in1: tensor<1x64xi1>, %out0: tensor<8x64xf32>):
    %l = block.for_loop 1 iterations accumulate (sum) : tensor<1x64xf32> {
      %a = block.load %in0 imap <x = 0> : tensor<8x64xf32> -> tensor<1x64xf32>
      // CHECK: block.load %in1 imap <> : tensor<1x64xi1> -> tensor<1x64xi1>
      %b = block.load %in1 imap <> : tensor<1x64xi1> -> tensor<1x64xi1>
      // CHECK: block.where %{{.*}}, 0.000000e+00, 0xFFF0000000000000 : tensor<1x64xi1> to tensor<1x64xf32>
      %w = block.where %b, 0.0, 0xFFF0000000000000 : tensor<1x64xi1> to tensor<1x64xf32>
      %r = block.add %a, %w : tensor<1x64xf32>, tensor<1x64xf32>
      block.yield %r : tensor<1x64xf32>
    }
    block.store %l, %out0 omap <x = 0> : tensor<1x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// Integers read by a kernel: loaded as stored, converted on the tile.
// CHECK-LABEL: func.func @int_to_float
func.func @int_to_float(%s: tensor<8x64xf32>, %m: tensor<1x64xi64>) -> tensor<8x64xf32> {
  %o = kernel.custom (%s, %m) grid <8, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>, tensor<1x64xi64>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %in1: tensor<1x64xi64>, %out0: tensor<8x64xf32>):
    %l = block.for_loop 1 iterations accumulate (sum) : tensor<1x64xf32> {
      %a = block.load %in0 imap <x = 0> : tensor<8x64xf32> -> tensor<1x64xf32>
      // CHECK: block.load %in1 imap <> : tensor<1x64xi64> -> tensor<1x64xi64>
      %b = block.load %in1 imap <> : tensor<1x64xi64> -> tensor<1x64xi64>
      // CHECK: block.int_to_float %{{.*}} : tensor<1x64xi64> to tensor<1x64xf32>
      %f = block.int_to_float %b : tensor<1x64xi64> to tensor<1x64xf32>
      %r = block.add %a, %f : tensor<1x64xf32>, tensor<1x64xf32>
      block.yield %r : tensor<1x64xf32>
    }
    block.store %l, %out0 omap <x = 0> : tensor<1x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}
