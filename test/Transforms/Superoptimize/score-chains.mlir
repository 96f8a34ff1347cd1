// Masks applied one after another to attention scores (a score chain) are
// searched as one add of an input that stands for all of theirs, shaped as
// their inputs broadcast together; the kernel found loads each input as
// the stand-in was loaded, along the dims it does not broadcast, and
// applies the chain on the score tiles. Two or more masks were one op and
// one input more than the search reached in its time: GPT-2's causal
// finfo.min fill with a padding mask took 2 launches, now 1.
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=30" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=30 keep-reference=true" 2>/dev/null \
// RUN:   | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// REMARK: :[[@LINE+28]]:{{.*}} remark: superoptimize: replaced 10 kernel ops {{.*}} by 1 kernels
// REMARK: @gpt2_padded launches 1 kernels
// CHECK-LABEL: func.func @gpt2_padded(
// CHECK-NEXT: kernel.custom(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-DAG: %[[C:.*]] = block.load %in3 imap <z = 2> : tensor<1x1x32x32xi1> -> tensor<1x1x2x32xi1>
// CHECK-DAG: %[[P:.*]] = block.load %in4 imap <x = 0> : tensor<2x1x1x32xf32> -> tensor<1x1x1x32xf32>
// CHECK: thread.graph(%[[C]], %{{.*}}, %[[P]])
// CHECK-NEXT: ^bb0(%[[M:.*]]: i1, %[[S:.*]]: f32, %[[A:.*]]: f32):
// CHECK-NEXT: %[[K:.*]] = thread.where %[[M]], 0.000000e+00, 0xFFF0000000000000
// CHECK-NEXT: %[[F:.*]] = thread.where %[[M]], 0xFFF0000000000000, -3.4028234663852886E+38
// CHECK-NEXT: %[[X:.*]] = thread.binary add %[[S]], %[[K]]
// CHECK-NEXT: %[[Y:.*]] = thread.binary max %[[X]], %[[F]]
// CHECK-NEXT: thread.binary add %[[Y]], %[[A]]
// CHECK-NOT: kernel.
// CHECK: return
func.func @gpt2_padded(%q: tensor<2x4x32x16xf32>, %k: tensor<2x4x16x32xf32>, %v: tensor<2x4x32x16xf32>, %causal: tensor<1x1x32x32xi1>, %am: tensor<2x1x1x32xf32>) -> tensor<2x4x32x16xf32> {
  %s0 = kernel.matmul %q, %k : tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32>
  %s1 = kernel.mul_scalar %s0, 0.25 : tensor<2x4x32x32xf32>
  %keep = kernel.where %causal, 0.0, 0xFFF0000000000000 : tensor<1x1x32x32xi1> to tensor<1x1x32x32xf32>
  %kept = kernel.add %s1, %keep : tensor<2x4x32x32xf32>, tensor<1x1x32x32xf32>
  %fill = kernel.where %causal, 0xFFF0000000000000, -3.4028234663852886E+38 : tensor<1x1x32x32xi1> to tensor<1x1x32x32xf32>
  %s2 = kernel.max %kept, %fill : tensor<2x4x32x32xf32>, tensor<1x1x32x32xf32>
  %s = kernel.add %s2, %am : tensor<2x4x32x32xf32>, tensor<2x1x1x32xf32>
  %m = kernel.reduce_max %s dim 3 : tensor<2x4x32x32xf32>
  %d = kernel.sub %s, %m : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>
  %e = kernel.exp %d : tensor<2x4x32x32xf32>
  %l = kernel.reduce_sum %e dim 3 : tensor<2x4x32x32xf32>
  %p = kernel.div %e, %l : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>
  %o = kernel.matmul %p, %v : tensor<2x4x32x32xf32>, tensor<2x4x32x16xf32>
  return %o : tensor<2x4x32x16xf32>
}

// ALiBi's bias per head and a padding mask, both added to the scores.
// REMARK: :[[@LINE+20]]:{{.*}} remark: superoptimize: replaced 9 kernel ops {{.*}} by 1 kernels
// REMARK: @alibi_padded launches 1 kernels
// CHECK-LABEL: func.func @alibi_padded(
// CHECK-NEXT: kernel.custom(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-DAG: %[[T:.*]] = block.load %in3 imap <y = 1, z = 2> : tensor<1x4x32x32xf32> -> tensor<1x1x2x32xf32>
// CHECK-DAG: %[[P:.*]] = block.load %in4 imap <x = 0> : tensor<2x1x1x32xf32> -> tensor<1x1x1x32xf32>
// CHECK: %[[X:.*]] = thread.binary add %{{.*}}, %{{.*}}
// CHECK-NEXT: thread.binary add %[[X]], %{{.*}}
// CHECK-NOT: kernel.
// CHECK: return
func.func @alibi_padded(%q: tensor<2x4x32x16xf32>, %k: tensor<2x4x16x32xf32>, %v: tensor<2x4x32x16xf32>, %alibi: tensor<1x4x32x32xf32>, %am: tensor<2x1x1x32xf32>) -> tensor<2x4x32x16xf32> {
  %s0 = kernel.matmul %q, %k : tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32>
  %s1 = kernel.mul_scalar %s0, 0.25 : tensor<2x4x32x32xf32>
  %s2 = kernel.add %s1, %alibi : tensor<2x4x32x32xf32>, tensor<1x4x32x32xf32>
  %s = kernel.add %s2, %am : tensor<2x4x32x32xf32>, tensor<2x1x1x32xf32>
  %m = kernel.reduce_max %s dim 3 : tensor<2x4x32x32xf32>
  %d = kernel.sub %s, %m : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>
  %e = kernel.exp %d : tensor<2x4x32x32xf32>
  %l = kernel.reduce_sum %e dim 3 : tensor<2x4x32x32xf32>
  %p = kernel.div %e, %l : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>
  %o = kernel.matmul %p, %v : tensor<2x4x32x32xf32>, tensor<2x4x32x16xf32>
  return %o : tensor<2x4x32x16xf32>
}

// VERIFY: remark: @gpt2_padded is equivalent to @gpt2_padded_reference
// VERIFY: remark: @alibi_padded is equivalent to @alibi_padded_reference

// A finite fill by a mask of lower rank than the scores ([t, s] on [b, h,
// t, s]): the chain's inputs broadcast with their last dims aligned (the
// pass gives the wheres the scores' rank before the search). Not folded,
// it took 5 launches. The two wheres read one expand of the mask, which
// the kernel loads once (it loaded two).
// REMARK: :[[@LINE+21]]:{{.*}} remark: superoptimize: replaced 9 kernel ops {{.*}} by 1 kernels
// REMARK: @rank2_fill launches 1 kernels
// CHECK-LABEL: func.func @rank2_fill(
// CHECK-NEXT: %[[MASK:.*]] = tensor.expand_shape %arg3 {{\[}}[0, 1, 2], [3]]
// CHECK-NEXT: kernel.custom(%arg0, %arg1, %arg2, %[[MASK]]) grid
// CHECK: block.load %in3 imap <z = 2> : tensor<1x1x32x32xi1> -> tensor<1x1x2x32xi1>
// CHECK-NOT: block.load %in3
// CHECK-NOT: kernel.
// CHECK: return
func.func @rank2_fill(%q: tensor<2x4x32x16xf32>, %k: tensor<2x4x16x32xf32>, %v: tensor<2x4x32x16xf32>, %causal: tensor<32x32xi1>) -> tensor<2x4x32x16xf32> {
  %s0 = kernel.matmul %q, %k : tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32>
  %s1 = kernel.mul_scalar %s0, 0.25 : tensor<2x4x32x32xf32>
  %keep = kernel.where %causal, 0.0, 0xFFF0000000000000 : tensor<32x32xi1> to tensor<32x32xf32>
  %kept = kernel.add %s1, %keep : tensor<2x4x32x32xf32>, tensor<32x32xf32>
  %fill = kernel.where %causal, 0xFFF0000000000000, -1.0e4 : tensor<32x32xi1> to tensor<32x32xf32>
  %s = kernel.max %kept, %fill : tensor<2x4x32x32xf32>, tensor<32x32xf32>
  %m = kernel.reduce_max %s dim 3 : tensor<2x4x32x32xf32>
  %d = kernel.sub %s, %m : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>
  %e = kernel.exp %d : tensor<2x4x32x32xf32>
  %l = kernel.reduce_sum %e dim 3 : tensor<2x4x32x32xf32>
  %p = kernel.div %e, %l : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>
  %o = kernel.matmul %p, %v : tensor<2x4x32x32xf32>, tensor<2x4x32x16xf32>
  return %o : tensor<2x4x32x16xf32>
}

// VERIFY: remark: @rank2_fill is equivalent to @rank2_fill_reference
