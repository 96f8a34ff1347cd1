// Options out of range are errors before any check runs.
// RUN: not mlsopt-opt %s --verify-equivalence=bound=2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not mlsopt-opt %s --verify-equivalence=bound=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUND
// BOUND: error: verify-equivalence: bound must be a probability above 0 and below 1
// RUN: not mlsopt-opt %s --verify-equivalence=f32-tolerance=nan -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOLERANCE
// RUN: not mlsopt-opt %s --verify-equivalence=f32-tolerance=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOLERANCE
// TOLERANCE: error: verify-equivalence: f32-tolerance must be a finite number >= 0
// RUN: not mlsopt-opt %s --verify-equivalence=max-elements=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ELEMENTS
// ELEMENTS: error: verify-equivalence: max-elements must be >= 0, not -1
// RUN: not mlsopt-opt %s --verify-equivalence=max-work=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGATIVE-WORK
// NEGATIVE-WORK: error: verify-equivalence: max-work must be >= 0, not -1

// A loop of four billion iterations over one small tile holds little
// memory, but one test would run for hours: its work is what max-work
// bounds: per block and iteration, the 2x64 tile loaded, read by the sum
// and its 2 sums, yielded (260 elements; 2 blocks x 4e9 iterations), then
// 536 elements outside the loop.
// RUN: not mlsopt-opt %s --verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=WORK
// WORK: error: @long_loop vs @ref: one test takes about 2080000000536 field operations, more than max-work=100000000000; raise max-work to run it anyway
// The same program within the bound is checked (and found wrong: the loop
// sums each row four billion times).
// RUN: sed -e 's/4000000000 iterations/4 iterations/' %s | not mlsopt-opt --verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: @long_loop is not equivalent to @ref

func.func @ref(%x: tensor<4x64xf32>) -> tensor<4x1xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<4x64xf32>
  return %s : tensor<4x1xf32>
}
func.func @long_loop(%x: tensor<4x64xf32>) -> tensor<4x1xf32> attributes {mlsopt.equivalent_to = @ref} {
  %o = kernel.custom (%x) grid <2, 1, 1> block <32, 1, 1> : (tensor<4x64xf32>) -> tensor<4x1xf32> {
  ^bb0(%in0: tensor<4x64xf32>, %out0: tensor<4x1xf32>):
    %acc = block.for_loop 4000000000 iterations accumulate (sum) : tensor<2x1xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<4x64xf32> -> tensor<2x64xf32>
      %s = block.reduce_sum %t dim 1 : tensor<2x64xf32>
      block.yield %s : tensor<2x1xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<2x1xf32> into tensor<4x1xf32>
    block.return
  }
  return %o : tensor<4x1xf32>
}
