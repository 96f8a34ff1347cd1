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

// -----

// Heads of k sliced from a fused projection: the view of the slice is the
// slice of the projection's view (heads 4..7 of 12), which the kernel
// reads in place. A split of parts of rows (columns 8.. of rows of 16)
// stays as written.
// CHECK-LABEL: func.func @heads_of_a_slice
// CHECK: %[[V:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [8, 12, 16] : tensor<8x192xf32> into tensor<8x12x16xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[0, 8] [8, 64] [1, 1]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[S]]
// CHECK: kernel.custom(%[[V]], %[[E]])
// CHECK: block.load %in0 window [0, 4, 0] [8, 4, 16] imap <x = 1> : tensor<8x12x16xf32> -> tensor<8x1x16xf32>
func.func @heads_of_a_slice(%h: tensor<8x192xf32>) -> tensor<8x4x16xf32> {
  %k = tensor.extract_slice %h[0, 64] [8, 64] [1, 1] : tensor<8x192xf32> to tensor<8x64xf32>
  %kh = tensor.expand_shape %k [[0], [1, 2]] output_shape [8, 4, 16] : tensor<8x64xf32> into tensor<8x4x16xf32>
  %p = tensor.extract_slice %h[0, 8] [8, 64] [1, 1] : tensor<8x192xf32> to tensor<8x64xf32>
  %ph = tensor.expand_shape %p [[0], [1, 2]] output_shape [8, 4, 16] : tensor<8x64xf32> into tensor<8x4x16xf32>
  %o = kernel.custom (%kh, %ph) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x4x16xf32>, tensor<8x4x16xf32>) -> tensor<8x4x16xf32> {
  ^bb0(%in0: tensor<8x4x16xf32>, %in1: tensor<8x4x16xf32>, %out0: tensor<8x4x16xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x1x16xf32> {
      %a = block.load %in0 imap <x = 1> : tensor<8x4x16xf32> -> tensor<8x1x16xf32>
      %b = block.load %in1 imap <x = 1> : tensor<8x4x16xf32> -> tensor<8x1x16xf32>
      %s = block.add %a, %b : tensor<8x1x16xf32>, tensor<8x1x16xf32>
      block.yield %s : tensor<8x1x16xf32>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x1x16xf32> into tensor<8x4x16xf32>
    block.return
  }
  return %o : tensor<8x4x16xf32>
}

// -----

// A collapse of a contiguous slice (one batch of two, whole rows) is a
// slice of the collapsed value; one that cuts rows (the first 8 columns of
// every row) is not contiguous and stays.
// CHECK-LABEL: func.func @collapsed_slices
// CHECK: %[[C:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[0, 0, 0] [2, 8, 8] [1, 1, 1]
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[S]] {{\[\[}}0], [1, 2]]
// CHECK: kernel.custom(%[[C]], %[[F]])
// CHECK: block.load %in0 window [8, 0] [8, 16] imap <> : tensor<16x16xf32> -> tensor<8x16xf32>
func.func @collapsed_slices(%x: tensor<2x8x16xf32>) -> tensor<8x16xf32> {
  %b = tensor.extract_slice %x[1, 0, 0] [1, 8, 16] [1, 1, 1] : tensor<2x8x16xf32> to tensor<1x8x16xf32>
  %r = tensor.collapse_shape %b [[0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
  %c = tensor.extract_slice %x[0, 0, 0] [2, 8, 8] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x8x8xf32>
  %f = tensor.collapse_shape %c [[0], [1, 2]] : tensor<2x8x8xf32> into tensor<2x64xf32>
  %o = kernel.custom (%r, %f) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x16xf32>, tensor<2x64xf32>) -> tensor<8x16xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %in1: tensor<2x64xf32>, %out0: tensor<8x16xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x16xf32> {
      %a = block.load %in0 imap <> : tensor<8x16xf32> -> tensor<8x16xf32>
      block.yield %a : tensor<8x16xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x16xf32> into tensor<8x16xf32>
    block.return
  }
  return %o : tensor<8x16xf32>
}
