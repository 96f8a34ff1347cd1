// A chain of elementwise ops on an input (a column's scale sqrt(c^2 + 1)),
// read broadcast by a larger elementwise program. The cut makes it a
// subprogram of its own; searched first, it became a custom kernel, which
// no kernel takes as its prologue, and the program was two launches.
// Searched after its reader, it stays kernel ops (with the reader's kernel
// computing them, the function is one launch: fusionBeatsAnswer) and joins
// the reader's kernel. 48 columns, not 40: the cheapest reader kernel for
// 40 cuts them raggedly (3 tiles of 14), and the chain, which is not 0
// where the tile's padding is, cannot join a ragged load; it becomes a
// kernel of its own (RAGGED). That reader divides by the chain's result in
// every lane, by zero past the last tile's end, where it stores nothing:
// the full-shape check retries such a test with random padding
// (docs/verification.md, "Division by zero"); before, it counted it void
// and the reader stayed kernel ops.
// RUN: sed 's/48x/40x/g' %s | mlsopt-opt --superoptimize="timeout=10" 2>&1 | FileCheck %s --check-prefix=RAGGED
// RAGGED-NOT: warning
// RAGGED: remark: superoptimize: replaced 5 kernel ops {{.*}} by 1 kernels
// RAGGED: kernel.custom(%arg0, %{{.*}}, %{{.*}}) grid <24, 3, 1>
// RAGGED: block.load %in1 imap <y = 1> : tensor<1x40xf32> -> tensor<1x14xf32>
// RAGGED: thread.binary div
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// REMARK: remark: superoptimize: replaced 5 kernel ops
// REMARK: remark: superoptimize: kept the subprogram of 3 kernel ops: with the kernels beside it computing its ops, the 6 ops of @chain within 16 steps of it cost {{.*}} (1 launches)
// REMARK: remark: superoptimize: fused across the cut: 3 launches fewer{{.*}}; @chain launches 1 kernels
// CHECK-LABEL: func.func @chain(
// CHECK: kernel.custom(%arg0, %{{.*}}, %{{.*}}) grid
// CHECK: thread.unary sqrt
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: remark: @chain is equivalent to @chain_reference

func.func @chain(%x: tensor<24x48xf32>, %r: tensor<24xf32>, %c: tensor<48xf32>) -> tensor<24x48xf32> {
  %0 = kernel.neg %x : tensor<24x48xf32>
  %1 = kernel.exp %0 : tensor<24x48xf32>
  %2 = kernel.square %c : tensor<48xf32>
  %3 = kernel.add_scalar %2, 1.000000e+00 : tensor<48xf32>
  %4 = kernel.sqrt %3 : tensor<48xf32>
  %5 = kernel.div %1, %4 : tensor<24x48xf32>, tensor<48xf32>
  %6 = kernel.tanh %r : tensor<24xf32>
  %e = tensor.expand_shape %6 [[0, 1]] output_shape [24, 1] : tensor<24xf32> into tensor<24x1xf32>
  %7 = kernel.sub %5, %e : tensor<24x48xf32>, tensor<24x1xf32>
  return %7 : tensor<24x48xf32>
}
