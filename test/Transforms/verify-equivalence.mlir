// Every pair runs on both engines, which must give the same verdicts: the
// JIT-compiled field program (the default) and the in-process evaluator.
// RUN: mlsopt-opt %s --verify-equivalence --split-input-file --verify-diagnostics --mlir-print-op-on-diagnostic=false
// RUN: mlsopt-opt %s --verify-equivalence="engine=evaluator" --split-input-file --verify-diagnostics --mlir-print-op-on-diagnostic=false
// RUN: mlsopt-opt %s --verify-equivalence="tests=3 seed=7 engine=jit" --split-input-file --verify-diagnostics --mlir-print-op-on-diagnostic=false
// RUN: mlsopt-opt %s --verify-equivalence="tests=3 seed=7 engine=evaluator" --split-input-file --verify-diagnostics --mlir-print-op-on-diagnostic=false

// Accepted: matmul associativity.
func.func @ref(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<6x5xf32>) -> tensor<4x5xf32> {
  %ab = kernel.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
  %r = kernel.matmul %ab, %c : tensor<4x6xf32>, tensor<6x5xf32>
  return %r : tensor<4x5xf32>
}
// expected-remark @+1 {{@assoc is equivalent to @ref: }}
func.func @assoc(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<6x5xf32>) -> tensor<4x5xf32> attributes {mlsopt.equivalent_to = @ref} {
  %bc = kernel.matmul %b, %c : tensor<8x6xf32>, tensor<6x5xf32>
  %r = kernel.matmul %a, %bc : tensor<4x8xf32>, tensor<8x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// Accepted: distributivity, A (B + C) = A B + A C.
func.func @ref(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %s = kernel.add %b, %c : tensor<8x6xf32>, tensor<8x6xf32>
  %r = kernel.matmul %a, %s : tensor<4x8xf32>, tensor<8x6xf32>
  return %r : tensor<4x6xf32>
}
// expected-remark @+1 {{@distributed is equivalent to @ref: }}
func.func @distributed(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<8x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %ab = kernel.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
  %ac = kernel.matmul %a, %c : tensor<4x8xf32>, tensor<8x6xf32>
  %r = kernel.add %ab, %ac : tensor<4x6xf32>, tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Accepted: exp(a) * exp(b) = exp(a + b).
func.func @ref(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %s = kernel.add %a, %b : tensor<8xf32>, tensor<8xf32>
  %e = kernel.exp %s : tensor<8xf32>
  return %e : tensor<8xf32>
}
// expected-remark @+1 {{@product_of_exps is equivalent to @ref: }}
func.func @product_of_exps(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %ea = kernel.exp %a : tensor<8xf32>
  %eb = kernel.exp %b : tensor<8xf32>
  %p = kernel.mul %ea, %eb : tensor<8xf32>, tensor<8xf32>
  return %p : tensor<8xf32>
}

// -----

// Accepted: a row sum split across the iterations of a for-loop.
func.func @ref(%x: tensor<4x64xf32>) -> tensor<4x1xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<4x64xf32>
  return %s : tensor<4x1xf32>
}
// expected-remark @+1 {{@split_sum is equivalent to @ref: }}
func.func @split_sum(%x: tensor<4x64xf32>) -> tensor<4x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1> : (tensor<4x64xf32>) -> tensor<4x1xf32> {
  ^bb0(%in0: tensor<4x64xf32>, %out0: tensor<4x1xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<2x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<4x64xf32> -> tensor<2x16xf32>
      %s = block.reduce_sum %t dim 1 : tensor<2x16xf32>
      block.yield %s : tensor<2x1xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<2x1xf32> into tensor<4x1xf32>
    block.return
  }
  return %o : tensor<4x1xf32>
}

// -----

// Accepted: RMSNorm sunk past the matmul, rms_norm(X) W = (X W) / rms(X).
func.func @ref(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %n = kernel.rms_norm %x {epsilon = 0.25 : f64} : tensor<4x16xf32>
  %r = kernel.matmul %n, %w : tensor<4x16xf32>, tensor<16x8xf32>
  return %r : tensor<4x8xf32>
}
// expected-remark @+1 {{@sunk is equivalent to @ref: }}
func.func @sunk(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %xw = kernel.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32>
  %sq = kernel.square %x : tensor<4x16xf32>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<4x16xf32>
  %ms = kernel.mul_scalar %ss, 0.0625 : tensor<4x1xf32>
  %me = kernel.add_scalar %ms, 0.25 : tensor<4x1xf32>
  %rms = kernel.sqrt %me : tensor<4x1xf32>
  %r = kernel.div %xw, %rms : tensor<4x8xf32>, tensor<4x1xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Accepted: rms_norm over dim 1 (a key stored [h, d, n]) against its
// spelled-out form, x * rsqrt(mean(x^2 over dim 1) + eps); a custom kernel
// whose blocks each normalize a [2, 8, 3] tile over dim 1 against the same.
func.func @ref(%k: tensor<2x8x6xf32>) -> tensor<2x8x6xf32> {
  %sq = kernel.square %k : tensor<2x8x6xf32>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<2x8x6xf32>
  %ms = kernel.mul_scalar %ss, 0.125 : tensor<2x1x6xf32>
  %me = kernel.add_scalar %ms, 0.25 : tensor<2x1x6xf32>
  %r = kernel.rsqrt %me : tensor<2x1x6xf32>
  %n = kernel.mul %k, %r : tensor<2x8x6xf32>, tensor<2x1x6xf32>
  return %n : tensor<2x8x6xf32>
}
// expected-remark @+1 {{@norm_dim1 is equivalent to @ref: }}
func.func @norm_dim1(%k: tensor<2x8x6xf32>) -> tensor<2x8x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %n = kernel.rms_norm %k dim 1 {epsilon = 0.25 : f64} : tensor<2x8x6xf32>
  return %n : tensor<2x8x6xf32>
}
// expected-remark @+1 {{@block_norm_dim1 is equivalent to @ref: }}
func.func @block_norm_dim1(%k: tensor<2x8x6xf32>) -> tensor<2x8x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%k) grid <2, 1, 1> block <128, 1, 1> : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32> {
  ^bb0(%in0: tensor<2x8x6xf32>, %out0: tensor<2x8x6xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<2x8x3xf32> {
      %t = block.load %in0 imap <x = 2> : tensor<2x8x6xf32> -> tensor<2x8x3xf32>
      %n = block.rms_norm %t dim 1 {epsilon = 0.25 : f64} : tensor<2x8x3xf32>
      block.yield %n : tensor<2x8x3xf32>
    }
    block.store %acc, %out0 omap <x = 2> : tensor<2x8x3xf32> into tensor<2x8x6xf32>
    block.return
  }
  return %o : tensor<2x8x6xf32>
}

// -----

// Accepted: QKNorm's scores, exp(rms_norm(Q) rms_norm(K over dim 1)), against
// the norms' scales applied to Q K, one as rsqrt and one as a division by
// sqrt. Roots have residues mod q (sqrt's random function of the operand
// mod p, inverted for rsqrt and rms_norm), which scale the rows and columns
// of Q K mod q as mod p, so exp of them verifies.
func.func @ref(%q: tensor<2x4x8xf32>, %k: tensor<2x8x6xf32>) -> tensor<2x4x6xf32> {
  %qn = kernel.rms_norm %q {epsilon = 2.5e-01 : f64} : tensor<2x4x8xf32>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 2.5e-01 : f64} : tensor<2x8x6xf32>
  %s = kernel.matmul %qn, %kn : tensor<2x4x8xf32>, tensor<2x8x6xf32>
  %e = kernel.exp %s : tensor<2x4x6xf32>
  return %e : tensor<2x4x6xf32>
}
// expected-remark @+1 {{@scaled_scores is equivalent to @ref: }}
func.func @scaled_scores(%q: tensor<2x4x8xf32>, %k: tensor<2x8x6xf32>) -> tensor<2x4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %s = kernel.matmul %q, %k : tensor<2x4x8xf32>, tensor<2x8x6xf32>
  %q2 = kernel.square %q : tensor<2x4x8xf32>
  %qs = kernel.reduce_sum %q2 dim 2 : tensor<2x4x8xf32>
  %qm = kernel.mul_scalar %qs, 0.125 : tensor<2x4x1xf32>
  %qe = kernel.add_scalar %qm, 0.25 : tensor<2x4x1xf32>
  %qr = kernel.rsqrt %qe : tensor<2x4x1xf32>
  %k2 = kernel.square %k : tensor<2x8x6xf32>
  %ks = kernel.reduce_sum %k2 dim 1 : tensor<2x8x6xf32>
  %km = kernel.mul_scalar %ks, 0.125 : tensor<2x1x6xf32>
  %ke = kernel.add_scalar %km, 0.25 : tensor<2x1x6xf32>
  %kr = kernel.sqrt %ke : tensor<2x1x6xf32>
  %sq = kernel.mul %s, %qr : tensor<2x4x6xf32>, tensor<2x4x1xf32>
  %sk = kernel.div %sq, %kr : tensor<2x4x6xf32>, tensor<2x1x6xf32>
  %e = kernel.exp %sk : tensor<2x4x6xf32>
  return %e : tensor<2x4x6xf32>
}
// Rejected: K normalized with another epsilon. Under exp only the residues
// mod q of the roots tell the two apart.
// expected-error @+1 {{@other_epsilon is not equivalent to @ref}}
func.func @other_epsilon(%q: tensor<2x4x8xf32>, %k: tensor<2x8x6xf32>) -> tensor<2x4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %qn = kernel.rms_norm %q {epsilon = 2.5e-01 : f64} : tensor<2x4x8xf32>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 5.0e-01 : f64} : tensor<2x8x6xf32>
  %s = kernel.matmul %qn, %kn : tensor<2x4x8xf32>, tensor<2x8x6xf32>
  %e = kernel.exp %s : tensor<2x4x6xf32>
  return %e : tensor<2x4x6xf32>
}

// -----

// Refused: exp of a value that depends on another exp has no residue mod q
// to raise w to.
func.func @ref(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = kernel.exp %x : tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func @exp_of_exp(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %e = kernel.exp %x : tensor<8xf32>
  %s = kernel.add %e, %x : tensor<8xf32>, tensor<8xf32>
  // expected-error @+1 {{the argument of exp has no value mod q: it depends on another exp (the program is not LAX), so it cannot be verified over finite fields}}
  %f = kernel.exp %s : tensor<8xf32>
  return %f : tensor<8xf32>
}

// -----

// Rejected: rms_norm over the last dim where the reference normalizes dim 1
// (both dims have extent 8, so only the dim tells them apart).
func.func @ref(%k: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %n = kernel.rms_norm %k dim 1 {epsilon = 0.25 : f64} : tensor<2x8x8xf32>
  return %n : tensor<2x8x8xf32>
}
// expected-error @+1 {{@norm_last is not equivalent to @ref}}
func.func @norm_last(%k: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %n = kernel.rms_norm %k {epsilon = 0.25 : f64} : tensor<2x8x8xf32>
  return %n : tensor<2x8x8xf32>
}

// -----

// Rejected: matmul operands commuted.
func.func @ref(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = kernel.matmul %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
// expected-error @+1 {{@commuted is not equivalent to @ref: result #0 differs at flat element}}
func.func @commuted(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %r = kernel.matmul %b, %a : tensor<8x8xf32>, tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Rejected: the wrong reduction dim.
func.func @ref(%x: tensor<8x8xf32>) -> tensor<8x1xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<8x8xf32>
  return %s : tensor<8x1xf32>
}
// expected-error @+1 {{@wrong_dim is not equivalent to @ref}}
func.func @wrong_dim(%x: tensor<8x8xf32>) -> tensor<8x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %s = kernel.reduce_sum %x dim 0 : tensor<8x8xf32>
  %t = kernel.transpose %s [1, 0] : tensor<1x8xf32>
  return %t : tensor<8x1xf32>
}

// -----

// Rejected: GELU's tanh-approximation constant changed in its last digit.
func.func @ref(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = kernel.mul_scalar %x, 0.044715 : tensor<8xf32>
  return %c : tensor<8xf32>
}
// expected-error @+1 {{@changed_constant is not equivalent to @ref}}
func.func @changed_constant(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %c = kernel.mul_scalar %x, 0.044716 : tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// Rejected: a clamp of a norm is not the clamp of a constant. max and min
// with a constant are random functions of their operand, one per op and
// constant; ordering the field's residues instead made max(x, -4) the
// residue of -4 for almost every x, so that both functions computed the
// constant 0.5 and a search (found by its fuzzer) passed this program.
func.func @ref(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x4xf32>
  %lo = kernel.max_scalar %n, -4.0 : tensor<8x4xf32>
  %c = kernel.min_scalar %lo, 0.5 : tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}
// expected-error @+1 {{@clamped_constant is not equivalent to @ref}}
func.func @clamped_constant(%x: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {mlsopt.equivalent_to = @ref} {
  %s = kernel.mul_scalar %x, 1.0e-06 : tensor<8x4xf32>
  %q = kernel.square %s : tensor<8x4xf32>
  %one = kernel.div %q, %q : tensor<8x4xf32>, tensor<8x4xf32>
  %c = kernel.max_scalar %one, 0.5 : tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// Rejected: the bounds of a clamp swapped.
func.func @ref(%x: tensor<8xf32>) -> tensor<8xf32> {
  %lo = kernel.max_scalar %x, -1.0 : tensor<8xf32>
  %c = kernel.min_scalar %lo, 1.0 : tensor<8xf32>
  return %c : tensor<8xf32>
}
// expected-error @+1 {{@swapped_bounds is not equivalent to @ref}}
func.func @swapped_bounds(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %lo = kernel.max_scalar %x, 1.0 : tensor<8xf32>
  %c = kernel.min_scalar %lo, -1.0 : tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// Accepted: max and min of two tensors (torch.maximum, torch.minimum) are
// symmetric random functions of their operands, so the operand order does
// not matter.
func.func @ref(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>, %r: tensor<8x1xf32>) -> tensor<8x4xf32> {
  %m = kernel.max %x, %y : tensor<8x4xf32>, tensor<8x4xf32>
  %c = kernel.min %m, %r : tensor<8x4xf32>, tensor<8x1xf32>
  return %c : tensor<8x4xf32>
}
// expected-remark @+1 {{@swapped_operands is equivalent to @ref: }}
func.func @swapped_operands(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>, %r: tensor<8x1xf32>) -> tensor<8x4xf32> attributes {mlsopt.equivalent_to = @ref} {
  %m = kernel.max %y, %x : tensor<8x4xf32>, tensor<8x4xf32>
  %c = kernel.min %r, %m : tensor<8x1xf32>, tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}
// expected-error @+1 {{@max_for_min is not equivalent to @ref}}
func.func @max_for_min(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>, %r: tensor<8x1xf32>) -> tensor<8x4xf32> attributes {mlsopt.equivalent_to = @ref} {
  %m = kernel.min %x, %y : tensor<8x4xf32>, tensor<8x4xf32>
  %c = kernel.max %m, %r : tensor<8x4xf32>, tensor<8x1xf32>
  return %c : tensor<8x4xf32>
}

// -----

// Rejected: max(x, 1) is not x. Selecting by an order of the residues (as
// reduce_max does) made max(x, x / x) x for almost every x, since 1 is
// nearly the smallest residue.
func.func @ref(%x: tensor<8x4xf32>, %q: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %one = kernel.div %q, %q : tensor<8x4xf32>, tensor<8x4xf32>
  %m = kernel.max %x, %one : tensor<8x4xf32>, tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}
// expected-error @+1 {{@dropped_max is not equivalent to @ref}}
func.func @dropped_max(%x: tensor<8x4xf32>, %q: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {mlsopt.equivalent_to = @ref} {
  %m = kernel.mul %x, %q : tensor<8x4xf32>, tensor<8x4xf32>
  %d = kernel.div %m, %q : tensor<8x4xf32>, tensor<8x4xf32>
  return %d : tensor<8x4xf32>
}

// -----

// Rejected: silu is x * sigmoid(x), not x * exp(x).
func.func @ref(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = kernel.silu %x : tensor<8xf32>
  return %s : tensor<8xf32>
}
// expected-error @+1 {{@x_exp_x is not equivalent to @ref}}
func.func @x_exp_x(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %e = kernel.exp %x : tensor<8xf32>
  %m = kernel.mul %x, %e : tensor<8xf32>, tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// Rejected: a block graph whose imap picks X's rows by the wrong grid dim.
func.func @ref(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %m = kernel.matmul %x, %w : tensor<8x16xf32>, tensor<16x8xf32>
  return %m : tensor<8x8xf32>
}
// expected-error @+1 {{@wrong_imap is not equivalent to @ref}}
func.func @wrong_imap(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x, %w) grid <2, 2, 1> block <32, 1, 1>
      : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %in1: tensor<16x8xf32>, %out0: tensor<8x8xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<4x4xf32> {
      %xt = block.load %in0 imap <y = 0> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<16x8xf32> -> tensor<4x4xf32>
      %m = block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x4xf32>
      block.yield %m : tensor<4x4xf32>
    }
    block.store %acc, %out0 omap <x = 0, y = 1> : tensor<4x4xf32> into tensor<8x8xf32>
    block.return
  }
  return %o : tensor<8x8xf32>
}

// -----

// Accepted: the same block graph with the right imap.
func.func @ref(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %m = kernel.matmul %x, %w : tensor<8x16xf32>, tensor<16x8xf32>
  return %m : tensor<8x8xf32>
}
// expected-remark @+1 {{@tiled is equivalent to @ref}}
func.func @tiled(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x, %w) grid <2, 2, 1> block <32, 1, 1>
      : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %in1: tensor<16x8xf32>, %out0: tensor<8x8xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<4x4xf32> {
      %xt = block.load %in0 imap <x = 0> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<16x8xf32> -> tensor<4x4xf32>
      %m = block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x4xf32>
      block.yield %m : tensor<4x4xf32>
    }
    block.store %acc, %out0 omap <x = 0, y = 1> : tensor<4x4xf32> into tensor<8x8xf32>
    block.return
  }
  return %o : tensor<8x8xf32>
}

// -----

// Rejected: the right tiles written at the wrong offsets (the omap swaps the
// grid dims).
func.func @ref(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %m = kernel.matmul %x, %w : tensor<8x16xf32>, tensor<16x8xf32>
  return %m : tensor<8x8xf32>
}
// expected-error @+1 {{@wrong_offset is not equivalent to @ref}}
func.func @wrong_offset(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x, %w) grid <2, 2, 1> block <32, 1, 1>
      : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %in1: tensor<16x8xf32>, %out0: tensor<8x8xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<4x4xf32> {
      %xt = block.load %in0 imap <x = 0> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<16x8xf32> -> tensor<4x4xf32>
      %m = block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x4xf32>
      block.yield %m : tensor<4x4xf32>
    }
    block.store %acc, %out0 omap <x = 1, y = 0> : tensor<4x4xf32> into tensor<8x8xf32>
    block.return
  }
  return %o : tensor<8x8xf32>
}

// -----

// Inconclusive: x / (x - x) divides by zero on every draw; neither engine
// calls that equal.
func.func @ref(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error @+1 {{@divides_by_zero vs @ref: a random test divided by a zero residue, so it proves nothing}}
func.func @divides_by_zero(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mlsopt.equivalent_to = @ref} {
  %z = kernel.sub %x, %x : tensor<4xf32>, tensor<4xf32>
  %q = kernel.div %x, %z : tensor<4xf32>, tensor<4xf32>
  return %q : tensor<4xf32>
}

// -----

// Equal over the field, where (x + 2^27) - 2^27 = x exactly, but not in f32,
// where adding 2^27 rounds x away: a warning from the f32 run.
func.func @ref(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = kernel.exp %x : tensor<64xf32>
  return %e : tensor<64xf32>
}
// expected-remark @+2 {{@cancelling is equivalent to @ref}}
// expected-warning @+1 {{@cancelling and @ref are equal over the field but differ in f32 on random normal inputs: result #0 has relative difference}}
func.func @cancelling(%x: tensor<64xf32>) -> tensor<64xf32> attributes {mlsopt.equivalent_to = @ref} {
  %e = kernel.exp %x : tensor<64xf32>
  %big = kernel.add_scalar %e, 134217728.0 : tensor<64xf32>
  %back = kernel.add_scalar %big, -134217728.0 : tensor<64xf32>
  return %back : tensor<64xf32>
}

// -----

// The f32 run leaves out the elements both runs make -inf (a causal mask's)
// and compares the others, where adding 2^27 rounds x away.
func.func @ref(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %m = kernel.triangle_fill %x dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}
// expected-remark @+2 {{@masked_cancelling is equivalent to @ref}}
// expected-warning @+1 {{@masked_cancelling and @ref are equal over the field but differ in f32 on random normal inputs: result #0 has relative difference}}
func.func @masked_cancelling(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %big = kernel.add_scalar %x, 134217728.0 : tensor<8x8xf32>
  %back = kernel.add_scalar %big, -134217728.0 : tensor<8x8xf32>
  %m = kernel.triangle_fill %back dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// Equal over the field, where the exponents agree mod q (2^62 - 2285 is q),
// but exp(x + q) overflows in f32 where exp(x) does not: a warning naming
// the element.
func.func @ref(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = kernel.exp %x : tensor<8xf32>
  return %e : tensor<8xf32>
}
// expected-remark @+2 {{@exponent_wraps is equivalent to @ref}}
// expected-warning @+1 {{@exponent_wraps and @ref are equal over the field but differ in f32 on random normal inputs: result #0 is INF at flat element 0, and}}
func.func @exponent_wraps(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %a = kernel.add_scalar %x, 4611686018427387904.0 : tensor<8xf32>
  %b = kernel.add_scalar %a, -2285.0 : tensor<8xf32>
  %e = kernel.exp %b : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

// A constant is read as 1/n only where it is 1/n rounded to f64, f32 or the
// type of the values it multiplies. In f32, 2^-12 is 1/4096, although it is
// also 1/4097 rounded to f16 and an extent here is 4097.
func.func @ref(%x: tensor<4x4097xf32>) -> tensor<4x4097xf32> {
  %y = kernel.mul_scalar %x, 0.000244140625 : tensor<4x4097xf32>
  return %y : tensor<4x4097xf32>
}
// expected-remark @+1 {{@power_of_two is equivalent to @ref}}
func.func @power_of_two(%x: tensor<4x4097xf32>) -> tensor<4x4097xf32> attributes {mlsopt.equivalent_to = @ref} {
  %t = kernel.mul_scalar %x, 0.0001220703125 : tensor<4x4097xf32>
  %y = kernel.mul_scalar %t, 2.0 : tensor<4x4097xf32>
  return %y : tensor<4x4097xf32>
}
// 1/4097 in f64 is not 1/4096.
// expected-error @+1 {{@over_4097 is not equivalent to @ref}}
func.func @over_4097(%x: tensor<4x4097xf32>) -> tensor<4x4097xf32> attributes {mlsopt.equivalent_to = @ref} {
  %y = kernel.mul_scalar %x, 2.4408103490358799E-4 : tensor<4x4097xf32>
  return %y : tensor<4x4097xf32>
}

// -----

// Which roundings count is the program's, from its signature, not each op's:
// a searched f16 program computes in f32 with the f16 program's constants,
// here an epsilon that is 1/n rounded to f16 for many n.
func.func @ref(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %y = kernel.add_scalar %x, 1.0132789611816406E-6 : tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}
// expected-remark @+1 {{@computed_in_f32 is equivalent to @ref}}
func.func @computed_in_f32(%x: tensor<4x8xf16>) -> tensor<4x8xf16> attributes {mlsopt.equivalent_to = @ref} {
  %w = kernel.convert %x : tensor<4x8xf16> to tensor<4x8xf32>
  %y = kernel.add_scalar %w, 1.0132789611816406E-6 : tensor<4x8xf32>
  %n = kernel.convert %y : tensor<4x8xf32> to tensor<4x8xf16>
  return %n : tensor<4x8xf16>
}

// -----

// 1/3 rounded to f16 is no third in an f32 program.
func.func @ref(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = kernel.mul_scalar %x, 0.33333333333333331 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// expected-error @+1 {{@f16_third is not equivalent to @ref}}
func.func @f16_third(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %y = kernel.mul_scalar %x, 0.333251953125 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Accepted: a mean over 80 elements whose factor is 1/80 rounded to f32 (no
// dyadic rational is 1/80) against rms_norm, which divides by 80 exactly.
// The rounded factor stands for 1/80.
func.func @ref(%x: tensor<12x80xf32>) -> tensor<12x80xf32> {
  %sq = kernel.square %x : tensor<12x80xf32>
  %ss = kernel.reduce_sum %sq dim 1 : tensor<12x80xf32>
  %ms = kernel.mul_scalar %ss, 0.012500000186264515 : tensor<12x1xf32>
  %me = kernel.add_scalar %ms, 1.0e-6 : tensor<12x1xf32>
  %r = kernel.rsqrt %me : tensor<12x1xf32>
  %n = kernel.mul %x, %r : tensor<12x80xf32>, tensor<12x1xf32>
  return %n : tensor<12x80xf32>
}
// expected-remark @+1 {{@rms_norm_80 is equivalent to @ref: }}
func.func @rms_norm_80(%x: tensor<12x80xf32>) -> tensor<12x80xf32> attributes {mlsopt.equivalent_to = @ref} {
  %n = kernel.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<12x80xf32>
  return %n : tensor<12x80xf32>
}

// -----

// Accepted: means over 96 elements with 1/96 rounded to f32 and to f16.
func.func @ref(%x: tensor<4x96xf16>) -> tensor<4x1xf16> {
  %s = kernel.reduce_sum %x dim 1 : tensor<4x96xf16>
  %m = kernel.mul_scalar %s, 0.010416666977107525 : tensor<4x1xf16>
  return %m : tensor<4x1xf16>
}
// expected-remark @+1 {{@mean_f16_factor is equivalent to @ref: }}
func.func @mean_f16_factor(%x: tensor<4x96xf16>) -> tensor<4x1xf16> attributes {mlsopt.equivalent_to = @ref} {
  %s = kernel.reduce_sum %x dim 1 : tensor<4x96xf16>
  %m = kernel.mul_scalar %s, 0.01041412353515625 : tensor<4x1xf16>
  return %m : tensor<4x1xf16>
}

// -----

// Rejected: 0.012505 is near 1/80 but no rounding of it.
func.func @ref(%x: tensor<12x80xf32>) -> tensor<12x1xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<12x80xf32>
  %m = kernel.mul_scalar %s, 0.012500000186264515 : tensor<12x1xf32>
  return %m : tensor<12x1xf32>
}
// expected-error @+1 {{@near_mean is not equivalent to @ref}}
func.func @near_mean(%x: tensor<12x80xf32>) -> tensor<12x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %s = kernel.reduce_sum %x dim 1 : tensor<12x80xf32>
  %m = kernel.mul_scalar %s, 0.012505 : tensor<12x1xf32>
  return %m : tensor<12x1xf32>
}

// -----

// Accepted: row sums returned as the 1-D tensor a front end asked for, through
// a collapse of [4, 1] in one program and of [1, 4] (a transpose summed over
// dim 0) in the other. Reshapes keep the elements in row-major order.
func.func @ref(%x: tensor<4x6xf32>) -> tensor<4xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<4x6xf32>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
  return %c : tensor<4xf32>
}
// expected-remark @+1 {{@column_sums_of_transpose is equivalent to @ref: }}
func.func @column_sums_of_transpose(%x: tensor<4x6xf32>) -> tensor<4xf32> attributes {mlsopt.equivalent_to = @ref} {
  %t = kernel.transpose %x [1, 0] : tensor<4x6xf32>
  %s = kernel.reduce_sum %t dim 0 : tensor<6x4xf32>
  %e = tensor.expand_shape %s [[0, 1], [2]] output_shape [1, 1, 4] : tensor<1x4xf32> into tensor<1x1x4xf32>
  %c = tensor.collapse_shape %e [[0, 1, 2]] : tensor<1x1x4xf32> into tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Rejected: column sums are not row sums, reshaped alike.
func.func @ref(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<4x4xf32>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
  return %c : tensor<4xf32>
}
// expected-error @+1 {{@column_sums is not equivalent to @ref}}
func.func @column_sums(%x: tensor<4x4xf32>) -> tensor<4xf32> attributes {mlsopt.equivalent_to = @ref} {
  %s = kernel.reduce_sum %x dim 0 : tensor<4x4xf32>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Slices and broadcasts between kernel ops (a rotary embedding's halves,
// repeat_kv) copy elements: rotate_half written with a strided slice and a
// rank-reducing one is accepted; reading the wrong half, or broadcasting
// along another dim, is not.
func.func @ref(%q: tensor<4x8xf32>, %k: tensor<2x4xf32>) -> (tensor<4x8xf32>, tensor<2x3x4xf32>) {
  %lo = tensor.extract_slice %q[0, 0] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %hi = tensor.extract_slice %q[0, 4] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %n = kernel.neg %hi : tensor<4x4xf32>
  %r = kernel.concat %n, %lo dim 1 : tensor<4x4xf32>, tensor<4x4xf32>
  %e = tensor.empty() : tensor<2x3x4xf32>
  %b = linalg.broadcast ins(%k : tensor<2x4xf32>) outs(%e : tensor<2x3x4xf32>) dimensions = [1]
  %be = kernel.exp %b : tensor<2x3x4xf32>
  return %r, %be : tensor<4x8xf32>, tensor<2x3x4xf32>
}
// expected-remark @+1 {{@rotated is equivalent to @ref: }}
func.func @rotated(%q: tensor<4x8xf32>, %k: tensor<2x4xf32>) -> (tensor<4x8xf32>, tensor<2x3x4xf32>) attributes {mlsopt.equivalent_to = @ref} {
  %t = kernel.transpose %q [1, 0] : tensor<4x8xf32>
  %lo = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
  %hi = tensor.extract_slice %t[4, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
  %lot = kernel.transpose %lo [1, 0] : tensor<4x4xf32>
  %hit = kernel.transpose %hi [1, 0] : tensor<4x4xf32>
  %n = kernel.neg %hit : tensor<4x4xf32>
  %r = kernel.concat %n, %lot dim 1 : tensor<4x4xf32>, tensor<4x4xf32>
  %k0 = tensor.extract_slice %k[0, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
  %k1 = tensor.extract_slice %k[1, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
  %e = tensor.empty() : tensor<3x4xf32>
  %b0 = linalg.broadcast ins(%k0 : tensor<4xf32>) outs(%e : tensor<3x4xf32>) dimensions = [0]
  %b1 = linalg.broadcast ins(%k1 : tensor<4xf32>) outs(%e : tensor<3x4xf32>) dimensions = [0]
  %c0 = tensor.expand_shape %b0 [[0, 1], [2]] output_shape [1, 3, 4] : tensor<3x4xf32> into tensor<1x3x4xf32>
  %c1 = tensor.expand_shape %b1 [[0, 1], [2]] output_shape [1, 3, 4] : tensor<3x4xf32> into tensor<1x3x4xf32>
  %b = kernel.concat %c0, %c1 dim 0 : tensor<1x3x4xf32>, tensor<1x3x4xf32>
  %be = kernel.exp %b : tensor<2x3x4xf32>
  return %r, %be : tensor<4x8xf32>, tensor<2x3x4xf32>
}
// expected-error @+1 {{@wrong_half is not equivalent to @ref}}
func.func @wrong_half(%q: tensor<4x8xf32>, %k: tensor<2x4xf32>) -> (tensor<4x8xf32>, tensor<2x3x4xf32>) attributes {mlsopt.equivalent_to = @ref} {
  %lo = tensor.extract_slice %q[0, 0] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %hi = tensor.extract_slice %q[0, 3] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %n = kernel.neg %hi : tensor<4x4xf32>
  %r = kernel.concat %n, %lo dim 1 : tensor<4x4xf32>, tensor<4x4xf32>
  %e = tensor.empty() : tensor<2x3x4xf32>
  %b = linalg.broadcast ins(%k : tensor<2x4xf32>) outs(%e : tensor<2x3x4xf32>) dimensions = [1]
  %be = kernel.exp %b : tensor<2x3x4xf32>
  return %r, %be : tensor<4x8xf32>, tensor<2x3x4xf32>
}
// expected-error @+1 {{@strided_half is not equivalent to @ref}}
func.func @strided_half(%q: tensor<4x8xf32>, %k: tensor<2x4xf32>) -> (tensor<4x8xf32>, tensor<2x3x4xf32>) attributes {mlsopt.equivalent_to = @ref} {
  %lo = tensor.extract_slice %q[0, 0] [4, 4] [1, 2] : tensor<4x8xf32> to tensor<4x4xf32>
  %hi = tensor.extract_slice %q[0, 4] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %n = kernel.neg %hi : tensor<4x4xf32>
  %r = kernel.concat %n, %lo dim 1 : tensor<4x4xf32>, tensor<4x4xf32>
  %e = tensor.empty() : tensor<2x3x4xf32>
  %b = linalg.broadcast ins(%k : tensor<2x4xf32>) outs(%e : tensor<2x3x4xf32>) dimensions = [1]
  %be = kernel.exp %b : tensor<2x3x4xf32>
  return %r, %be : tensor<4x8xf32>, tensor<2x3x4xf32>
}

// -----

// A linalg op the import did not take (a max with its index, as torch-mlir
// writes aten.max.dim) is reported at that op, not at the constant or the
// fill of its init that come first.
func.func @ref(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{the finite-field evaluator does not support 'linalg.generic' (--convert-linalg-to-kernel did not import it)}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @leftover_linalg(%x: tensor<4x8xf32>) -> tensor<4xf32> attributes {mlsopt.equivalent_to = @ref} {
  %m = kernel.reduce_max %x dim 1 : tensor<4x8xf32>
  %c = tensor.collapse_shape %m [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Linalg ops the import left, the same in both functions (an argmax after
// the scores, whose -inf init has no field element; a gather with an index
// from above): each is cut out, its results arguments of both and the
// tensors it reads compared as results. A product computed the other way
// round is still the same; a wrong kernel before the op is found at the
// tensor the op reads.
func.func @ref(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %t: tensor<10x16xf32>) -> (tensor<4xi64>, tensor<4x16xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %c3 = arith.constant 3 : index
  %s = kernel.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<4x16xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %max = arith.select %gt, %in, %best : f32
    %arg = arith.select %gt, %jj, %at : i64
    linalg.yield %max, %arg : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  %e3 = tensor.empty() : tensor<4x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%r#1 : tensor<4xi64>) outs(%e3 : tensor<4x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %t[%c3, %j] : tensor<10x16xf32>
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  %y = kernel.mul %g, %s : tensor<4x16xf32>, tensor<4x16xf32>
  return %r#1, %y : tensor<4xi64>, tensor<4x16xf32>
}
// expected-remark @+1 {{2 linalg ops the import left, the same in both, compared at their operands}}
func.func @same_around_leftovers(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %t: tensor<10x16xf32>) -> (tensor<4xi64>, tensor<4x16xf32>) attributes {mlsopt.equivalent_to = @ref} {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %c3 = arith.constant 3 : index
  %wt = kernel.transpose %w [1, 0] : tensor<8x16xf32>
  %x2 = kernel.mul_scalar %x, 2.0 : tensor<4x8xf32>
  %s2 = kernel.matmul %x2, %w : tensor<4x8xf32>, tensor<8x16xf32>
  %s = kernel.mul_scalar %s2, 0.5 : tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<4x16xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %max = arith.select %gt, %in, %best : f32
    %arg = arith.select %gt, %jj, %at : i64
    linalg.yield %max, %arg : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  %e3 = tensor.empty() : tensor<4x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%r#1 : tensor<4xi64>) outs(%e3 : tensor<4x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %t[%c3, %j] : tensor<10x16xf32>
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  %y = kernel.mul %s, %g : tensor<4x16xf32>, tensor<4x16xf32>
  return %r#1, %y : tensor<4xi64>, tensor<4x16xf32>
}

// -----

func.func @ref(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %s = kernel.exp %x : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<4x8xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %max = arith.select %gt, %in, %best : f32
    %arg = arith.select %gt, %jj, %at : i64
    linalg.yield %max, %arg : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#1 : tensor<4xi64>
}
// expected-error @+2 {{@wrong_before_leftover is not equivalent to @ref: a tensor that a linalg op the import left reads (cut result #1) differs at flat element 0}}
// expected-note @+1 {{compared with 1 op the field does not evaluate cut out at the same places in both, their results drawn at random}}
func.func @wrong_before_leftover(%x: tensor<4x8xf32>) -> tensor<4xi64> attributes {mlsopt.equivalent_to = @ref} {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %s = kernel.neg %x : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<4x8xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %max = arith.select %gt, %in, %best : f32
    %arg = arith.select %gt, %jj, %at : i64
    linalg.yield %max, %arg : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#1 : tensor<4xi64>
}

// -----

// An f64 op the import left: cut out for the field; the host, which runs
// f16, bf16, f32 and integer tensors, cannot run the f32 check.
func.func @ref(%x: tensor<4xf32>, %y: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf64>) {
  %d = kernel.mul_scalar %x, 2.0 : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf64>
  %z = linalg.exp ins(%y : tensor<4xf64>) outs(%e : tensor<4xf64>) -> tensor<4xf64>
  return %d, %z : tensor<4xf32>, tensor<4xf64>
}
// expected-remark @+2 {{1 linalg op the import left, the same in both, compared at its operands}}
// expected-remark @+1 {{no f32 tolerance check of @f64_leftover: it takes or returns tensors of other than f16, bf16, f32 or integers}}
func.func @f64_leftover(%x: tensor<4xf32>, %y: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf64>) attributes {mlsopt.equivalent_to = @ref} {
  %d = kernel.add %x, %x : tensor<4xf32>, tensor<4xf32>
  %e = tensor.empty() : tensor<4xf64>
  %z = linalg.exp ins(%y : tensor<4xf64>) outs(%e : tensor<4xf64>) -> tensor<4xf64>
  return %d, %z : tensor<4xf32>, tensor<4xf64>
}

// -----

// Leftover ops that differ (a greater-or-equal, which keeps the last
// maximum) are not cut: the field reports the op it cannot evaluate.
func.func @ref(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %c0 = arith.constant 0 : i64
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %m = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<4xi64>) -> tensor<4xi64>
  // expected-error @+1 {{the finite-field evaluator does not support 'linalg.generic' (--convert-linalg-to-kernel did not import it)}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %max = arith.select %gt, %in, %best : f32
    %arg = arith.select %gt, %jj, %at : i64
    linalg.yield %max, %arg : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#1 : tensor<4xi64>
}
func.func @other_leftover(%x: tensor<4x8xf32>) -> tensor<4xi64> attributes {mlsopt.equivalent_to = @ref} {
  %c0 = arith.constant 0 : i64
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %m = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<4xi64>) -> tensor<4xi64>
  // expected-error @+1 {{the finite-field evaluator does not support 'linalg.generic' (--convert-linalg-to-kernel did not import it)}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf oge, %in, %best : f32
    %max = arith.select %gt, %in, %best : f32
    %arg = arith.select %gt, %jj, %at : i64
    linalg.yield %max, %arg : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#1 : tensor<4xi64>
}

// -----

// Windows: a kernel that loads the second half of each row is the slice
// and the op; one that loads a window a column off is not.
func.func @ref(%h: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %u = tensor.extract_slice %h[0, 8] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %r = kernel.exp %u : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
// expected-remark @+1 {{@windowed is equivalent to @ref: }}
func.func @windowed(%h: tensor<4x16xf32>) -> tensor<4x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%h) grid <2, 1, 1> block <128, 1, 1> : (tensor<4x16xf32>) -> tensor<4x8xf32> {
  ^bb0(%in0: tensor<4x16xf32>, %out0: tensor<4x8xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<2x8xf32> {
      %t = block.load %in0 window [0, 8] [4, 8] imap <x = 0> : tensor<4x16xf32> -> tensor<2x8xf32>
      %e = block.exp %t : tensor<2x8xf32>
      block.yield %e : tensor<2x8xf32>
    }
    block.store %m, %out0 omap <x = 0> : tensor<2x8xf32> into tensor<4x8xf32>
    block.return
  }
  return %o : tensor<4x8xf32>
}
// expected-error @+1 {{@window_off_by_one is not equivalent to @ref}}
func.func @window_off_by_one(%h: tensor<4x16xf32>) -> tensor<4x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%h) grid <2, 1, 1> block <128, 1, 1> : (tensor<4x16xf32>) -> tensor<4x8xf32> {
  ^bb0(%in0: tensor<4x16xf32>, %out0: tensor<4x8xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<2x8xf32> {
      %t = block.load %in0 window [0, 7] [4, 8] imap <x = 0> : tensor<4x16xf32> -> tensor<2x8xf32>
      %e = block.exp %t : tensor<2x8xf32>
      block.yield %e : tensor<2x8xf32>
    }
    block.store %m, %out0 omap <x = 0> : tensor<2x8xf32> into tensor<4x8xf32>
    block.return
  }
  return %o : tensor<4x8xf32>
}

// -----

// Causal masks: a kernel that masks each tile at its place (the grid splits
// the rows, the for-loop the columns) computes the masked row sums; one
// whose mask forgets the for-loop's part of the place does not.
func.func @ref(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %m = kernel.triangle_fill %x dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<4x8xf32>
  %e = kernel.exp %m : tensor<4x8xf32>
  %s = kernel.reduce_sum %e dim 1 : tensor<4x8xf32>
  return %s : tensor<4x1xf32>
}
// expected-remark @+1 {{@masked_tiles is equivalent to @ref: }}
func.func @masked_tiles(%x: tensor<4x8xf32>) -> tensor<4x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1> : (tensor<4x8xf32>) -> tensor<4x1xf32> {
  ^bb0(%in0: tensor<4x8xf32>, %out0: tensor<4x1xf32>):
    %s = block.for_loop 2 iterations accumulate (sum) : tensor<2x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<4x8xf32> -> tensor<2x4xf32>
      %m = block.triangle_fill %t dims [0, 1] diagonal 1 value 0xFFF0000000000000 imap <x = 0> fmap 1 : tensor<2x4xf32>
      %e = block.exp %m : tensor<2x4xf32>
      %r = block.reduce_sum %e dim 1 : tensor<2x4xf32>
      block.yield %r : tensor<2x1xf32>
    }
    block.store %s, %out0 omap <x = 0> : tensor<2x1xf32> into tensor<4x1xf32>
    block.return
  }
  return %o : tensor<4x1xf32>
}
// expected-error @+1 {{@mask_without_iteration is not equivalent to @ref}}
func.func @mask_without_iteration(%x: tensor<4x8xf32>) -> tensor<4x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1> : (tensor<4x8xf32>) -> tensor<4x1xf32> {
  ^bb0(%in0: tensor<4x8xf32>, %out0: tensor<4x1xf32>):
    %s = block.for_loop 2 iterations accumulate (sum) : tensor<2x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<4x8xf32> -> tensor<2x4xf32>
      %m = block.triangle_fill %t dims [0, 1] diagonal 1 value 0xFFF0000000000000 imap <x = 0> : tensor<2x4xf32>
      %e = block.exp %m : tensor<2x4xf32>
      %r = block.reduce_sum %e dim 1 : tensor<2x4xf32>
      block.yield %r : tensor<2x1xf32>
    }
    block.store %s, %out0 omap <x = 0> : tensor<2x1xf32> into tensor<4x1xf32>
    block.return
  }
  return %o : tensor<4x1xf32>
}
// expected-error @+1 {{@mask_other_diagonal is not equivalent to @ref}}
func.func @mask_other_diagonal(%x: tensor<4x8xf32>) -> tensor<4x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %m = kernel.triangle_fill %x dims [0, 1] diagonal 2 value 0xFFF0000000000000 : tensor<4x8xf32>
  %e = kernel.exp %m : tensor<4x8xf32>
  %s = kernel.reduce_sum %e dim 1 : tensor<4x8xf32>
  return %s : tensor<4x1xf32>
}

// -----

// Accepted: a scale moved onto a constant weight. Tensor constants are
// arguments of both field programs, the same constant the same argument,
// so the check holds for every value of the weight.
func.func @ref(%x: tensor<4x8xf32>) -> tensor<4x6xf32> {
  %w = arith.constant dense<0.5> : tensor<8x6xf32>
  %m = kernel.matmul %x, %w : tensor<4x8xf32>, tensor<8x6xf32>
  %s = kernel.mul_scalar %m, 2.0 : tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}
// expected-remark @+1 {{@scaled_weight is equivalent to @ref: }}
func.func @scaled_weight(%x: tensor<4x8xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %w = arith.constant dense<0.5> : tensor<8x6xf32>
  %ws = kernel.mul_scalar %w, 2.0 : tensor<8x6xf32>
  %m = kernel.matmul %x, %ws : tensor<4x8xf32>, tensor<8x6xf32>
  return %m : tensor<4x6xf32>
}

// -----

// Rejected: another weight.
func.func @ref(%x: tensor<4x8xf32>) -> tensor<4x6xf32> {
  %w = arith.constant dense<0.5> : tensor<8x6xf32>
  %m = kernel.matmul %x, %w : tensor<4x8xf32>, tensor<8x6xf32>
  return %m : tensor<4x6xf32>
}
// expected-error @+1 {{@other_weight is not equivalent to @ref}}
func.func @other_weight(%x: tensor<4x8xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %w = arith.constant dense<0.25> : tensor<8x6xf32>
  %m = kernel.matmul %x, %w : tensor<4x8xf32>, tensor<8x6xf32>
  return %m : tensor<4x6xf32>
}

// -----

// Rejected, though equal for this weight: adding a zero bias is the
// identity only for its value, which the check does not use.
func.func @ref(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %b = arith.constant dense<0.0> : tensor<4x6xf32>
  %y = kernel.add %x, %b : tensor<4x6xf32>, tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}
// expected-error @+1 {{@bias_dropped is not equivalent to @ref}}
func.func @bias_dropped(%x: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %y = kernel.mul_scalar %x, 1.0 : tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// Accepted: an f16 weight, whose f32 run (the tolerance check) widens the
// constant's elements with its type; an unexpected warning that the f32 run
// failed would fail this test.
func.func @ref(%x: tensor<4x8xf16>) -> tensor<4x6xf16> {
  %w = arith.constant dense<0.375> : tensor<8x6xf16>
  %m = kernel.matmul %x, %w : tensor<4x8xf16>, tensor<8x6xf16>
  %e = kernel.exp %m : tensor<4x6xf16>
  return %e : tensor<4x6xf16>
}
// expected-remark @+1 {{@f16_weight is equivalent to @ref: }}
func.func @f16_weight(%x: tensor<4x8xf16>) -> tensor<4x6xf16> attributes {mlsopt.equivalent_to = @ref} {
  %w = arith.constant dense<0.375> : tensor<8x6xf16>
  %m = kernel.matmul %x, %w : tensor<4x8xf16>, tensor<8x6xf16>
  %e = kernel.exp %m : tensor<4x6xf16>
  return %e : tensor<4x6xf16>
}

// -----

// Accepted: the search aligns a bias [6] with the [4, 6] operand it is
// added to as a new constant [1, 6]. A constant and a reshape of it hold
// the same elements in the same order, so they are one argument of the
// field programs (as two, the check compared different random biases).
func.func @ref(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %b = arith.constant dense<[0.5, 1.5, -2.0, 3.0, 0.25, 7.0]> : tensor<6xf32>
  %y = kernel.add %x, %b : tensor<4x6xf32>, tensor<6xf32>
  %e = kernel.exp %y : tensor<4x6xf32>
  return %e : tensor<4x6xf32>
}
// expected-remark @+1 {{@reshaped_bias is equivalent to @ref: }}
func.func @reshaped_bias(%x: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %b = arith.constant dense<[[0.5, 1.5, -2.0, 3.0, 0.25, 7.0]]> : tensor<1x6xf32>
  %y = kernel.add %x, %b : tensor<4x6xf32>, tensor<1x6xf32>
  %e = kernel.exp %y : tensor<4x6xf32>
  return %e : tensor<4x6xf32>
}

// -----

// A function left as it was, op for op (--superoptimize with
// keep-reference=true links it to its copy even when it replaced nothing),
// is equivalent without a test: this pair would need 430 million field
// elements at full shapes, past max-elements.
func.func @big_ref(%x: tensor<70000x3x1024xf16>) -> tensor<70000x3x1024xf16> {
  %e = kernel.exp %x : tensor<70000x3x1024xf16>
  %r = kernel.mul_scalar %e, 2.0 : tensor<70000x3x1024xf16>
  return %r : tensor<70000x3x1024xf16>
}
// expected-remark @+1 {{@big is equivalent to @big_ref: the same program, op for op}}
func.func @big(%x: tensor<70000x3x1024xf16>) -> tensor<70000x3x1024xf16> attributes {mlsopt.equivalent_to = @big_ref} {
  %e = kernel.exp %x : tensor<70000x3x1024xf16>
  %r = kernel.mul_scalar %e, 2.0 : tensor<70000x3x1024xf16>
  return %r : tensor<70000x3x1024xf16>
}

// -----

// The same ops with another constant are another program: compared, and
// too large to compare.
func.func @big_ref(%x: tensor<70000x3x1024xf16>) -> tensor<70000x3x1024xf16> {
  %e = kernel.exp %x : tensor<70000x3x1024xf16>
  %r = kernel.mul_scalar %e, 2.0 : tensor<70000x3x1024xf16>
  return %r : tensor<70000x3x1024xf16>
}
// expected-error @+1 {{@big vs @big_ref: checking at full shapes needs about}}
func.func @big(%x: tensor<70000x3x1024xf16>) -> tensor<70000x3x1024xf16> attributes {mlsopt.equivalent_to = @big_ref} {
  %e = kernel.exp %x : tensor<70000x3x1024xf16>
  %r = kernel.mul_scalar %e, 3.0 : tensor<70000x3x1024xf16>
  return %r : tensor<70000x3x1024xf16>
}

// -----

// Accepted: a kernel whose grid cuts 40 columns into 3 tiles of 14 divides
// by c in every lane; past the last tile's end c reads 0 (as on the GPU),
// where no result is stored. The test with zero padding divides by zero;
// retried with random padding, it proves the stored results equal.
func.func @ref(%x: tensor<24x40xf32>, %c: tensor<1x40xf32>, %r: tensor<24x1xf32>) -> tensor<24x40xf32> {
  %0 = kernel.neg %x : tensor<24x40xf32>
  %1 = kernel.exp %0 : tensor<24x40xf32>
  %5 = kernel.div %1, %c : tensor<24x40xf32>, tensor<1x40xf32>
  %6 = kernel.tanh %r : tensor<24x1xf32>
  %7 = kernel.sub %5, %6 : tensor<24x40xf32>, tensor<24x1xf32>
  return %7 : tensor<24x40xf32>
}
// expected-remark @+1 {{@ragged_divide is equivalent to @ref: }}
func.func @ragged_divide(%arg0: tensor<24x40xf32>, %arg1: tensor<1x40xf32>, %arg2: tensor<24x1xf32>) -> tensor<24x40xf32> attributes {mlsopt.equivalent_to = @ref} {
  %0 = kernel.custom(%arg0, %arg1, %arg2) grid <24, 3, 1> block <128, 1, 1> : (tensor<24x40xf32>, tensor<1x40xf32>, tensor<24x1xf32>) -> tensor<24x40xf32> {
  ^bb0(%in0: tensor<24x40xf32>, %in1: tensor<1x40xf32>, %in2: tensor<24x1xf32>, %out0: tensor<24x40xf32>):
    %1 = block.for_loop 1 iterations accumulate (sum) : tensor<1x14xf32> {
      %2 = block.load %in0 imap <x = 0, y = 1> : tensor<24x40xf32> -> tensor<1x14xf32>
      %3 = block.load %in1 imap <y = 1> : tensor<1x40xf32> -> tensor<1x14xf32>
      %4 = block.load %in2 imap <x = 0> : tensor<24x1xf32> -> tensor<1x1xf32>
      %5 = thread.graph(%2, %4, %3) : (tensor<1x14xf32>, tensor<1x1xf32>, tensor<1x14xf32>) -> tensor<1x14xf32> {
      ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
        %6 = thread.unary neg %arg3 : f32
        %7 = thread.unary tanh %arg4 : f32
        %8 = thread.unary exp %6 : f32
        %9 = thread.binary div %8, %arg5 : f32
        %10 = thread.binary sub %9, %7 : f32
        thread.yield %10 : f32
      }
      block.yield %5 : tensor<1x14xf32>
    }
    block.store %1, %out0 omap <x = 0, y = 1> : tensor<1x14xf32> into tensor<24x40xf32>
    block.return
  }
  return %0 : tensor<24x40xf32>
}

// -----

// Refused: the same division past the end of a ragged loop tile feeds the
// row sum (on the GPU, exp(0) / 0 = inf would reach it). Retried with
// random padding, the sum differs.
func.func @ref(%x: tensor<24x40xf32>, %c: tensor<1x40xf32>) -> tensor<24x1xf32> {
  %0 = kernel.neg %x : tensor<24x40xf32>
  %1 = kernel.exp %0 : tensor<24x40xf32>
  %2 = kernel.div %1, %c : tensor<24x40xf32>, tensor<1x40xf32>
  %3 = kernel.reduce_sum %2 dim 1 : tensor<24x40xf32>
  return %3 : tensor<24x1xf32>
}
// expected-error @+1 {{@padded_sum is not equivalent to @ref: result #0 differs}}
func.func @padded_sum(%x: tensor<24x40xf32>, %c: tensor<1x40xf32>) -> tensor<24x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %0 = kernel.custom(%x, %c) grid <24, 1, 1> block <128, 1, 1> : (tensor<24x40xf32>, tensor<1x40xf32>) -> tensor<24x1xf32> {
  ^bb0(%in0: tensor<24x40xf32>, %in1: tensor<1x40xf32>, %out0: tensor<24x1xf32>):
    %1 = block.for_loop 3 iterations accumulate (sum) : tensor<1x14xf32> {
      %2 = block.load %in0 imap <x = 0> fmap 1 : tensor<24x40xf32> -> tensor<1x14xf32>
      %3 = block.load %in1 imap <> fmap 1 : tensor<1x40xf32> -> tensor<1x14xf32>
      %4 = thread.graph(%2, %3) : (tensor<1x14xf32>, tensor<1x14xf32>) -> tensor<1x14xf32> {
      ^bb0(%a: f32, %b: f32):
        %5 = thread.unary neg %a : f32
        %6 = thread.unary exp %5 : f32
        %7 = thread.binary div %6, %b : f32
        thread.yield %7 : f32
      }
      block.yield %4 : tensor<1x14xf32>
    }
    %8 = block.reduce_sum %1 dim 1 : tensor<1x14xf32>
    block.store %8, %out0 omap <x = 0> : tensor<1x1xf32> into tensor<24x1xf32>
    block.return
  }
  return %0 : tensor<24x1xf32>
}

// -----

// Refused: a row max walked by a ragged loop (3 tiles of 14 over 40
// columns). The last tile reads 2 zeros past the end, as the GPU does, so
// the kernel computes max(row, 0): wrong for a row of negatives. In the
// order max uses, 0 is above every other residue, so the padding wins.
func.func @ref(%x: tensor<4x40xf32>) -> tensor<4x1xf32> {
  %m = kernel.reduce_max %x dim 1 : tensor<4x40xf32>
  return %m : tensor<4x1xf32>
}
// expected-error @+1 {{@padded_max is not equivalent to @ref: result #0 differs at flat element 0 in random test 0 (0 vs}}
func.func @padded_max(%x: tensor<4x40xf32>) -> tensor<4x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1> : (tensor<4x40xf32>) -> tensor<4x1xf32> {
  ^bb0(%in0: tensor<4x40xf32>, %out0: tensor<4x1xf32>):
    %acc = block.for_loop 3 iterations accumulate (max) : tensor<2x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<4x40xf32> -> tensor<2x14xf32>
      %s = block.reduce_max %t dim 1 : tensor<2x14xf32>
      block.yield %s : tensor<2x1xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<2x1xf32> into tensor<4x1xf32>
    block.return
  }
  return %o : tensor<4x1xf32>
}

// -----

// Accepted: a row max over a causal mask's -inf equals the max of the
// elements the mask keeps, as -inf is below every residue in max's order.
// Row 0 keeps column 0 alone, so its max is x[0, 0] (a residue the -inf
// stand-in would otherwise beat about half of the time).
func.func @ref(%x: tensor<8x2x2xf32>) -> tensor<8x2x1xf32> {
  %m = kernel.triangle_fill %x dims [1, 2] diagonal 1 value 0xFFF0000000000000 : tensor<8x2x2xf32>
  %r = kernel.reduce_max %m dim 2 : tensor<8x2x2xf32>
  return %r : tensor<8x2x1xf32>
}
// expected-remark @+1 {{@kept_only is equivalent to @ref: }}
func.func @kept_only(%x: tensor<8x2x2xf32>) -> tensor<8x2x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %row0 = tensor.extract_slice %x[0, 0, 0] [8, 1, 1] [1, 1, 1] : tensor<8x2x2xf32> to tensor<8x1x1xf32>
  %row1 = tensor.extract_slice %x[0, 1, 0] [8, 1, 2] [1, 1, 1] : tensor<8x2x2xf32> to tensor<8x1x2xf32>
  %max1 = kernel.reduce_max %row1 dim 2 : tensor<8x1x2xf32>
  %r = kernel.concat %row0, %max1 dim 1 : tensor<8x1x1xf32>, tensor<8x1x1xf32>
  return %r : tensor<8x2x1xf32>
}

// -----

// Calls are evaluated as the bodies they call, calls inside those too: a
// front end's helper function (here an activation, which itself calls a
// scale) against the same computation written out.
func.func private @scale(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = kernel.mul_scalar %x, 2.0 : tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func private @act(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %e = kernel.exp %x : tensor<4x6xf32>
  %r = func.call @scale(%e) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func @ref(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %m = kernel.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
  %r = func.call @act(%m) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
// expected-remark @+1 {{@written_out is equivalent to @ref: equal on}}
func.func @written_out(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %m = kernel.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
  %e = kernel.exp %m : tensor<4x6xf32>
  %r = kernel.add %e, %e : tensor<4x6xf32>, tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
// expected-error @+1 {{@forgets_scale is not equivalent to @ref: result #0 differs}}
func.func @forgets_scale(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %m = kernel.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
  %e = kernel.exp %m : tensor<4x6xf32>
  return %e : tensor<4x6xf32>
}

// -----

// Only the checked function calls: its copy with the calls inlined no longer
// names a reference it cannot find in the scratch module ("not a function
// here" before).
func.func private @half(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = kernel.mul_scalar %x, 0.5 : tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func @ref(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = kernel.mul_scalar %x, 0.5 : tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
// expected-remark @+1 {{@calls_half is equivalent to @ref: equal on}}
func.func @calls_half(%x: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  %r = func.call @half(%x) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// A call of a function without a body cannot be evaluated.
func.func private @external(%x: tensor<4x6xf32>) -> tensor<4x6xf32>
func.func @ref(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = kernel.exp %x : tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func @calls_external(%x: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  // expected-error @+1 {{verify-equivalence: cannot evaluate the call of @external: it is not a function of one block in this module}}
  %r = func.call @external(%x) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Nor can a recursive one: its calls nest without end.
func.func @ref(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = kernel.exp %x : tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func @recursive(%x: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {mlsopt.equivalent_to = @ref} {
  // expected-error @+1 {{verify-equivalence: calls nest more than 1024 deep (a recursive call?)}}
  %r = func.call @recursive(%x) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// An op neither engine takes is named, not the scalar constant that it
// reads and that comes first (a tensor.pad's padding value).
func.func @ref(%x: tensor<4x6xf32>) -> tensor<6x8xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{the finite-field evaluator does not support 'tensor.pad'}}
  %p = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x6xf32> to tensor<6x8xf32>
  return %p : tensor<6x8xf32>
}
func.func @padded(%x: tensor<4x6xf32>) -> tensor<6x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %zero = arith.constant 0.0 : f32
  %e = kernel.exp %x : tensor<4x6xf32>
  // expected-error @+1 {{the finite-field evaluator does not support 'tensor.pad'}}
  %p = tensor.pad %e low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x6xf32> to tensor<6x8xf32>
  return %p : tensor<6x8xf32>
}

// -----

// A slice at a position known only at run time (a KV-cache row at the
// decode position, an index argument) has no field semantics. Where both
// functions take it at the same place, from the same argument, it is cut
// out like a linalg op the import left: its result is drawn at random in
// both, and the tensor it reads is compared.
func.func @ref(%x: tensor<16x8xf32>, %pos: index) -> tensor<1x8xf32> {
  %s = tensor.extract_slice %x[%pos, 0] [1, 8] [1, 1] : tensor<16x8xf32> to tensor<1x8xf32>
  %e = kernel.add %s, %s : tensor<1x8xf32>, tensor<1x8xf32>
  return %e : tensor<1x8xf32>
}
// expected-remark @+2 {{1 slice at a run-time offset, the same in both, compared at its operands}}
// expected-remark @+1 {{no f32 tolerance check of @doubled: it slices at offsets known only at run time, which random integers may put outside the tensor}}
func.func @doubled(%x: tensor<16x8xf32>, %pos: index) -> tensor<1x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %s = tensor.extract_slice %x[%pos, 0] [1, 8] [1, 1] : tensor<16x8xf32> to tensor<1x8xf32>
  %e = kernel.mul_scalar %s, 2.0 : tensor<1x8xf32>
  return %e : tensor<1x8xf32>
}

// -----

// A KV-cache write at the position: the row written differs, and the cut
// compares the tensors the slice reads.
func.func @ref(%cache: tensor<16x8xf32>, %row: tensor<1x8xf32>, %pos: i64) -> tensor<16x8xf32> {
  %p = arith.index_cast %pos : i64 to index
  %c = tensor.insert_slice %row into %cache[%p, 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}
// expected-error @+2 {{@negated_row is not equivalent to @ref: a tensor that an op the field does not evaluate reads (cut result #1) differs}}
// expected-note @+1 {{compared with 1 op the field does not evaluate cut out at the same places in both, their results drawn at random}}
func.func @negated_row(%cache: tensor<16x8xf32>, %row: tensor<1x8xf32>, %pos: i64) -> tensor<16x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %p = arith.index_cast %pos : i64 to index
  %n = kernel.neg %row : tensor<1x8xf32>
  %c = tensor.insert_slice %n into %cache[%p, 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// -----

// Slices at offsets computed differently do not pair up: the field names
// the one it cannot evaluate, with why.
func.func @ref(%x: tensor<16x8xf32>, %pos: index) -> tensor<1x8xf32> {
  // expected-error @+1 {{the finite-field evaluator does not support 'tensor.extract_slice' at an offset known only at run time}}
  %s = tensor.extract_slice %x[%pos, 0] [1, 8] [1, 1] : tensor<16x8xf32> to tensor<1x8xf32>
  %e = kernel.exp %s : tensor<1x8xf32>
  return %e : tensor<1x8xf32>
}
func.func @next_row(%x: tensor<16x8xf32>, %pos: index) -> tensor<1x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %c1 = arith.constant 1 : index
  %p = arith.addi %pos, %c1 : index
  // expected-error @+1 {{the finite-field evaluator does not support 'tensor.extract_slice' at an offset known only at run time}}
  %s = tensor.extract_slice %x[%p, 0] [1, 8] [1, 1] : tensor<16x8xf32> to tensor<1x8xf32>
  %e = kernel.exp %s : tensor<1x8xf32>
  return %e : tensor<1x8xf32>
}

// -----

// Scalar arguments are drawn like 0-d tensors: the reference reads alpha
// and beta as the import leaves them (tensor.from_elements, beta's also
// read by a generic the import left, which the check cuts out); the
// function reads them from a custom kernel's 0-d loads.
func.func @ref(%x: tensor<4x8xf32>, %alpha: f32, %beta: f32) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = tensor.from_elements %alpha : tensor<f32>
  %b = tensor.from_elements %beta : tensor<f32>
  %m = kernel.mul %x, %a : tensor<4x8xf32>, tensor<f32>
  %r = kernel.add %m, %b : tensor<4x8xf32>, tensor<f32>
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = math.atan2 %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r, %g : tensor<4x8xf32>, tensor<4x8xf32>
}
// expected-remark @+1 {{@fused is equivalent to @ref}}
func.func @fused(%x: tensor<4x8xf32>, %alpha: f32, %beta: f32) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {mlsopt.equivalent_to = @ref} {
  %a = tensor.from_elements %alpha : tensor<f32>
  %b = tensor.from_elements %beta : tensor<f32>
  %a2 = tensor.expand_shape %a [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %b2 = tensor.expand_shape %b [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %r = kernel.custom(%x, %a2, %b2) grid <4, 1, 1> block <128, 1, 1> : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<4x8xf32> {
  ^bb0(%in0: tensor<4x8xf32>, %in1: tensor<1x1xf32>, %in2: tensor<1x1xf32>, %out0: tensor<4x8xf32>):
    %0 = block.for_loop 1 iterations accumulate (sum) : tensor<1x8xf32> {
      %1 = block.load %in0 imap <x = 0> : tensor<4x8xf32> -> tensor<1x8xf32>
      %2 = block.load %in1 imap <> : tensor<1x1xf32> -> tensor<1x1xf32>
      %3 = block.load %in2 imap <> : tensor<1x1xf32> -> tensor<1x1xf32>
      %4 = block.mul %1, %2 : tensor<1x8xf32>, tensor<1x1xf32>
      %5 = block.add %4, %3 : tensor<1x8xf32>, tensor<1x1xf32>
      block.yield %5 : tensor<1x8xf32>
    }
    block.store %0, %out0 omap <x = 0> : tensor<1x8xf32> into tensor<4x8xf32>
    block.return
  }
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = math.atan2 %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r, %g : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Rejected: alpha and beta swapped; the two scalars are drawn apart.
func.func @ref(%x: tensor<4x8xf32>, %alpha: f32, %beta: f32) -> tensor<4x8xf32> {
  %a = tensor.from_elements %alpha : tensor<f32>
  %b = tensor.from_elements %beta : tensor<f32>
  %m = kernel.mul %x, %a : tensor<4x8xf32>, tensor<f32>
  %r = kernel.add %m, %b : tensor<4x8xf32>, tensor<f32>
  return %r : tensor<4x8xf32>
}
// expected-error @+1 {{@swapped is not equivalent to @ref: result #0 differs at flat element}}
func.func @swapped(%x: tensor<4x8xf32>, %alpha: f32, %beta: f32) -> tensor<4x8xf32> attributes {mlsopt.equivalent_to = @ref} {
  %a = tensor.from_elements %alpha : tensor<f32>
  %b = tensor.from_elements %beta : tensor<f32>
  %m = kernel.mul %x, %b : tensor<4x8xf32>, tensor<f32>
  %r = kernel.add %m, %a : tensor<4x8xf32>, tensor<f32>
  return %r : tensor<4x8xf32>
}
