// RUN: mlsopt-opt %s -split-input-file -verify-diagnostics

// Shape rules (inferred at parse time, reported at the op).

func.func @matmul_contraction(%a: tensor<8x64xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{matmul contraction dims differ: 8x64 x 32x64 needs the last dim of the left operand (64) to equal the second-to-last dim of the right operand (32)}}
  %0 = kernel.matmul %a, %b : tensor<8x64xf16>, tensor<32x64xf16>
  return
}

// -----

func.func @matmul_rank1(%a: tensor<64xf16>, %b: tensor<64x8xf16>) {
  // expected-error @+1 {{matmul operands must have rank 2 or more, got shapes 64 and 64x8}}
  %0 = kernel.matmul %a, %b : tensor<64xf16>, tensor<64x8xf16>
  return
}

// -----

func.func @matmul_rank_mismatch(%a: tensor<2x8x64xf16>, %b: tensor<64x8xf16>) {
  // expected-error @+1 {{matmul operands must have the same rank, got shapes 2x8x64 and 64x8}}
  %0 = kernel.matmul %a, %b : tensor<2x8x64xf16>, tensor<64x8xf16>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x3x8x64xbf16>, %b: tensor<2x4x64x8xbf16>) {
  // expected-error @+1 {{matmul batch dim 1 differs: 3 vs 4; leading dims must be equal}}
  %0 = kernel.matmul %a, %b : tensor<2x3x8x64xbf16>, tensor<2x4x64x8xbf16>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<8x64xf16>, %b: tensor<64x8xf32>) {
  // expected-error @+1 {{operands must have one element type, got 'f16' and 'f32'}}
  %0 = kernel.matmul %a, %b : tensor<8x64xf16>, tensor<64x8xf32>
  return
}

// -----

func.func @binary_no_broadcast(%a: tensor<8x64xf16>, %b: tensor<4x64xf16>) {
  // expected-error @+1 {{shapes 8x64 and 4x64 do not broadcast: dim 0 has sizes 8 and 4; sizes must be equal or one of them 1}}
  %0 = kernel.add %a, %b : tensor<8x64xf16>, tensor<4x64xf16>
  return
}

// -----

func.func @binary_no_broadcast_rank_extension(%a: tensor<8x64xf32>, %b: tensor<2x1x32xf32>) {
  // expected-error @+1 {{shapes 8x64 and 2x1x32 do not broadcast: dim 2 has sizes 64 and 32}}
  %0 = kernel.div %a, %b : tensor<8x64xf32>, tensor<2x1x32xf32>
  return
}

// -----

func.func @binary_element_types(%a: tensor<8x64xbf16>, %b: tensor<8x64xf16>) {
  // expected-error @+1 {{operands must have one element type, got 'bf16' and 'f16'}}
  %0 = kernel.sub %a, %b : tensor<8x64xbf16>, tensor<8x64xf16>
  return
}

// -----

func.func @reduce_dim_out_of_range(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{reduction dim 2 is out of range for rank 2}}
  %0 = kernel.reduce_sum %a dim 2 : tensor<8x64xf16>
  return
}

// -----

func.func @reduce_dim_negative(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{reduction dim -1 is out of range for rank 2}}
  %0 = kernel.reduce_max %a dim -1 : tensor<8x64xf16>
  return
}

// -----

func.func @concat_dim_out_of_range(%a: tensor<8x64xf16>, %b: tensor<8x32xf16>) {
  // expected-error @+1 {{concat dim 2 is out of range for rank 2}}
  %0 = kernel.concat %a, %b dim 2 : tensor<8x64xf16>, tensor<8x32xf16>
  return
}

// -----

func.func @concat_other_dim_mismatch(%a: tensor<8x64xf16>, %b: tensor<8x32xf16>) {
  // expected-error @+1 {{concat operands must agree on every dim but 0, got shapes 8x64 and 8x32}}
  %0 = kernel.concat %a, %b dim 0 : tensor<8x64xf16>, tensor<8x32xf16>
  return
}

// -----

func.func @concat_rank_mismatch(%a: tensor<8x64xf16>, %b: tensor<2x8x32xf16>) {
  // expected-error @+1 {{concat operands must have the same rank, got shapes 8x64 and 2x8x32}}
  %0 = kernel.concat %a, %b dim 1 : tensor<8x64xf16>, tensor<2x8x32xf16>
  return
}

// -----

func.func @concat_element_types(%a: tensor<8x64xf16>, %b: tensor<8x32xbf16>) {
  // expected-error @+1 {{operands must have one element type, got 'f16' and 'bf16'}}
  %0 = kernel.concat %a, %b dim 1 : tensor<8x64xf16>, tensor<8x32xbf16>
  return
}

// -----

func.func @concat_no_operands() {
  // expected-error @+2 {{concat needs at least one operand}}
  // expected-error @+1 {{'kernel.concat' op failed to infer returned types}}
  %0 = "kernel.concat"() <{dim = 0 : i64}> : () -> tensor<8xf16>
  return
}

// -----

func.func @transpose_wrong_length(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{permutation has 3 entries but the operand has rank 2}}
  %0 = kernel.transpose %a [0, 1, 2] : tensor<8x64xf16>
  return
}

// -----

func.func @transpose_repeated_dim(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{[1, 1] is not a permutation of the dims 0..1}}
  %0 = kernel.transpose %a [1, 1] : tensor<8x64xf16>
  return
}

// -----

func.func @transpose_dim_out_of_range(%a: tensor<2x8x64xf16>) {
  // expected-error @+1 {{[0, 3, 1] is not a permutation of the dims 0..2}}
  %0 = kernel.transpose %a [0, 3, 1] : tensor<2x8x64xf16>
  return
}

// -----

func.func @transpose_negative_dim(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{[-1, 0] is not a permutation of the dims 0..1}}
  %0 = kernel.transpose %a [-1, 0] : tensor<8x64xf16>
  return
}

// -----

// Operand types: static tensors of f16, bf16 or f32.

func.func @dynamic_shape(%a: tensor<?x64xf16>) {
  // expected-error @+1 {{expected a statically shaped tensor, got 'tensor<?x64xf16>'}}
  %0 = kernel.exp %a : tensor<?x64xf16>
  return
}

// -----

func.func @dynamic_shape_second_operand(%a: tensor<8x64xf16>, %b: tensor<8x?xf16>) {
  // expected-error @+1 {{expected a statically shaped tensor, got 'tensor<8x?xf16>'}}
  %0 = kernel.mul %a, %b : tensor<8x64xf16>, tensor<8x?xf16>
  return
}

// -----

func.func @integer_element_type(%a: tensor<8x64xi32>) {
  // expected-error @+1 {{element type 'i32' is not supported; use f16, bf16 or f32}}
  %0 = kernel.relu %a : tensor<8x64xi32>
  return
}

// -----

func.func @f64_element_type(%a: tensor<8x64xf64>) {
  // expected-error @+1 {{element type 'f64' is not supported; use f16, bf16 or f32}}
  %0 = kernel.rms_norm %a : tensor<8x64xf64>
  return
}

// -----

func.func @unranked(%a: tensor<*xf16>) {
  // expected-error @+1 {{invalid kind of type specified}}
  %0 = kernel.tanh %a : tensor<*xf16>
  return
}

// -----

// The generic form spells the result type; it must be the inferred one and
// satisfy the ODS constraints.

func.func @generic_wrong_result_shape(%a: tensor<8x64xf16>) {
  // expected-error @+2 {{'kernel.exp' op inferred type(s) 'tensor<8x64xf16>' are incompatible with return type(s) of operation 'tensor<8x32xf16>'}}
  // expected-error @+1 {{'kernel.exp' op failed to infer returned types}}
  %0 = "kernel.exp"(%a) : (tensor<8x64xf16>) -> tensor<8x32xf16>
  return
}

// -----

func.func @generic_wrong_result_element_type(%a: tensor<8x64xf16>, %b: tensor<64x8xf16>) {
  // expected-error @+2 {{'kernel.matmul' op inferred type(s) 'tensor<8x8xf16>' are incompatible with return type(s) of operation 'tensor<8x8xf32>'}}
  // expected-error @+1 {{'kernel.matmul' op failed to infer returned types}}
  %0 = "kernel.matmul"(%a, %b) : (tensor<8x64xf16>, tensor<64x8xf16>) -> tensor<8x8xf32>
  return
}

// -----

func.func @generic_dynamic_operand(%a: tensor<?x64xf16>) {
  // expected-error @+1 {{'kernel.exp' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<?x64xf16>'}}
  %0 = "kernel.exp"(%a) : (tensor<?x64xf16>) -> tensor<8x64xf16>
  return
}

// -----

func.func @generic_integer_operand(%a: tensor<8x64xi32>) {
  // expected-error @+1 {{'kernel.neg' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<8x64xi32>'}}
  %0 = "kernel.neg"(%a) : (tensor<8x64xi32>) -> tensor<8x64xi32>
  return
}

// -----

func.func @generic_integer_result(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{'kernel.exp' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<8x64xi32>'}}
  %0 = "kernel.exp"(%a) : (tensor<8x64xf16>) -> tensor<8x64xi32>
  return
}

// -----

func.func @generic_missing_dim(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{'kernel.reduce_sum' op requires attribute 'dim'}}
  %0 = "kernel.reduce_sum"(%a) : (tensor<8x64xf16>) -> tensor<8x1xf16>
  return
}

// -----

func.func @generic_missing_permutation(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{'kernel.transpose' op requires attribute 'permutation'}}
  %0 = "kernel.transpose"(%a) : (tensor<8x64xf16>) -> tensor<64x8xf16>
  return
}

// -----

func.func @generic_f32_scalar(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{'kernel.add_scalar' op attribute 'scalar' failed to satisfy constraint: 64-bit float attribute}}
  %0 = "kernel.add_scalar"(%a) <{scalar = 1.0 : f32}> : (tensor<8x64xf16>) -> tensor<8x64xf16>
  return
}

// -----

func.func @integer_epsilon(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{attribute 'epsilon' failed to satisfy constraint: 64-bit float attribute}}
  %0 = kernel.rms_norm %a {epsilon = 1} : tensor<8x64xf16>
  return
}

// -----

func.func @integer_scalar(%a: tensor<8x64xf16>) {
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %0 = kernel.mul_scalar %a, 2 : tensor<8x64xf16>
  return
}

// -----

// Custom kernels.

func.func @grid_not_positive(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{dim3 sizes must be positive, got <0, 1, 1>}}
  %o = kernel.custom (%x) grid <0, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @block_negative(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{dim3 sizes must be positive, got <128, 1, -2>}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, -2>
      : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

// expected-error @+1 {{dim3 sizes must be positive, got <4, 0, 1>}}
func.func @dim3_attribute() attributes {grid = #kernel.dim3<4, 0, 1>} {
  return
}

// -----

func.func @no_outputs(%x: tensor<8x64xf16>) {
  // expected-error @+1 {{'kernel.custom' op must have at least one output}}
  kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> () {
  ^bb0(%in0: tensor<8x64xf16>):
    block.return
  }
  return
}

// -----

func.func @body_argument_count(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'kernel.custom' op body must have one argument per input and per output (2), got 1}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>):
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @body_input_type(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'kernel.custom' op body argument #0 must have the type of input #0 ('tensor<8x64xf16>'), got 'tensor<8x64xf32>'}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf16>):
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @body_output_type(%x: tensor<8x64xf16>, %y: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'kernel.custom' op body argument #2 must have the type of output #0 ('tensor<8x64xf16>'), got 'tensor<8x32xf16>'}}
  %o = kernel.custom (%x, %y) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<8x64xf16>, %out0: tensor<8x32xf16>):
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @too_many_threads(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'kernel.custom' op thread block has 2048 threads; a block can have at most 1024 on sm_90}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 8, 2>
      : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

module attributes {mlsopt.target = "sm_80"} {
  func.func @too_many_threads_sm80(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
    // expected-error @+1 {{'kernel.custom' op thread block has 2048 threads; a block can have at most 1024 on sm_80}}
    %o = kernel.custom (%x) grid <1, 1, 1> block <32, 32, 2>
        : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
      block.return
    }
    return %o : tensor<8x64xf16>
  }
}

// -----

func.func @body_not_a_block_graph(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'kernel.custom' op body must be a block graph ending in `block.return`}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    llvm.unreachable
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @body_two_blocks(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'kernel.custom' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    cf.br ^bb1
  ^bb1:
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @integer_output(%x: tensor<8x64xf16>) -> tensor<8x64xi32> {
  // expected-error @+1 {{'kernel.custom' op result #0 must be variadic of statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<8x64xi32>'}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> tensor<8x64xi32> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xi32>):
    block.return
  }
  return %o : tensor<8x64xi32>
}

// -----

func.func @rms_norm_rank0(%a: tensor<f16>) {
  // expected-error @+1 {{the operand must have rank 1 or more: the op works over the last dim}}
  %b = kernel.rms_norm %a : tensor<f16>
  return
}

// -----

func.func @rms_norm_dim_out_of_range(%a: tensor<2x64x4096xf16>) {
  // expected-error @+1 {{normalized dim 3 is out of range for rank 3}}
  %b = kernel.rms_norm %a dim 3 : tensor<2x64x4096xf16>
  return
}

// -----

func.func @rms_norm_dim_negative(%a: tensor<2x64x4096xf16>) {
  // expected-error @+1 {{normalized dim -1 is out of range for rank 3}}
  %b = kernel.rms_norm %a dim -1 : tensor<2x64x4096xf16>
  return
}

// -----

func.func @zero_sized(%a: tensor<0x64xf16>) {
  // expected-error @+1 {{tensor 'tensor<0x64xf16>' has a zero-sized dim; mlsopt computes on non-empty tensors}}
  %b = kernel.reduce_max %a dim 0 : tensor<0x64xf16>
  return
}

// -----

// 2^48 elements of 4 bytes: past any device, and past what byte counts in
// 64 bits can add up.
func.func @too_large(%a: tensor<65536x65536x65536xf32>) {
  // expected-error @+1 {{tensor 'tensor<65536x65536x65536xf32>' holds more than 2^48 bytes (256 TiB), more than any device memory; mlsopt refuses it}}
  %b = kernel.exp %a : tensor<65536x65536x65536xf32>
  return
}

// -----

// Its byte count overflows 64 bits.
func.func @bytes_overflow(%a: tensor<4294967296x4294967296xf16>) {
  // expected-error @+1 {{tensor 'tensor<4294967296x4294967296xf16>' holds more than 2^48 bytes (256 TiB), more than any device memory; mlsopt refuses it}}
  %b = kernel.exp %a : tensor<4294967296x4294967296xf16>
  return
}

// -----

func.func @grid_y_too_large(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kernel.custom' op grid dim y is 65536; CUDA allows at most 65535}}
  %o = kernel.custom (%x) grid <1, 65536, 1> block <32, 1, 1> : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%in0: tensor<8xf32>, %out0: tensor<8xf32>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<8xf32> {
      %t = block.load %in0 imap <> : tensor<8xf32> -> tensor<8xf32>
      block.yield %t : tensor<8xf32>
    }
    block.store %a, %out0 omap <> : tensor<8xf32> into tensor<8xf32>
    block.return
  }
  return %o : tensor<8xf32>
}

// -----

func.func @block_z_too_large(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kernel.custom' op thread block dim z is 128; CUDA allows at most 64}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <1, 1, 128> : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%in0: tensor<8xf32>, %out0: tensor<8xf32>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<8xf32> {
      %t = block.load %in0 imap <> : tensor<8xf32> -> tensor<8xf32>
      block.yield %t : tensor<8xf32>
    }
    block.store %a, %out0 omap <> : tensor<8xf32> into tensor<8xf32>
    block.return
  }
  return %o : tensor<8xf32>
}

// -----

// Sizes whose product overflows 64 bits are caught per dim, before the
// thread count is computed.
func.func @block_overflow(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kernel.custom' op thread block dim x is 4294967296; CUDA allows at most 1024}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <4294967296, 4294967296, 1> : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%in0: tensor<8xf32>, %out0: tensor<8xf32>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<8xf32> {
      %t = block.load %in0 imap <> : tensor<8xf32> -> tensor<8xf32>
      block.yield %t : tensor<8xf32>
    }
    block.store %a, %out0 omap <> : tensor<8xf32> into tensor<8xf32>
    block.return
  }
  return %o : tensor<8xf32>
}

// -----

func.func @convert_shape(%a: tensor<8x64xf16>) {
  // expected-error @+1 {{'kernel.convert' op converts a tensor of shape 8x64 to one of shape 64x8; a conversion keeps the shape}}
  %0 = kernel.convert %a : tensor<8x64xf16> to tensor<64x8xf32>
  return
}

// -----

func.func @convert_same_type(%a: tensor<8x64xf32>) {
  // expected-error @+1 {{'kernel.convert' op converts 'f32' to itself; a conversion changes the element type}}
  %0 = kernel.convert %a : tensor<8x64xf32> to tensor<8x64xf32>
  return
}

// -----

func.func @triangle_fill_one_dim(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'kernel.triangle_fill' op takes two dims [rows, cols], got 1}}
  %0 = kernel.triangle_fill %s dims [1] diagonal 1 value 0.0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @triangle_fill_dim_out_of_range(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'kernel.triangle_fill' op dim 2 is not a dim of an operand of rank 2}}
  %0 = kernel.triangle_fill %s dims [0, 2] diagonal 1 value 0.0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @triangle_fill_same_dim(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'kernel.triangle_fill' op rows and cols are both dim 1}}
  %0 = kernel.triangle_fill %s dims [1, 1] diagonal 1 value 0.0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @where_shape(%m: tensor<8x64xi1>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'kernel.where' op maps a mask of shape 8x64 to a result of shape 8x32; the shapes must be equal}}
  %0 = kernel.where %m, 0.0, 1.0 : tensor<8x64xi1> to tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @where_out_of_range(%m: tensor<8x64xi1>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'kernel.where' op on_false -1.000000e+09 is out of the range of 'f16'}}
  %0 = kernel.where %m, 0.0, -1.0e9 : tensor<8x64xi1> to tensor<8x64xf16>
  return %0 : tensor<8x64xf16>
}

// -----

func.func @where_float_mask(%m: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'kernel.where' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = kernel.where %m, 0.0, 1.0 : tensor<8x64xf32> to tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @int_to_float_shape(%m: tensor<2x128xi64>) -> tensor<2x64xf32> {
  // expected-error @+1 {{'kernel.int_to_float' op converts a tensor of shape 2x128 to one of shape 2x64; a conversion keeps the shape}}
  %0 = kernel.int_to_float %m : tensor<2x128xi64> to tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

func.func @int_to_float_of_floats(%m: tensor<2x128xf32>) -> tensor<2x128xf16> {
  // expected-error @+1 {{'kernel.int_to_float' op operand #0 must be statically shaped tensor of 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = "kernel.int_to_float"(%m) : (tensor<2x128xf32>) -> tensor<2x128xf16>
  return %0 : tensor<2x128xf16>
}
