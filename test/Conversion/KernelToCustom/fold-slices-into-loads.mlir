// RUN: mlsopt-opt %s --fold-slices-into-loads --split-input-file | FileCheck %s

// q and k sliced from one product: the kernel reads the product once, each
// load through its slice's window; the slices go.
// CHECK-LABEL: func.func @two_slices_of_one_value
// CHECK-NOT: tensor.extract_slice
// CHECK: kernel.custom(%arg0) {{.*}} : (tensor<8x96xf32>) -> tensor<8x32xf32>
// CHECK-NEXT: ^bb0(%in0: tensor<8x96xf32>, %out0: tensor<8x32xf32>):
// CHECK: block.load %in0 window [0, 0] [8, 32] imap <x = 0> : tensor<8x96xf32> -> tensor<4x32xf32>
// CHECK: block.load %in0 window [0, 32] [8, 32] imap <x = 0> : tensor<8x96xf32> -> tensor<4x32xf32>
func.func @two_slices_of_one_value(%h: tensor<8x96xf32>) -> tensor<8x32xf32> {
  %q = tensor.extract_slice %h[0, 0] [8, 32] [1, 1] : tensor<8x96xf32> to tensor<8x32xf32>
  %k = tensor.extract_slice %h[0, 32] [8, 32] [1, 1] : tensor<8x96xf32> to tensor<8x32xf32>
  %o = kernel.custom (%q, %k) grid <2, 1, 1> block <128, 1, 1> : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%in0: tensor<8x32xf32>, %in1: tensor<8x32xf32>, %out0: tensor<8x32xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<4x32xf32> {
      %a = block.load %in0 imap <x = 0> : tensor<8x32xf32> -> tensor<4x32xf32>
      %b = block.load %in1 imap <x = 0> : tensor<8x32xf32> -> tensor<4x32xf32>
      %s = block.add %a, %b : tensor<4x32xf32>, tensor<4x32xf32>
      block.yield %s : tensor<4x32xf32>
    }
    block.store %m, %out0 omap <x = 0> : tensor<4x32xf32> into tensor<8x32xf32>
    block.return
  }
  return %o : tensor<8x32xf32>
}

// -----

// A load that has a window already reads the window of the slice's
// source that starts at the sum of the two offsets. A slice something
// else reads stays for it.
// CHECK-LABEL: func.func @window_of_a_window
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[2, 16] [6, 48] [1, 1]
// CHECK: kernel.custom(%arg0)
// CHECK: block.load %in0 window [3, 24] [4, 16] imap <> : tensor<8x64xf32> -> tensor<4x16xf32>
// CHECK: return %{{.*}}, %[[S]]
func.func @window_of_a_window(%h: tensor<8x64xf32>) -> (tensor<4x16xf32>, tensor<6x48xf32>) {
  %s = tensor.extract_slice %h[2, 16] [6, 48] [1, 1] : tensor<8x64xf32> to tensor<6x48xf32>
  %o = kernel.custom (%s) grid <1, 1, 1> block <128, 1, 1> : (tensor<6x48xf32>) -> tensor<4x16xf32> {
  ^bb0(%in0: tensor<6x48xf32>, %out0: tensor<4x16xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<4x16xf32> {
      %a = block.load %in0 window [1, 8] [4, 16] imap <> : tensor<6x48xf32> -> tensor<4x16xf32>
      block.yield %a : tensor<4x16xf32>
    }
    block.store %m, %out0 omap <> : tensor<4x16xf32> into tensor<4x16xf32>
    block.return
  }
  return %o, %s : tensor<4x16xf32>, tensor<6x48xf32>
}

// -----

// Strided and rank-reducing slices are no windows: they stay.
// CHECK-LABEL: func.func @not_boxes
// CHECK: %[[E:.*]] = tensor.extract_slice %arg0[0, 0] [8, 32] [1, 2]
// CHECK: %[[R:.*]] = tensor.extract_slice %arg1[0, 0, 0] [1, 8, 32]
// CHECK: kernel.custom(%[[E]], %[[R]])
// CHECK-NOT: window
func.func @not_boxes(%h: tensor<8x64xf32>, %g: tensor<2x8x32xf32>) -> tensor<8x32xf32> {
  %e = tensor.extract_slice %h[0, 0] [8, 32] [1, 2] : tensor<8x64xf32> to tensor<8x32xf32>
  %r = tensor.extract_slice %g[0, 0, 0] [1, 8, 32] [1, 1, 1] : tensor<2x8x32xf32> to tensor<8x32xf32>
  %o = kernel.custom (%e, %r) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%in0: tensor<8x32xf32>, %in1: tensor<8x32xf32>, %out0: tensor<8x32xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf32> {
      %a = block.load %in0 imap <> : tensor<8x32xf32> -> tensor<8x32xf32>
      %b = block.load %in1 imap <> : tensor<8x32xf32> -> tensor<8x32xf32>
      %s = block.add %a, %b : tensor<8x32xf32>, tensor<8x32xf32>
      block.yield %s : tensor<8x32xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x32xf32> into tensor<8x32xf32>
    block.return
  }
  return %o : tensor<8x32xf32>
}
