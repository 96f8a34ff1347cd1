// Subprograms follow the data flow, not the order the ops are printed in.
// Two independent chains printed interleaved, cut into subprograms of at
// most three ops: each chain is one subprogram (a cut in print order would
// mix them and leave each chain's middle tensor in device memory), and each
// becomes one kernel. The block is reordered so each replacement sits in
// one place; the two kernels, with one launch, then merge into one (one
// loop, each chain's load and stores); --verify-equivalence checks the
// result against the original.
// RUN: mlsopt-opt %s --superoptimize="max-kernel-ops=3 timeout=20 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// REMARK-COUNT-2: remark: superoptimize: replaced 3 kernel ops
// REMARK: remark: superoptimize: fused across the cut: 1 launches fewer {{.*}}; @interleaved launches 1 kernels
// REMARK-NOT: remark
// CHECK-LABEL: func.func @interleaved(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom(%arg0, %arg1)
// CHECK: block.for_loop 1 iterations accumulate (sum, sum)
// CHECK-COUNT-2: block.load
// CHECK-NOT: block.load
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: remark: @interleaved is equivalent to @interleaved_reference

func.func @interleaved(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %a1 = kernel.exp %x : tensor<64x256xf32>
  %b1 = kernel.square %y : tensor<64x256xf32>
  %a2 = kernel.mul %a1, %x : tensor<64x256xf32>, tensor<64x256xf32>
  %b2 = kernel.mul %b1, %y : tensor<64x256xf32>, tensor<64x256xf32>
  %a3 = kernel.mul_scalar %a2, 2.0 : tensor<64x256xf32>
  %b3 = kernel.add %b2, %y : tensor<64x256xf32>, tensor<64x256xf32>
  return %a3, %b3 : tensor<64x256xf32>, tensor<64x256xf32>
}
