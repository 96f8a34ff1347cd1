//===- TestPrograms.cpp - MLIR programs several unit tests share ----------===//

#include "TestPrograms.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

std::string mlsopt::test::tiledMatmulKernel(StringRef name, StringRef xImap,
                                            StringRef omap,
                                            StringRef epilogue) {
  std::string stored = "%acc";
  std::string epilogueOp;
  if (!epilogue.empty()) {
    stored = "%e";
    epilogueOp = formatv("    %e = block.{0} %acc : tensor<4x4xf32>\n",
                         epilogue)
                     .str();
  }
  return formatv(R"mlir(
func.func @{0}(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {{
  %o = kernel.custom (%x, %w) grid <2, 2, 1> block <32, 1, 1>
      : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32> {{
  ^bb0(%in0: tensor<8x16xf32>, %in1: tensor<16x8xf32>, %out0: tensor<8x8xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<4x4xf32> {{
      %xt = block.load %in0 imap <{1}> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<16x8xf32> -> tensor<4x4xf32>
      %m = block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x4xf32>
      block.yield %m : tensor<4x4xf32>
    }
{3}    block.store {4}, %out0 omap <{2}> : tensor<4x4xf32> into tensor<8x8xf32>
    block.return
  }
  return %o : tensor<8x8xf32>
}
)mlir",
                 name, xImap, omap, epilogueOp, stored)
      .str();
}

StringRef mlsopt::test::rootsUnderExp() {
  return R"mlir(
func.func @exp_norm_op(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %n = kernel.rms_norm %x {epsilon = 2.5e-01 : f64} : tensor<4x8xf32>
  %e = kernel.exp %n : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @exp_norm_rsqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kernel.square %x : tensor<4x8xf32>
  %m = kernel.reduce_sum %s dim 1 : tensor<4x8xf32>
  %ms = kernel.mul_scalar %m, 0.125 : tensor<4x1xf32>
  %me = kernel.add_scalar %ms, 0.25 : tensor<4x1xf32>
  %r = kernel.rsqrt %me : tensor<4x1xf32>
  %n = kernel.mul %x, %r : tensor<4x8xf32>, tensor<4x1xf32>
  %e = kernel.exp %n : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @exp_norm_div(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kernel.square %x : tensor<4x8xf32>
  %m = kernel.reduce_sum %s dim 1 : tensor<4x8xf32>
  %ms = kernel.mul_scalar %m, 0.125 : tensor<4x1xf32>
  %me = kernel.add_scalar %ms, 0.25 : tensor<4x1xf32>
  %r = kernel.sqrt %me : tensor<4x1xf32>
  %n = kernel.div %x, %r : tensor<4x8xf32>, tensor<4x1xf32>
  %e = kernel.exp %n : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @exp_norm_block(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%in0: tensor<4x8xf32>, %out0: tensor<4x8xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<2x8xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<4x8xf32> -> tensor<2x8xf32>
      %n = block.rms_norm %t {epsilon = 2.5e-01 : f64} : tensor<2x8xf32>
      %e = block.exp %n : tensor<2x8xf32>
      block.yield %e : tensor<2x8xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<2x8xf32> into tensor<4x8xf32>
    block.return
  }
  return %o : tensor<4x8xf32>
}
func.func @exp_norm_other_eps(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %n = kernel.rms_norm %x {epsilon = 5.0e-01 : f64} : tensor<4x8xf32>
  %e = kernel.exp %n : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

func.func @exp_root_op(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %n = kernel.rms_norm %x {epsilon = 0.0 : f64} : tensor<4x8xf32>
  %e = kernel.exp %n : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @exp_root_div(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kernel.square %x : tensor<4x8xf32>
  %m = kernel.reduce_sum %s dim 1 : tensor<4x8xf32>
  %ms = kernel.mul_scalar %m, 0.125 : tensor<4x1xf32>
  %r = kernel.sqrt %ms : tensor<4x1xf32>
  %n = kernel.div %x, %r : tensor<4x8xf32>, tensor<4x1xf32>
  %e = kernel.exp %n : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
// The loop walks the 8 columns: the rms accumulator ends as the root of the
// row's mean square, and the mean of 8 loads of the whole row is the row.
func.func @exp_root_acc(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1>
      : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%in0: tensor<4x8xf32>, %out0: tensor<4x8xf32>):
    %acc:2 = block.for_loop 8 iterations accumulate (rms, mean) : tensor<2x1xf32>, tensor<2x8xf32> {
      %c = block.load %in0 imap <x = 0> fmap 1 : tensor<4x8xf32> -> tensor<2x1xf32>
      %t = block.load %in0 imap <x = 0> : tensor<4x8xf32> -> tensor<2x8xf32>
      block.yield %c, %t : tensor<2x1xf32>, tensor<2x8xf32>
    }
    %n = block.div %acc#1, %acc#0 : tensor<2x8xf32>, tensor<2x1xf32>
    %e = block.exp %n : tensor<2x8xf32>
    block.store %e, %out0 omap <x = 0> : tensor<2x8xf32> into tensor<4x8xf32>
    block.return
  }
  return %o : tensor<4x8xf32>
}

func.func @qk_norm(%q: tensor<2x4x8xf32>, %k: tensor<2x8x6xf32>) -> tensor<2x4x6xf32> {
  %qn = kernel.rms_norm %q {epsilon = 2.5e-01 : f64} : tensor<2x4x8xf32>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 2.5e-01 : f64} : tensor<2x8x6xf32>
  %s = kernel.matmul %qn, %kn : tensor<2x4x8xf32>, tensor<2x8x6xf32>
  %e = kernel.exp %s : tensor<2x4x6xf32>
  return %e : tensor<2x4x6xf32>
}
func.func @qk_scaled(%q: tensor<2x4x8xf32>, %k: tensor<2x8x6xf32>) -> tensor<2x4x6xf32> {
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
func.func @qk_other_eps(%q: tensor<2x4x8xf32>, %k: tensor<2x8x6xf32>) -> tensor<2x4x6xf32> {
  %qn = kernel.rms_norm %q {epsilon = 2.5e-01 : f64} : tensor<2x4x8xf32>
  %kn = kernel.rms_norm %k dim 1 {epsilon = 5.0e-01 : f64} : tensor<2x8x6xf32>
  %s = kernel.matmul %qn, %kn : tensor<2x4x8xf32>, tensor<2x8x6xf32>
  %e = kernel.exp %s : tensor<2x4x6xf32>
  return %e : tensor<2x4x6xf32>
}

func.func @exp_tanh_squared(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = kernel.tanh %x : tensor<4x8xf32>
  %e = kernel.exp %t : tensor<4x8xf32>
  %s = kernel.square %e : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
func.func @exp_tanh_doubled(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = kernel.tanh %x : tensor<4x8xf32>
  %d = kernel.mul_scalar %t, 2.0 : tensor<4x8xf32>
  %e = kernel.exp %d : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @exp_erf_doubled(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = kernel.erf %x : tensor<4x8xf32>
  %d = kernel.mul_scalar %t, 2.0 : tensor<4x8xf32>
  %e = kernel.exp %d : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @exp_root_over_root(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kernel.sqrt %x : tensor<4x8xf32>
  %r = kernel.rsqrt %x : tensor<4x8xf32>
  %m = kernel.mul %s, %r : tensor<4x8xf32>, tensor<4x8xf32>
  %e = kernel.exp %m : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @exp_one(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = kernel.mul_scalar %x, 0.0 : tensor<4x8xf32>
  %o = kernel.add_scalar %z, 1.0 : tensor<4x8xf32>
  %e = kernel.exp %o : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
)mlir";
}
