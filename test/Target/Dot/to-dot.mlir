// RUN: mlsopt-translate --mlsopt-to-dot %s | FileCheck %s

// The reference program: one node per kernel op, wired by SSA uses.
// CHECK:       digraph mugraph {
// CHECK:       label="gated_mlp";
// CHECK:       [[X:n[0-9]+]] [label="arg0\ntensor<8x64xf16>", shape=ellipse];
// CHECK:       [[W:n[0-9]+]] [label="arg1\ntensor<64x64xf16>", shape=ellipse];
// The custom kernel is a cluster with its launch shape, the loop a nested one.
// CHECK:       label="kernel.custom grid <2,1,1> block <128,1,1>";
// CHECK:       [[OUT:n[0-9]+]] [label="out0\ntensor<8x64xf16>", shape=ellipse];
// CHECK:       label="for_loop 4 iterations";
// CHECK:       [[LX:n[0-9]+]] [label="block.load\nimap <> fmap 1\ntensor<8x16xf16>", shape=box];
// CHECK:       [[LW:n[0-9]+]] [label="block.load\nimap <x = 1> fmap 0\ntensor<16x32xf16>", shape=box];
// CHECK:       [[MM:n[0-9]+]] [label="block.matmul\ntensor<8x32xf16>", shape=box];
// CHECK:       [[ACC:n[0-9]+]] [label="accumulate sum\ntensor<8x32xf16>", shape=box];
// A thread graph is one node that lists its chain.
// CHECK:       [[TG:n[0-9]+]] [label="thread.graph\nunary silu\nmul_scalar\ntensor<8x32xf16>", shape=note];
// CHECK:       [[ST:n[0-9]+]] [label="block.store\nomap <x = 1>", shape=box];
// The kernel's result is its output node, used by the next kernel op.
// CHECK:       [[EXP:n[0-9]+]] [label="kernel.exp\ntensor<8x64xf16>", shape=box];
// CHECK-DAG:   [[X]] -> [[LX]];
// CHECK-DAG:   [[W]] -> [[LW]];
// CHECK-DAG:   [[LX]] -> [[MM]];
// CHECK-DAG:   [[LW]] -> [[MM]];
// CHECK-DAG:   [[MM]] -> [[ACC]];
// CHECK-DAG:   [[ACC]] -> [[TG]];
// CHECK-DAG:   [[TG]] -> [[ST]];
// CHECK-DAG:   [[ST]] -> [[OUT]];
// CHECK-DAG:   [[OUT]] -> [[EXP]];
func.func @gated_mlp(%x: tensor<8x64xf16>, %w: tensor<64x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x, %w) grid <2, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<64x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<64x64xf16>, %out0: tensor<8x64xf16>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<8x32xf16> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<8x64xf16> -> tensor<8x16xf16>
      %wt = block.load %in1 imap <x = 1> fmap 0 : tensor<64x64xf16> -> tensor<16x32xf16>
      %m = block.matmul %xt, %wt : tensor<8x16xf16>, tensor<16x32xf16>
      block.yield %m : tensor<8x32xf16>
    }
    %y = thread.graph (%acc) : (tensor<8x32xf16>) -> tensor<8x32xf16> {
    ^bb0(%a: f16):
      %s = thread.unary silu %a : f16
      %h = thread.mul_scalar %s, 0.5 : f16
      thread.yield %h : f16
    }
    block.store %y, %out0 omap <x = 1> : tensor<8x32xf16> into tensor<8x64xf16>
    block.return
  }
  %e = kernel.exp %o : tensor<8x64xf16>
  return %e : tensor<8x64xf16>
}
