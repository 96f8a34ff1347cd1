func.func @reference(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>,
                     %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %s = kernel.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %e = kernel.exp %s : tensor<2x256x4096xf16>
  %l = kernel.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %ev = kernel.matmul %e, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  %o = kernel.div %ev, %l : tensor<2x256x64xf16>, tensor<2x256x1xf16>
  return %o : tensor<2x256x64xf16>
}

func.func @fused(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>,
                 %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
    attributes {mlsopt.equivalent_to = @reference} {
  %o = kernel.custom (%q, %k, %v) grid <2, 4, 1> block <128, 1, 1>
      : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>)
        -> tensor<2x256x64xf16> {
  ^bb0(%in0: tensor<2x256x64xf16>, %in1: tensor<2x64x4096xf16>,
       %in2: tensor<2x4096x64xf16>, %out0: tensor<2x256x64xf16>):
    %acc:2 = block.for_loop 64 iterations accumulate (sum, sum)
        : tensor<1x64x64xf16>, tensor<1x64x1xf16> {
      %qt = block.load %in0 imap <x = 0, y = 1>
          : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
      %kt = block.load %in1 imap <x = 0> fmap 2
          : tensor<2x64x4096xf16> -> tensor<1x64x64xf16>
      %vt = block.load %in2 imap <x = 0> fmap 1
          : tensor<2x4096x64xf16> -> tensor<1x64x64xf16>
      %s = block.matmul %qt, %kt : tensor<1x64x64xf16>, tensor<1x64x64xf16>
      %e = block.exp %s : tensor<1x64x64xf16>
      %l = block.reduce_sum %e dim 2 : tensor<1x64x64xf16>
      %ev = block.matmul %e, %vt : tensor<1x64x64xf16>, tensor<1x64x64xf16>
      block.yield %ev, %l : tensor<1x64x64xf16>, tensor<1x64x1xf16>
    }
    %y = block.div %acc#0, %acc#1 : tensor<1x64x64xf16>, tensor<1x64x1xf16>
    block.store %y, %out0 omap <x = 0, y = 1>
        : tensor<1x64x64xf16> into tensor<2x256x64xf16>
    block.return
  }
  return %o : tensor<2x256x64xf16>
}

func.func @fused_online_softmax(%q: tensor<2x256x64xf16>,
                                %k: tensor<2x64x4096xf16>,
                                %v: tensor<2x4096x64xf16>)
    -> tensor<2x256x64xf16> attributes {mlsopt.equivalent_to = @reference} {
  %o = kernel.custom (%q, %k, %v) grid <2, 4, 1> block <128, 1, 1>
      : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>)
        -> tensor<2x256x64xf16> {
  ^bb0(%in0: tensor<2x256x64xf16>, %in1: tensor<2x64x4096xf16>,
       %in2: tensor<2x4096x64xf16>, %out0: tensor<2x256x64xf16>):
    %acc:3 = block.for_loop 64 iterations
        accumulate (max, rescale by 0, rescale by 0)
        : tensor<1x64x1xf16>, tensor<1x64x1xf16>, tensor<1x64x64xf16> {
      %qt = block.load %in0 imap <x = 0, y = 1>
          : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
      %kt = block.load %in1 imap <x = 0> fmap 2
          : tensor<2x64x4096xf16> -> tensor<1x64x64xf16>
      %vt = block.load %in2 imap <x = 0> fmap 1
          : tensor<2x4096x64xf16> -> tensor<1x64x64xf16>
      %s = block.matmul %qt, %kt : tensor<1x64x64xf16>, tensor<1x64x64xf16>
      %m = block.reduce_max %s dim 2 : tensor<1x64x64xf16>
      %p = thread.graph (%s, %m)
          : (tensor<1x64x64xf16>, tensor<1x64x1xf16>) -> tensor<1x64x64xf16> {
      ^bb0(%se: f16, %me: f16):
        %d = thread.binary sub %se, %me : f16
        %pe = thread.unary exp %d : f16
        thread.yield %pe : f16
      }
      %l = block.reduce_sum %p dim 2 : tensor<1x64x64xf16>
      %pv = block.matmul %p, %vt : tensor<1x64x64xf16>, tensor<1x64x64xf16>
      block.yield %m, %l, %pv
          : tensor<1x64x1xf16>, tensor<1x64x1xf16>, tensor<1x64x64xf16>
    }
    %y = thread.graph (%acc#2, %acc#1)
        : (tensor<1x64x64xf16>, tensor<1x64x1xf16>) -> tensor<1x64x64xf16> {
    ^bb0(%n: f16, %den: f16):
      %r = thread.binary div %n, %den : f16
      thread.yield %r : f16
    }
    block.store %y, %out0 omap <x = 0, y = 1>
        : tensor<1x64x64xf16> into tensor<2x256x64xf16>
    block.return
  }
  return %o : tensor<2x256x64xf16>
}
