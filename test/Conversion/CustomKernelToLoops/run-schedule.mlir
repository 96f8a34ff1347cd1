// REQUIRES: mlir-runner
// Custom kernels run on the CPU by their schedule: the right imap gives the
// reference's numbers, an imap that is valid but reads the wrong rows does
// not. Both kernels pass the verifier; only the numbers tell them apart.
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

func.func @reference(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %m = kernel.matmul %x, %w : tensor<8x16xf32>, tensor<16x8xf32>
  return %m : tensor<8x8xf32>
}

// 2x2 blocks: block (x, y) computes rows 4x..4x+3 and columns 4y..4y+3,
// walking k in 4 steps of 4.
func.func @right(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
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

// The same, but X's rows are picked by grid dim y: every block still loads a
// 4x4 tile, just not the one its output tile needs.
func.func @wrong(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
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

func.func @main() {
  %s0 = arith.constant 0.3 : f32
  %s1 = arith.constant 1.1 : f32
  %one = arith.constant 1.0 : f32
  %ex = tensor.empty() : tensor<8x16xf32>
  %ew = tensor.empty() : tensor<16x8xf32>
  %dx = tensor.cast %ex : tensor<8x16xf32> to tensor<?x?xf32>
  %dw = tensor.cast %ew : tensor<16x8xf32> to tensor<?x?xf32>
  %fx = call @fill2(%dx, %s0, %one) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %fw = call @fill2(%dw, %s1, %one) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %fx : tensor<?x?xf32> to tensor<8x16xf32>
  %w = tensor.cast %fw : tensor<?x?xf32> to tensor<16x8xf32>
  %ref = call @reference(%x, %w) : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %a = tensor.cast %ref : tensor<8x8xf32> to tensor<?x?xf32>

  %r = call @right(%x, %w) : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %b = tensor.cast %r : tensor<8x8xf32> to tensor<?x?xf32>
  vector.print str "right\n"
  %e1 = call @relerr2(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%e1) : (f32) -> ()

  %w2 = call @wrong(%x, %w) : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %c = tensor.cast %w2 : tensor<8x8xf32> to tensor<?x?xf32>
  vector.print str "wrong\n"
  %e2 = call @relerr2(%a, %c) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%e2) : (f32) -> ()
  return
}
