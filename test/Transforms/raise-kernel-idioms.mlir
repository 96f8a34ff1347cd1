// RUN: mlsopt-opt %s --raise-kernel-idioms | FileCheck %s

// RMSNorm as front ends spell it, over the last dim: one rms_norm that
// prints no dim.
// CHECK-LABEL: func.func @last_dim
// CHECK-SAME: (%[[Q:.*]]: tensor<2x256x64xf16>)
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %[[Q]] {epsilon = 9.9999999999999995E-7 : f64} : tensor<2x256x64xf16>
// CHECK-NEXT: return %[[N]]
func.func @last_dim(%q: tensor<2x256x64xf16>) -> tensor<2x256x64xf16> {
  %sq = kernel.square %q : tensor<2x256x64xf16>
  %ss = kernel.reduce_sum %sq dim 2 : tensor<2x256x64xf16>
  %ms = kernel.mul_scalar %ss, 1.562500e-02 : tensor<2x256x1xf16>
  %me = kernel.add_scalar %ms, 1.0e-06 : tensor<2x256x1xf16>
  %r = kernel.rsqrt %me : tensor<2x256x1xf16>
  %n = kernel.mul %q, %r : tensor<2x256x64xf16>, tensor<2x256x1xf16>
  return %n : tensor<2x256x64xf16>
}

// A key stored transposed, [h, d, n], normalized over d = dim 1 (the
// factor 1/64 is for dim 1's extent), the scale on the left.
// CHECK-LABEL: func.func @dim1
// CHECK-SAME: (%[[K:.*]]: tensor<2x64x4096xf16>)
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %[[K]] dim 1 {epsilon = 9.9999999999999995E-7 : f64} : tensor<2x64x4096xf16>
// CHECK-NEXT: return %[[N]]
func.func @dim1(%k: tensor<2x64x4096xf16>) -> tensor<2x64x4096xf16> {
  %sq = kernel.square %k : tensor<2x64x4096xf16>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<2x64x4096xf16>
  %ms = kernel.mul_scalar %ss, 1.562500e-02 : tensor<2x1x4096xf16>
  %me = kernel.add_scalar %ms, 1.0e-06 : tensor<2x1x4096xf16>
  %r = kernel.rsqrt %me : tensor<2x1x4096xf16>
  %n = kernel.mul %r, %k : tensor<2x1x4096xf16>, tensor<2x64x4096xf16>
  return %n : tensor<2x64x4096xf16>
}

// x / sqrt(...) over dim 0.
// CHECK-LABEL: func.func @div_dim0
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %[[X]] dim 0 {epsilon = 2.500000e-01 : f64} : tensor<8x16xf32>
// CHECK-NEXT: return %[[N]]
func.func @div_dim0(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %sq = kernel.square %x : tensor<8x16xf32>
  %ss = kernel.reduce_sum %sq dim 0 : tensor<8x16xf32>
  %ms = kernel.mul_scalar %ss, 1.250000e-01 : tensor<1x16xf32>
  %me = kernel.add_scalar %ms, 2.500000e-01 : tensor<1x16xf32>
  %r = kernel.sqrt %me : tensor<1x16xf32>
  %n = kernel.div %x, %r : tensor<8x16xf32>, tensor<1x16xf32>
  return %n : tensor<8x16xf32>
}

// Not a mean over the summed dim: the factor is 1/16 (dim 1's extent) but
// the sum is over dim 0 (extent 8). Nothing is raised.
// CHECK-LABEL: func.func @factor_of_other_dim
// CHECK-NOT: kernel.rms_norm
// CHECK: kernel.mul_scalar %{{.*}}, 6.250000e-02
// CHECK-NOT: kernel.rms_norm
// CHECK: return
func.func @factor_of_other_dim(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %sq = kernel.square %x : tensor<8x16xf32>
  %ss = kernel.reduce_sum %sq dim 0 : tensor<8x16xf32>
  %ms = kernel.mul_scalar %ss, 6.250000e-02 : tensor<1x16xf32>
  %me = kernel.add_scalar %ms, 2.500000e-01 : tensor<1x16xf32>
  %r = kernel.rsqrt %me : tensor<1x16xf32>
  %n = kernel.mul %x, %r : tensor<8x16xf32>, tensor<1x16xf32>
  return %n : tensor<8x16xf32>
}

// A mean over 80 elements, whose factor 1/80 the front end rounded to f32
// (0.0125 is no dyadic rational): raised, as the verifier reads the factor
// as 1/80 too.
// CHECK-LABEL: func.func @rounded_reciprocal
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %{{.*}} {epsilon = 9.9999999747524271E-7 : f64} : tensor<12x80xf32>
// CHECK-NEXT: return %[[N]]
func.func @rounded_reciprocal(%x: tensor<12x80xf32>) -> tensor<12x80xf32> {
  %sq = kernel.square %x : tensor<12x80xf32>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<12x80xf32>
  %ms = kernel.mul_scalar %ss, 0.012500000186264515 : tensor<12x1xf32>
  %me = kernel.add_scalar %ms, 9.9999999747524271E-7 : tensor<12x1xf32>
  %r = kernel.rsqrt %me : tensor<12x1xf32>
  %n = kernel.mul %x, %r : tensor<12x80xf32>, tensor<12x1xf32>
  return %n : tensor<12x80xf32>
}

// A factor within 1e-3 of 1/80 that is no rounding of it is not a mean:
// nothing is raised.
// CHECK-LABEL: func.func @near_reciprocal
// CHECK-NOT: kernel.rms_norm
// CHECK: return
func.func @near_reciprocal(%x: tensor<12x80xf32>) -> tensor<12x80xf32> {
  %sq = kernel.square %x : tensor<12x80xf32>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<12x80xf32>
  %ms = kernel.mul_scalar %ss, 0.012505 : tensor<12x1xf32>
  %me = kernel.add_scalar %ms, 9.9999999747524271E-7 : tensor<12x1xf32>
  %r = kernel.rsqrt %me : tensor<12x1xf32>
  %n = kernel.mul %x, %r : tensor<12x80xf32>, tensor<12x1xf32>
  return %n : tensor<12x80xf32>
}

// Attention's scale on the scores moves to the smaller operand of Q K: Q.
// CHECK-LABEL: func.func @scaled_scores
// CHECK-SAME: (%[[Q:.*]]: tensor<2x256x64xf16>, %[[K:.*]]: tensor<2x64x4096xf16>)
// CHECK-NEXT: %[[S:.*]] = kernel.mul_scalar %[[Q]], 1.250000e-01 : tensor<2x256x64xf16>
// CHECK-NEXT: %[[P:.*]] = kernel.matmul %[[S]], %[[K]]
// CHECK-NEXT: return %[[P]]
func.func @scaled_scores(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>) -> tensor<2x256x4096xf16> {
  %s = kernel.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %t = kernel.mul_scalar %s, 0.125 : tensor<2x256x4096xf16>
  return %t : tensor<2x256x4096xf16>
}

// The right operand when it is the smaller one.
// CHECK-LABEL: func.func @scaled_right
// CHECK-SAME: (%[[X:.*]]: tensor<256x16xf32>, %[[W:.*]]: tensor<16x8xf32>)
// CHECK-NEXT: %[[S:.*]] = kernel.mul_scalar %[[W]], 2.000000e+00 : tensor<16x8xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.matmul %[[X]], %[[S]]
// CHECK-NEXT: return %[[P]]
func.func @scaled_right(%x: tensor<256x16xf32>, %w: tensor<16x8xf32>) -> tensor<256x8xf32> {
  %s = kernel.matmul %x, %w : tensor<256x16xf32>, tensor<16x8xf32>
  %t = kernel.mul_scalar %s, 2.0 : tensor<256x8xf32>
  return %t : tensor<256x8xf32>
}

// No operand smaller than the product (a reduction to a small result), or
// a product read elsewhere too: the scale stays where it is.
// CHECK-LABEL: func.func @no_smaller_operand
// CHECK: %[[P:.*]] = kernel.matmul
// CHECK-NEXT: kernel.mul_scalar %[[P]]
// CHECK-LABEL: func.func @product_read_twice
// CHECK: %[[P:.*]] = kernel.matmul
// CHECK-NEXT: kernel.mul_scalar %[[P]]
func.func @no_smaller_operand(%x: tensor<16x512xf32>, %w: tensor<512x16xf32>) -> tensor<16x16xf32> {
  %s = kernel.matmul %x, %w : tensor<16x512xf32>, tensor<512x16xf32>
  %t = kernel.mul_scalar %s, 2.0 : tensor<16x16xf32>
  return %t : tensor<16x16xf32>
}
func.func @product_read_twice(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>) -> (tensor<2x256x4096xf16>, tensor<2x256x4096xf16>) {
  %s = kernel.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %t = kernel.mul_scalar %s, 0.125 : tensor<2x256x4096xf16>
  return %s, %t : tensor<2x256x4096xf16>, tensor<2x256x4096xf16>
}

// A matmul over one element is the outer product, a broadcast mul (also
// batched); over more it stays.
// CHECK-LABEL: func.func @outer_product
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3x1xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<1x24xf32>, %[[C:[a-zA-Z0-9_]+]]: tensor<2x3x1xf16>, %[[D:[a-zA-Z0-9_]+]]: tensor<2x1x5xf16>, %[[E:[a-zA-Z0-9_]+]]: tensor<3x2xf32>, %[[F:[a-zA-Z0-9_]+]]: tensor<2x24xf32>)
// CHECK-NEXT: kernel.mul %[[A]], %[[B]] : tensor<3x1xf32>, tensor<1x24xf32>
// CHECK-NEXT: kernel.mul %[[C]], %[[D]] : tensor<2x3x1xf16>, tensor<2x1x5xf16>
// CHECK-NEXT: kernel.matmul %[[E]], %[[F]]
func.func @outer_product(%a: tensor<3x1xf32>, %b: tensor<1x24xf32>, %c: tensor<2x3x1xf16>, %d: tensor<2x1x5xf16>, %e: tensor<3x2xf32>, %f: tensor<2x24xf32>) -> (tensor<3x24xf32>, tensor<2x3x5xf16>, tensor<3x24xf32>) {
  %0 = kernel.matmul %a, %b : tensor<3x1xf32>, tensor<1x24xf32>
  %1 = kernel.matmul %c, %d : tensor<2x3x1xf16>, tensor<2x1x5xf16>
  %2 = kernel.matmul %e, %f : tensor<3x2xf32>, tensor<2x24xf32>
  return %0, %1, %2 : tensor<3x24xf32>, tensor<2x3x5xf16>, tensor<3x24xf32>
}

// A reduction over one element is its operand.
// CHECK-LABEL: func.func @reduce_over_one
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<4x10x1xf16>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @reduce_over_one(%x: tensor<4x10x1xf16>) -> (tensor<4x10x1xf16>, tensor<4x10x1xf16>) {
  %s = kernel.reduce_sum %x dim 2 : tensor<4x10x1xf16>
  %m = kernel.reduce_max %x dim 2 : tensor<4x10x1xf16>
  return %s, %m : tensor<4x10x1xf16>, tensor<4x10x1xf16>
}

// Hugging Face's LLaMA norm in bf16: widened to f32, normalized, rounded
// back, times the bf16 gain. The narrow rms_norm is the same function with
// the same one rounding.
// CHECK-LABEL: func.func @widened_norm
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<16x2048xbf16>, %[[G:[a-zA-Z0-9_]+]]: tensor<2048xbf16>)
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %[[X]] {epsilon = 9.9999999747524271E-7 : f64} : tensor<16x2048xbf16>
// CHECK-NEXT: %[[Y:.*]] = kernel.mul %[[G]], %[[N]]
// CHECK-NEXT: return %[[Y]]
func.func @widened_norm(%x: tensor<16x2048xbf16>, %g: tensor<2048xbf16>) -> tensor<16x2048xbf16> {
  %xf = kernel.convert %x : tensor<16x2048xbf16> to tensor<16x2048xf32>
  %sq = kernel.square %xf : tensor<16x2048xf32>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<16x2048xf32>
  %ms = kernel.mul_scalar %ss, 4.8828125E-4 : tensor<16x1xf32>
  %me = kernel.add_scalar %ms, 9.9999999747524271E-7 : tensor<16x1xf32>
  %r = kernel.rsqrt %me : tensor<16x1xf32>
  %n = kernel.mul %xf, %r : tensor<16x2048xf32>, tensor<16x1xf32>
  %nb = kernel.convert %n : tensor<16x2048xf32> to tensor<16x2048xbf16>
  %y = kernel.mul %g, %nb : tensor<2048xbf16>, tensor<16x2048xbf16>
  return %y : tensor<16x2048xbf16>
}

// The widened norm returned in f32 as well stays widened: its f32 values
// are read.
// CHECK-LABEL: func.func @widened_norm_read_in_f32
// CHECK: kernel.convert %{{.*}} : tensor<16x2048xbf16> to tensor<16x2048xf32>
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %{{.*}} : tensor<16x2048xf32>
// CHECK-NEXT: kernel.convert %[[N]] : tensor<16x2048xf32> to tensor<16x2048xbf16>
func.func @widened_norm_read_in_f32(%x: tensor<16x2048xbf16>) -> (tensor<16x2048xbf16>, tensor<16x2048xf32>) {
  %xf = kernel.convert %x : tensor<16x2048xbf16> to tensor<16x2048xf32>
  %n = kernel.rms_norm %xf {epsilon = 1.0e-05 : f64} : tensor<16x2048xf32>
  %nb = kernel.convert %n : tensor<16x2048xf32> to tensor<16x2048xbf16>
  return %nb, %n : tensor<16x2048xbf16>, tensor<16x2048xf32>
}

// The other way round, an f32 row rounded to f16, normalized and widened
// back, keeps both roundings: it is no widened norm.
// CHECK-LABEL: func.func @rounded_norm_widened
// CHECK: kernel.convert %{{.*}} : tensor<16x128xf32> to tensor<16x128xf16>
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %{{.*}} : tensor<16x128xf16>
// CHECK-NEXT: kernel.convert %[[N]] : tensor<16x128xf16> to tensor<16x128xf32>
func.func @rounded_norm_widened(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %xh = kernel.convert %x : tensor<16x128xf32> to tensor<16x128xf16>
  %n = kernel.rms_norm %xh {epsilon = 1.0e-05 : f64} : tensor<16x128xf16>
  %o = kernel.convert %n : tensor<16x128xf16> to tensor<16x128xf32>
  return %o : tensor<16x128xf32>
}

// A LayerNorm with its variance in one pass, E[x^2] - E[x]^2 (the centred
// x computed after it): the variance becomes the two-pass one on that
// centred x, moved before it, and the norm an rms_norm of the centred x.
// CHECK-LABEL: func.func @one_pass_variance
// CHECK-SAME: (%[[X:.*]]: tensor<32x256xf32>)
// CHECK-NEXT: %[[S:.*]] = kernel.reduce_sum %[[X]] dim 1
// CHECK-NEXT: %[[M:.*]] = kernel.mul_scalar %[[S]], 3.906250e-03
// CHECK-NEXT: %[[C:.*]] = kernel.sub %[[X]], %[[M]]
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %[[C]] {epsilon = 9.9999997400000002E-6 : f64} : tensor<32x256xf32>
// CHECK-NEXT: return %[[N]]
func.func @one_pass_variance(%x: tensor<32x256xf32>) -> tensor<32x256xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<32x256xf32>
  %sq = kernel.square %x : tensor<32x256xf32>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<32x256xf32>
  %m = kernel.mul_scalar %s, 3.906250e-03 : tensor<32x1xf32>
  %m2 = kernel.mul_scalar %ss, 3.906250e-03 : tensor<32x1xf32>
  %mm = kernel.square %m : tensor<32x1xf32>
  %v = kernel.sub %m2, %mm : tensor<32x1xf32>, tensor<32x1xf32>
  %ve = kernel.add_scalar %v, 9.99999974E-6 : tensor<32x1xf32>
  %r = kernel.rsqrt %ve : tensor<32x1xf32>
  %c = kernel.sub %x, %m : tensor<32x256xf32>, tensor<32x1xf32>
  %n = kernel.mul %c, %r : tensor<32x256xf32>, tensor<32x1xf32>
  return %n : tensor<32x256xf32>
}

// The same with a mean of another extent: no variance, left as it is.
// CHECK-LABEL: func.func @not_a_variance
// CHECK: kernel.sub %{{.*}}, %{{.*}} : tensor<32x1xf32>, tensor<32x1xf32>
// CHECK-NOT: kernel.rms_norm
func.func @not_a_variance(%x: tensor<32x256xf32>) -> tensor<32x256xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<32x256xf32>
  %sq = kernel.square %x : tensor<32x256xf32>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<32x256xf32>
  %m = kernel.mul_scalar %s, 3.906250e-03 : tensor<32x1xf32>
  %m2 = kernel.mul_scalar %ss, 0.5 : tensor<32x1xf32>
  %mm = kernel.square %m : tensor<32x1xf32>
  %v = kernel.sub %m2, %mm : tensor<32x1xf32>, tensor<32x1xf32>
  %ve = kernel.add_scalar %v, 9.99999974E-6 : tensor<32x1xf32>
  %r = kernel.rsqrt %ve : tensor<32x1xf32>
  %c = kernel.sub %x, %m : tensor<32x256xf32>, tensor<32x1xf32>
  %n = kernel.mul %c, %r : tensor<32x256xf32>, tensor<32x1xf32>
  return %n : tensor<32x256xf32>
}

// A softmax over a tensor's columns whose transpose a matmul reads
// (efficient attention's softmax(k, dim=-2)^T v): the transpose moves onto
// the argument and the softmax reduces over the dim the permutation puts
// dim 0 in; both ops of the chain that read the exp read it transposed.
// CHECK-LABEL: func.func @column_softmax
// CHECK-SAME: (%[[K:.*]]: tensor<128x64xf32>, %[[V:.*]]: tensor<128x32xf32>)
// CHECK-NEXT: %[[T:.*]] = kernel.transpose %[[K]] [1, 0] : tensor<128x64xf32>
// CHECK-NEXT: %[[M:.*]] = kernel.reduce_max %[[T]] dim 1 : tensor<64x128xf32>
// CHECK-NEXT: %[[S:.*]] = kernel.sub %[[T]], %[[M]] : tensor<64x128xf32>, tensor<64x1xf32>
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[S]] : tensor<64x128xf32>
// CHECK-NEXT: %[[Z:.*]] = kernel.reduce_sum %[[E]] dim 1 : tensor<64x128xf32>
// CHECK-NEXT: %[[P:.*]] = kernel.div %[[E]], %[[Z]] : tensor<64x128xf32>, tensor<64x1xf32>
// CHECK-NEXT: %[[O:.*]] = kernel.matmul %[[P]], %[[V]]
// CHECK-NEXT: return %[[O]]
func.func @column_softmax(%k: tensor<128x64xf32>, %v: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %m = kernel.reduce_max %k dim 0 : tensor<128x64xf32>
  %s = kernel.sub %k, %m : tensor<128x64xf32>, tensor<1x64xf32>
  %e = kernel.exp %s : tensor<128x64xf32>
  %z = kernel.reduce_sum %e dim 0 : tensor<128x64xf32>
  %p = kernel.div %e, %z : tensor<128x64xf32>, tensor<1x64xf32>
  %t = kernel.transpose %p [1, 0] : tensor<128x64xf32>
  %o = kernel.matmul %t, %v : tensor<64x128xf32>, tensor<128x32xf32>
  return %o : tensor<64x32xf32>
}

// rms_norm's dim follows the permutation (and is left out where it becomes
// the last); a constant operand is transposed where it is.
// CHECK-LABEL: func.func @norm_then_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x8xf32>)
// CHECK-NEXT: %[[C:.*]] = arith.constant
// CHECK-NEXT: %[[T:.*]] = kernel.transpose %[[X]] [0, 2, 1] : tensor<2x16x8xf32>
// CHECK-NEXT: %[[TC:.*]] = kernel.transpose %[[C]] [0, 2, 1] : tensor<1x16x1xf32>
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %[[T]] dim 1 : tensor<2x8x16xf32>
// CHECK-NEXT: %[[G:.*]] = kernel.mul %[[N]], %[[TC]] : tensor<2x8x16xf32>, tensor<1x1x16xf32>
// CHECK-NEXT: %[[N2:.*]] = kernel.rms_norm %[[G]] : tensor<2x8x16xf32>
// CHECK-NEXT: return %[[N2]]
func.func @norm_then_transpose(%x: tensor<2x16x8xf32>) -> tensor<2x8x16xf32> {
  %c = arith.constant dense<2.0> : tensor<1x16x1xf32>
  %n = kernel.rms_norm %x : tensor<2x16x8xf32>
  %g = kernel.mul %n, %c : tensor<2x16x8xf32>, tensor<1x16x1xf32>
  %n2 = kernel.rms_norm %g dim 1 : tensor<2x16x8xf32>
  %t = kernel.transpose %n2 [0, 2, 1] : tensor<2x16x8xf32>
  return %t : tensor<2x8x16xf32>
}

// Left where it is: above a matmul (a transpose between the product and its
// epilogue would part them), and where a value above is also read in its
// own layout.
// CHECK-LABEL: func.func @transposes_that_stay
// CHECK: %[[P:.*]] = kernel.matmul
// CHECK-NEXT: %[[G:.*]] = kernel.gelu %[[P]]
// CHECK-NEXT: kernel.transpose %[[G]] [1, 0]
// CHECK: %[[E:.*]] = kernel.exp %arg0
// CHECK-NEXT: kernel.transpose %[[E]] [1, 0]
// CHECK-NEXT: return
func.func @transposes_that_stay(%x: tensor<16x32xf32>, %w: tensor<32x64xf32>) -> (tensor<64x16xf32>, tensor<32x16xf32>, tensor<16x32xf32>) {
  %p = kernel.matmul %x, %w : tensor<16x32xf32>, tensor<32x64xf32>
  %g = kernel.gelu %p : tensor<16x64xf32>
  %t = kernel.transpose %g [1, 0] : tensor<16x64xf32>
  %e = kernel.exp %x : tensor<16x32xf32>
  %te = kernel.transpose %e [1, 0] : tensor<16x32xf32>
  return %t, %te, %e : tensor<64x16xf32>, tensor<32x16xf32>, tensor<16x32xf32>
}

// A LayerNorm whose variance squares by a multiply (StableHLO's
// `multiply(d, d)`): the product of a value with itself is its square, and
// the norm of the centred rows is raised as with a square.
// CHECK-LABEL: func.func @variance_by_multiply
// CHECK-SAME: (%[[X:.*]]: tensor<6x80xf32>)
// CHECK-NOT: kernel.mul %
// CHECK: %[[C:.*]] = kernel.sub %[[X]], %{{.*}} : tensor<6x80xf32>, tensor<6x1xf32>
// CHECK-NEXT: %[[N:.*]] = kernel.rms_norm %[[C]] {epsilon = 9.9999997473787516E-6 : f64} : tensor<6x80xf32>
// CHECK-NEXT: return %[[N]]
func.func @variance_by_multiply(%x: tensor<6x80xf32>) -> tensor<6x80xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<6x80xf32>
  %m = kernel.mul_scalar %s, 0.012500000186264515 : tensor<6x1xf32>
  %c = kernel.sub %x, %m : tensor<6x80xf32>, tensor<6x1xf32>
  %sq = kernel.mul %c, %c : tensor<6x80xf32>, tensor<6x80xf32>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<6x80xf32>
  %v = kernel.mul_scalar %ss, 0.012500000186264515 : tensor<6x1xf32>
  %e = kernel.add_scalar %v, 9.9999997473787516E-6 : tensor<6x1xf32>
  %r = kernel.rsqrt %e : tensor<6x1xf32>
  %n = kernel.mul %c, %r : tensor<6x80xf32>, tensor<6x1xf32>
  return %n : tensor<6x80xf32>
}
