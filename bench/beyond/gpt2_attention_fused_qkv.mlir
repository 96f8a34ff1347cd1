// GPT-2 small's attention at 128 tokens as a front end writes it: one
// projection c_attn (with its bias) for q, k and v, split by slices, the
// heads split by views and transposes, softmax(q k^T / 8) v, the heads put
// back. The kernels read q, k and v in place in the projection (block.load
// windows), so the slices cost no copy kernels.

func.func @gpt2_attention_fused_qkv(%x: tensor<128x768xf16>, %w: tensor<768x2304xf16>, %bias: tensor<2304xf16>) -> tensor<128x768xf16> {
  %h0 = kernel.matmul %x, %w : tensor<128x768xf16>, tensor<768x2304xf16>
  %h = kernel.add %h0, %bias : tensor<128x2304xf16>, tensor<2304xf16>
  %q = tensor.extract_slice %h[0, 0] [128, 768] [1, 1] : tensor<128x2304xf16> to tensor<128x768xf16>
  %k = tensor.extract_slice %h[0, 768] [128, 768] [1, 1] : tensor<128x2304xf16> to tensor<128x768xf16>
  %v = tensor.extract_slice %h[0, 1536] [128, 768] [1, 1] : tensor<128x2304xf16> to tensor<128x768xf16>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf16> into tensor<128x12x64xf16>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf16> into tensor<128x12x64xf16>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf16> into tensor<128x12x64xf16>
  %qh = kernel.transpose %q3 [1, 0, 2] : tensor<128x12x64xf16>
  %kh = kernel.transpose %k3 [1, 2, 0] : tensor<128x12x64xf16>
  %vh = kernel.transpose %v3 [1, 0, 2] : tensor<128x12x64xf16>
  %s = kernel.matmul %qh, %kh : tensor<12x128x64xf16>, tensor<12x64x128xf16>
  %ss = kernel.mul_scalar %s, 0.125 : tensor<12x128x128xf16>
  %e = kernel.exp %ss : tensor<12x128x128xf16>
  %z = kernel.reduce_sum %e dim 2 : tensor<12x128x128xf16>
  %p = kernel.div %e, %z : tensor<12x128x128xf16>, tensor<12x128x1xf16>
  %o = kernel.matmul %p, %vh : tensor<12x128x128xf16>, tensor<12x128x64xf16>
  %ot = kernel.transpose %o [1, 0, 2] : tensor<12x128x64xf16>
  %oc = tensor.collapse_shape %ot [[0], [1, 2]] : tensor<128x12x64xf16> into tensor<128x768xf16>
  return %oc : tensor<128x768xf16>
}
