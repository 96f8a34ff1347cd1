module {
  func.func @gpt2_attention_fused_qkv(%arg0: tensor<128x768xf16>, %arg1: tensor<768x2304xf16>, %arg2: tensor<2304xf16>) -> tensor<128x768xf16> attributes {mlsopt.equivalent_to = @gpt2_attention_fused_qkv_reference} {
    %expanded = tensor.expand_shape %arg2 [[0, 1]] output_shape [1, 2304] : tensor<2304xf16> into tensor<1x2304xf16>
    %0 = kernel.custom(%arg0, %arg1, %expanded) grid <2, 64, 1> block <128, 1, 1> : (tensor<128x768xf16>, tensor<768x2304xf16>, tensor<1x2304xf16>) -> tensor<128x2304xf16> {
    ^bb0(%in0: tensor<128x768xf16>, %in1: tensor<768x2304xf16>, %in2: tensor<1x2304xf16>, %out0: tensor<128x2304xf16>):
      %2 = block.for_loop 1 iterations accumulate (sum) : tensor<64x36xf16> {
        %3 = block.load %in0 imap <x = 0> : tensor<128x768xf16> -> tensor<64x768xf16>
        %4 = block.load %in1 imap <y = 1> : tensor<768x2304xf16> -> tensor<768x36xf16>
        %5 = block.load %in2 imap <y = 1> : tensor<1x2304xf16> -> tensor<1x36xf16>
        %6 = block.matmul %3, %4 : tensor<64x768xf16>, tensor<768x36xf16>
        %7 = thread.graph(%5, %6) : (tensor<1x36xf16>, tensor<64x36xf16>) -> tensor<64x36xf16> {
        ^bb0(%arg3: f16, %arg4: f16):
          %8 = thread.binary add %arg3, %arg4 : f16
          thread.yield %8 : f16
        }
        block.yield %7 : tensor<64x36xf16>
      }
      block.store %2, %out0 omap <x = 0, y = 1> : tensor<64x36xf16> into tensor<128x2304xf16>
      block.return
    }
    %expanded_0 = tensor.expand_shape %0 [[0], [1, 2]] output_shape [128, 36, 64] : tensor<128x2304xf16> into tensor<128x36x64xf16>
    %1 = kernel.custom(%expanded_0) grid <12, 2, 4> block <128, 1, 1> : (tensor<128x36x64xf16>) -> tensor<128x12x64xf16> {
    ^bb0(%in0: tensor<128x36x64xf16>, %out0: tensor<128x12x64xf16>):
      %2 = block.for_loop 1 iterations accumulate (sum) : tensor<1x64x16xf16> {
        %4 = block.load %in0 window [0, 0, 0] [128, 12, 64] imap <x = 1, y = 0> : tensor<128x36x64xf16> -> tensor<64x1x64xf16>
        %5 = block.transpose %4 [1, 0, 2] : tensor<64x1x64xf16>
        %6 = thread.graph(%5) : (tensor<1x64x64xf16>) -> tensor<1x64x64xf16> {
        ^bb0(%arg3: f16):
          %16 = thread.mul_scalar %arg3, 1.250000e-01 : f16
          thread.yield %16 : f16
        }
        %7 = block.load %in0 window [0, 12, 0] [128, 12, 64] imap <x = 1> : tensor<128x36x64xf16> -> tensor<128x1x64xf16>
        %8 = block.transpose %7 [1, 2, 0] : tensor<128x1x64xf16>
        %9 = block.load %in0 window [0, 24, 0] [128, 12, 64] imap <x = 1, z = 2> : tensor<128x36x64xf16> -> tensor<128x1x16xf16>
        %10 = block.transpose %9 [1, 0, 2] : tensor<128x1x16xf16>
        %11 = block.matmul %6, %8 : tensor<1x64x64xf16>, tensor<1x64x128xf16>
        %12 = thread.graph(%11) : (tensor<1x64x128xf16>) -> tensor<1x64x128xf16> {
        ^bb0(%arg3: f16):
          %16 = thread.unary exp %arg3 : f16
          thread.yield %16 : f16
        }
        %13 = block.matmul %12, %10 : tensor<1x64x128xf16>, tensor<1x128x16xf16>
        %14 = block.reduce_sum %12 dim 2 : tensor<1x64x128xf16>
        %15 = thread.graph(%13, %14) : (tensor<1x64x16xf16>, tensor<1x64x1xf16>) -> tensor<1x64x16xf16> {
        ^bb0(%arg3: f16, %arg4: f16):
          %16 = thread.binary div %arg3, %arg4 : f16
          thread.yield %16 : f16
        }
        block.yield %15 : tensor<1x64x16xf16>
      }
      %3 = block.transpose %2 [1, 0, 2] : tensor<1x64x16xf16>
      block.store %3, %out0 omap <x = 1, y = 0, z = 2> : tensor<64x1x16xf16> into tensor<128x12x64xf16>
      block.return
    }
    %collapsed = tensor.collapse_shape %1 [[0], [1, 2]] : tensor<128x12x64xf16> into tensor<128x768xf16>
    return %collapsed : tensor<128x768xf16>
  }
  func.func private @gpt2_attention_fused_qkv_reference(%arg0: tensor<128x768xf16>, %arg1: tensor<768x2304xf16>, %arg2: tensor<2304xf16>) -> tensor<128x768xf16> {
    %0 = kernel.matmul %arg0, %arg1 : tensor<128x768xf16>, tensor<768x2304xf16>
    %1 = kernel.add %0, %arg2 : tensor<128x2304xf16>, tensor<2304xf16>
    %extracted_slice = tensor.extract_slice %1[0, 0] [128, 768] [1, 1] : tensor<128x2304xf16> to tensor<128x768xf16>
    %extracted_slice_0 = tensor.extract_slice %1[0, 768] [128, 768] [1, 1] : tensor<128x2304xf16> to tensor<128x768xf16>
    %extracted_slice_1 = tensor.extract_slice %1[0, 1536] [128, 768] [1, 1] : tensor<128x2304xf16> to tensor<128x768xf16>
    %expanded = tensor.expand_shape %extracted_slice [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf16> into tensor<128x12x64xf16>
    %expanded_2 = tensor.expand_shape %extracted_slice_0 [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf16> into tensor<128x12x64xf16>
    %expanded_3 = tensor.expand_shape %extracted_slice_1 [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf16> into tensor<128x12x64xf16>
    %2 = kernel.transpose %expanded [1, 0, 2] : tensor<128x12x64xf16>
    %3 = kernel.transpose %expanded_2 [1, 2, 0] : tensor<128x12x64xf16>
    %4 = kernel.transpose %expanded_3 [1, 0, 2] : tensor<128x12x64xf16>
    %5 = kernel.matmul %2, %3 : tensor<12x128x64xf16>, tensor<12x64x128xf16>
    %6 = kernel.mul_scalar %5, 1.250000e-01 : tensor<12x128x128xf16>
    %7 = kernel.exp %6 : tensor<12x128x128xf16>
    %8 = kernel.reduce_sum %7 dim 2 : tensor<12x128x128xf16>
    %9 = kernel.div %7, %8 : tensor<12x128x128xf16>, tensor<12x128x1xf16>
    %10 = kernel.matmul %9, %4 : tensor<12x128x128xf16>, tensor<12x128x64xf16>
    %11 = kernel.transpose %10 [1, 0, 2] : tensor<12x128x64xf16>
    %collapsed = tensor.collapse_shape %11 [[0], [1, 2]] : tensor<128x12x64xf16> into tensor<128x768xf16>
    return %collapsed : tensor<128x768xf16>
  }
}

