// REQUIRES: mlir-runner
// A load after the for-loop reads its tile once, for the epilogue: here the
// residual that a block adds to its tile of X W after summing over k. The
// right kernel loads the residual tile its output tile needs; the wrong one
// loads the transposed block's tile (a valid imap, the wrong rows and
// columns). Only the numbers tell them apart.
// RUN: cat %s %mlsopt_src_root/test/Examples/Inputs/compare.mlir \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// CHECK: right
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: ok
// CHECK: wrong
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: MISMATCH

func.func @reference(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>, %r: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %m = kernel.matmul %x, %w : tensor<8x16xf32>, tensor<16x8xf32>
  %y = kernel.add %m, %r : tensor<8x8xf32>, tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// 2x2 blocks, k in 4 steps of 4; block (x, y) adds rows 4x..4x+3 and
// columns 4y..4y+3 of the residual once the loop is over.
func.func @right(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>, %r: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %o = kernel.custom (%x, %w, %r) grid <2, 2, 1> block <32, 1, 1>
      : (tensor<8x16xf32>, tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %in1: tensor<16x8xf32>, %in2: tensor<8x8xf32>, %out0: tensor<8x8xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<4x4xf32> {
      %xt = block.load %in0 imap <x = 0> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<16x8xf32> -> tensor<4x4xf32>
      %m = block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x4xf32>
      block.yield %m : tensor<4x4xf32>
    }
    %rt = block.load %in2 imap <x = 0, y = 1> : tensor<8x8xf32> -> tensor<4x4xf32>
    %y = block.add %acc, %rt : tensor<4x4xf32>, tensor<4x4xf32>
    block.store %y, %out0 omap <x = 0, y = 1> : tensor<4x4xf32> into tensor<8x8xf32>
    block.return
  }
  return %o : tensor<8x8xf32>
}

func.func @wrong(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>, %r: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %o = kernel.custom (%x, %w, %r) grid <2, 2, 1> block <32, 1, 1>
      : (tensor<8x16xf32>, tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %in1: tensor<16x8xf32>, %in2: tensor<8x8xf32>, %out0: tensor<8x8xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<4x4xf32> {
      %xt = block.load %in0 imap <x = 0> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<16x8xf32> -> tensor<4x4xf32>
      %m = block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x4xf32>
      block.yield %m : tensor<4x4xf32>
    }
    %rt = block.load %in2 imap <x = 1, y = 0> : tensor<8x8xf32> -> tensor<4x4xf32>
    %y = block.add %acc, %rt : tensor<4x4xf32>, tensor<4x4xf32>
    block.store %y, %out0 omap <x = 0, y = 1> : tensor<4x4xf32> into tensor<8x8xf32>
    block.return
  }
  return %o : tensor<8x8xf32>
}

func.func @main() {
  %s0 = arith.constant 0.3 : f32
  %s1 = arith.constant 1.1 : f32
  %s2 = arith.constant 2.3 : f32
  %one = arith.constant 1.0 : f32
  %ex = tensor.empty() : tensor<8x16xf32>
  %ew = tensor.empty() : tensor<16x8xf32>
  %er = tensor.empty() : tensor<8x8xf32>
  %dx = tensor.cast %ex : tensor<8x16xf32> to tensor<?x?xf32>
  %dw = tensor.cast %ew : tensor<16x8xf32> to tensor<?x?xf32>
  %dr = tensor.cast %er : tensor<8x8xf32> to tensor<?x?xf32>
  %fx = call @fill2(%dx, %s0, %one) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %fw = call @fill2(%dw, %s1, %one) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %fr = call @fill2(%dr, %s2, %one) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %fx : tensor<?x?xf32> to tensor<8x16xf32>
  %w = tensor.cast %fw : tensor<?x?xf32> to tensor<16x8xf32>
  %r = tensor.cast %fr : tensor<?x?xf32> to tensor<8x8xf32>
  %ref = call @reference(%x, %w, %r) : (tensor<8x16xf32>, tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = tensor.cast %ref : tensor<8x8xf32> to tensor<?x?xf32>

  %o1 = call @right(%x, %w, %r) : (tensor<8x16xf32>, tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = tensor.cast %o1 : tensor<8x8xf32> to tensor<?x?xf32>
  vector.print str "right\n"
  %e1 = call @relerr2(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%e1) : (f32) -> ()

  %o2 = call @wrong(%x, %w, %r) : (tensor<8x16xf32>, tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = tensor.cast %o2 : tensor<8x8xf32> to tensor<?x?xf32>
  vector.print str "wrong\n"
  %e2 = call @relerr2(%a, %c) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%e2) : (f32) -> ()
  return
}
