module {
  func.func @gated_mlp_fused_gate_up(%arg0: tensor<8x3072xf16>, %arg1: tensor<3072x16384xf16>, %arg2: tensor<8192x3072xf16>) -> tensor<8x3072xf16> attributes {mlsopt.equivalent_to = @gated_mlp_fused_gate_up_reference} {
    %0 = kernel.matmul %arg0, %arg1 : tensor<8x3072xf16>, tensor<3072x16384xf16>
    %1 = kernel.custom(%0, %arg2) grid <2, 64, 1> block <128, 1, 1> : (tensor<8x16384xf16>, tensor<8192x3072xf16>) -> tensor<8x3072xf16> {
    ^bb0(%in0: tensor<8x16384xf16>, %in1: tensor<8192x3072xf16>, %out0: tensor<8x3072xf16>):
      %2 = block.for_loop 16 iterations accumulate (sum) : tensor<4x48xf16> {
        %3 = block.load %in0 window [0, 0] [8, 8192] imap <x = 0> fmap 1 : tensor<8x16384xf16> -> tensor<4x512xf16>
        %4 = block.load %in0 window [0, 8192] [8, 8192] imap <x = 0> fmap 1 : tensor<8x16384xf16> -> tensor<4x512xf16>
        %5 = block.load %in1 imap <y = 1> fmap 0 : tensor<8192x3072xf16> -> tensor<512x48xf16>
        %6 = thread.graph(%3, %4) : (tensor<4x512xf16>, tensor<4x512xf16>) -> tensor<4x512xf16> {
        ^bb0(%arg3: f16, %arg4: f16):
          %8 = thread.unary silu %arg3 : f16
          %9 = thread.binary mul %arg4, %8 : f16
          thread.yield %9 : f16
        }
        %7 = block.matmul %6, %5 : tensor<4x512xf16>, tensor<512x48xf16>
        block.yield %7 : tensor<4x48xf16>
      }
      block.store %2, %out0 omap <x = 0, y = 1> : tensor<4x48xf16> into tensor<8x3072xf16>
      block.return
    }
    return %1 : tensor<8x3072xf16>
  }
  func.func private @gated_mlp_fused_gate_up_reference(%arg0: tensor<8x3072xf16>, %arg1: tensor<3072x16384xf16>, %arg2: tensor<8192x3072xf16>) -> tensor<8x3072xf16> {
    %0 = kernel.matmul %arg0, %arg1 : tensor<8x3072xf16>, tensor<3072x16384xf16>
    %extracted_slice = tensor.extract_slice %0[0, 0] [8, 8192] [1, 1] : tensor<8x16384xf16> to tensor<8x8192xf16>
    %extracted_slice_0 = tensor.extract_slice %0[0, 8192] [8, 8192] [1, 1] : tensor<8x16384xf16> to tensor<8x8192xf16>
    %1 = kernel.silu %extracted_slice : tensor<8x8192xf16>
    %2 = kernel.mul %1, %extracted_slice_0 : tensor<8x8192xf16>, tensor<8x8192xf16>
    %3 = kernel.matmul %2, %arg2 : tensor<8x8192xf16>, tensor<8192x3072xf16>
    return %3 : tensor<8x3072xf16>
  }
}

