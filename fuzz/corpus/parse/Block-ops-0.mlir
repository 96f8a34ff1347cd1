func.func @matmul_sum(%x: tensor<8x4096xf16>, %w: tensor<4096x6144xf16>,
                      %b: tensor<1x64xf16>) -> tensor<8x6144xf16> {
  %o = kernel.custom (%x, %w, %b) grid <96, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>, tensor<4096x6144xf16>, tensor<1x64xf16>) -> tensor<8x6144xf16> {
  ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x6144xf16>, %in2: tensor<1x64xf16>,
       %out0: tensor<8x6144xf16>):
    %acc:2 = block.for_loop 64 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<1x64xf16> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<8x4096xf16> -> tensor<8x64xf16>
      %wt = block.load %in1 imap <x = 1> fmap 0 : tensor<4096x6144xf16> -> tensor<64x64xf16>
      %bt = block.load %in2 imap <> : tensor<1x64xf16> -> tensor<1x64xf16>
      %m = block.matmul %xt, %wt : tensor<8x64xf16>, tensor<64x64xf16>
      block.yield %m, %bt : tensor<8x64xf16>, tensor<1x64xf16>
    }
    %y = block.add %acc#0, %acc#1 : tensor<8x64xf16>, tensor<1x64xf16>
    block.store %y, %out0 omap <x = 1> : tensor<8x64xf16> into tensor<8x6144xf16>
    block.return
  }
  return %o : tensor<8x6144xf16>
}

func.func @accumulators(%x: tensor<16x1024xf32>)
    -> (tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>,
        tensor<16x64xf32>, tensor<16x64xf32>) {
  %o:6 = kernel.custom (%x) grid <1, 1, 1> block <256, 1, 1>
      : (tensor<16x1024xf32>) -> (tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>,
                                  tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  ^bb0(%in0: tensor<16x1024xf32>, %out0: tensor<16x1xf32>, %out1: tensor<16x1xf32>,
       %out2: tensor<16x1xf32>, %out3: tensor<16x1xf32>, %out4: tensor<16x64xf32>,
       %out5: tensor<16x64xf32>):
    %a:6 = block.for_loop 16 iterations accumulate (sum, max, mean, rms, rescale by 1, rescale by 1)
        : tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>,
          tensor<16x64xf32>, tensor<16x64xf32> {
      %t = block.load %in0 imap <> fmap 1 : tensor<16x1024xf32> -> tensor<16x64xf32>
      %s = block.reduce_sum %t dim 1 : tensor<16x64xf32>
      %m = block.reduce_max %t dim 1 : tensor<16x64xf32>
      %d = block.sub %t, %m : tensor<16x64xf32>, tensor<16x1xf32>
      %e = block.exp %d : tensor<16x64xf32>
      block.yield %s, %m, %s, %s, %e, %t : tensor<16x1xf32>, tensor<16x1xf32>,
          tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    }
    block.store %a#0, %out0 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    block.store %a#1, %out1 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    block.store %a#2, %out2 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    block.store %a#3, %out3 omap <> : tensor<16x1xf32> into tensor<16x1xf32>
    block.store %a#4, %out4 omap <> : tensor<16x64xf32> into tensor<16x64xf32>
    block.store %a#5, %out5 omap <> : tensor<16x64xf32> into tensor<16x64xf32>
    block.return
  }
  return %o#0, %o#1, %o#2, %o#3, %o#4, %o#5 : tensor<16x1xf32>, tensor<16x1xf32>,
      tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

func.func @rescale_before_max(%x: tensor<64x64xbf16>) -> tensor<8x64xbf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<64x64xbf16>) -> tensor<8x64xbf16> {
  ^bb0(%in0: tensor<64x64xbf16>, %out0: tensor<8x64xbf16>):
    %a:2 = block.for_loop 8 iterations accumulate (rescale by 1, max)
        : tensor<8x64xbf16>, tensor<1x64xbf16> {
      %t = block.load %in0 imap <> fmap 0 : tensor<64x64xbf16> -> tensor<8x64xbf16>
      %m = block.reduce_max %t dim 0 : tensor<8x64xbf16>
      block.yield %t, %m : tensor<8x64xbf16>, tensor<1x64xbf16>
    }
    block.store %a#0, %out0 omap <> : tensor<8x64xbf16> into tensor<8x64xbf16>
    block.return
  }
  return %o : tensor<8x64xbf16>
}

func.func @compute_ops(%x: tensor<8x64xf16>, %y: tensor<8x64xf16>, %z: tensor<64x64xf16>)
    -> tensor<8x129xf16> {
  %o = kernel.custom (%x, %y, %z) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<64x64xf16>) -> tensor<8x129xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<8x64xf16>, %in2: tensor<64x64xf16>,
       %out0: tensor<8x129xf16>):
    %acc:3 = block.for_loop 1 iterations accumulate (sum, max, mean)
        : tensor<8x64xf16>, tensor<8x64xf16>, tensor<64x64xf16> {
      %a = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %b = block.load %in1 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %w = block.load %in2 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %0 = block.exp %a : tensor<8x64xf16>
      %1 = block.log %0 : tensor<8x64xf16>
      %2 = block.sqrt %1 : tensor<8x64xf16>
      %3 = block.rsqrt %2 : tensor<8x64xf16>
      %4 = block.square %3 : tensor<8x64xf16>
      %5 = block.silu %4 : tensor<8x64xf16>
      %6 = block.sigmoid %5 : tensor<8x64xf16>
      %7 = block.gelu %6 : tensor<8x64xf16>
      %8 = block.relu %7 : tensor<8x64xf16>
      %9 = block.tanh %8 : tensor<8x64xf16>
      %10 = block.erf %9 : tensor<8x64xf16>
      %11 = block.neg %10 : tensor<8x64xf16>
      %12 = block.add %11, %b : tensor<8x64xf16>, tensor<8x64xf16>
      %13 = block.sub %12, %b : tensor<8x64xf16>, tensor<8x64xf16>
      %14 = block.mul %13, %b : tensor<8x64xf16>, tensor<8x64xf16>
      %15 = block.div %14, %b : tensor<8x64xf16>, tensor<8x64xf16>
      %16 = block.mul_scalar %15, 0.125 : tensor<8x64xf16>
      %17 = block.add_scalar %16, -1.0 : tensor<8x64xf16>
      block.yield %15, %17, %w : tensor<8x64xf16>, tensor<8x64xf16>, tensor<64x64xf16>
    }
    %r1 = block.rms_norm %acc#0 : tensor<8x64xf16>
    %r2 = block.rms_norm %acc#1 {epsilon = 1.0e-6} : tensor<8x64xf16>
    %s = block.reduce_sum %r1 dim 1 : tensor<8x64xf16>
    %m = block.reduce_max %r2 dim 0 : tensor<8x64xf16>
    %outer = block.mul %s, %m : tensor<8x1xf16>, tensor<1x64xf16>
    %mm = block.matmul %outer, %acc#2 : tensor<8x64xf16>, tensor<64x64xf16>
    %one = block.concat %s dim 0 : tensor<8x1xf16>
    %c = block.concat %outer, %mm, %one dim 1 : tensor<8x64xf16>, tensor<8x64xf16>, tensor<8x1xf16>
    block.store %c, %out0 omap <> : tensor<8x129xf16> into tensor<8x129xf16>
    block.return
  }
  return %o : tensor<8x129xf16>
}

func.func @grid_xyz(%q: tensor<4x128x64xbf16>, %k: tensor<4x64x512xbf16>,
                    %bias: tensor<512xbf16>) -> tensor<4x128x512xbf16> {
  %o = kernel.custom (%q, %k, %bias) grid <8, 4, 2> block <64, 2, 2>
      : (tensor<4x128x64xbf16>, tensor<4x64x512xbf16>, tensor<512xbf16>)
        -> tensor<4x128x512xbf16> {
  ^bb0(%in0: tensor<4x128x64xbf16>, %in1: tensor<4x64x512xbf16>, %in2: tensor<512xbf16>,
       %out0: tensor<4x128x512xbf16>):
    %acc:2 = block.for_loop 4 iterations accumulate (sum, mean)
        : tensor<2x32x64xbf16>, tensor<64xbf16> {
      %qt = block.load %in0 imap <z = 0, y = 1> fmap 2
          : tensor<4x128x64xbf16> -> tensor<2x32x16xbf16>
      %kt = block.load %in1 imap <x = 2, z = 0> fmap 1
          : tensor<4x64x512xbf16> -> tensor<2x16x64xbf16>
      %bt = block.load %in2 imap <x = 0> : tensor<512xbf16> -> tensor<64xbf16>
      %s = block.matmul %qt, %kt : tensor<2x32x16xbf16>, tensor<2x16x64xbf16>
      block.yield %s, %bt : tensor<2x32x64xbf16>, tensor<64xbf16>
    }
    %y = block.add %acc#0, %acc#1 : tensor<2x32x64xbf16>, tensor<64xbf16>
    block.store %y, %out0 omap <x = 2, y = 1, z = 0>
        : tensor<2x32x64xbf16> into tensor<4x128x512xbf16>
    block.return
  }
  return %o : tensor<4x128x512xbf16>
}

func.func @multi_output(%x: tensor<64x128xf32>)
    -> (tensor<64x128xf32>, tensor<64x1xf32>, tensor<1x128xf32>) {
  %o:3 = kernel.custom (%x) grid <1, 4, 1> block <32, 8, 1>
      : (tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x1xf32>, tensor<1x128xf32>) {
  ^bb0(%in0: tensor<64x128xf32>, %out0: tensor<64x128xf32>, %out1: tensor<64x1xf32>,
       %out2: tensor<1x128xf32>):
    %a:3 = block.for_loop 2 iterations accumulate (sum, rms, max)
        : tensor<16x128xf32>, tensor<16x1xf32>, tensor<1x32xf32> {
      %t = block.load %in0 imap <y = 0> : tensor<64x128xf32> -> tensor<16x128xf32>
      %u = block.load %in0 imap <y = 1> fmap 0 : tensor<64x128xf32> -> tensor<32x32xf32>
      %r = block.reduce_sum %t dim 1 : tensor<16x128xf32>
      %m = block.reduce_max %u dim 0 : tensor<32x32xf32>
      block.yield %t, %r, %m : tensor<16x128xf32>, tensor<16x1xf32>, tensor<1x32xf32>
    }
    block.store %a#0, %out0 omap <y = 0> : tensor<16x128xf32> into tensor<64x128xf32>
    block.store %a#1, %out1 omap <y = 0> : tensor<16x1xf32> into tensor<64x1xf32>
    block.store %a#2, %out2 omap <x = 0, y = 1> : tensor<1x32xf32> into tensor<1x128xf32>
    block.return
  }
  return %o#0, %o#1, %o#2 : tensor<64x128xf32>, tensor<64x1xf32>, tensor<1x128xf32>
}

func.func @smem_at_sm90_limit(%x: tensor<227x128xf16>) -> tensor<227x128xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <1024, 1, 1>
      : (tensor<227x128xf16>) -> tensor<227x128xf16> {
  ^bb0(%in0: tensor<227x128xf16>, %out0: tensor<227x128xf16>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<227x128xf16> {
      %t = block.load %in0 imap <> : tensor<227x128xf16> -> tensor<227x128xf16>
      %e = block.exp %t : tensor<227x128xf16>
      block.yield %e : tensor<227x128xf16>
    }
    %s = block.sigmoid %a : tensor<227x128xf16>
    block.store %s, %out0 omap <> : tensor<227x128xf16> into tensor<227x128xf16>
    block.return
  }
  return %o : tensor<227x128xf16>
}

module attributes {mlsopt.target = "sm_86"} {
  func.func @smem_at_sm86_limit(%x: tensor<99x128xf16>) -> tensor<99x128xf16> {
    %o = kernel.custom (%x) grid <1, 1, 1> block <1024, 1, 1>
        : (tensor<99x128xf16>) -> tensor<99x128xf16> {
    ^bb0(%in0: tensor<99x128xf16>, %out0: tensor<99x128xf16>):
      %a = block.for_loop 1 iterations accumulate (sum) : tensor<99x128xf16> {
        %t = block.load %in0 imap <> : tensor<99x128xf16> -> tensor<99x128xf16>
        %e = block.exp %t : tensor<99x128xf16>
        block.yield %e : tensor<99x128xf16>
      }
      %s = block.sigmoid %a : tensor<99x128xf16>
      block.store %s, %out0 omap <> : tensor<99x128xf16> into tensor<99x128xf16>
      block.return
    }
    return %o : tensor<99x128xf16>
  }
}
