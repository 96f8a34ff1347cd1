// A safe softmax over rows of 8192 f16 elements, 8 rows. A kernel that
// gives each row to one block walks the row with one warp per reduction,
// which the latency term says is slower than the input (7 launches: each
// row reduction is a split pair); so were all one- and two-kernel
// programs, and the search ran to its timeout with nothing found. The
// program that wins keeps both reductions as library kernels (split pairs)
// and computes the elementwise ops between them in small kernels: 6
// launches.
//
// Three things were missing:
// - the row max kept as a library kernel beside a custom kernel was costed
//   as computed in f32 after a conversion kernel of its whole f16 input,
//   which the closing fusion does in the library kernel's loads;
// - programs of four kernels came only at 9 block ops in the deepening,
//   too late; after its sweeps, the literal pass now weighs every program
//   of as many kernels as the input has ops with custom kernels of up to 5
//   block ops, library ops before custom kernels at each node;
// - the division of a custom kernel's exp by a library row sum, followed
//   by the conversion to f16, was left two launches by the closing fusion
//   (it is no epilogue of the exp's kernel, as it also reads the sum).
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// REMARK: remark: superoptimize: replaced 5 kernel ops ({{.*}}) by 6 kernels
// REMARK: @softmax launches 6 kernels ({{.*}}), 7 before

// The row max: a split pair that loads the f16 input, no conversion kernel.
// CHECK-LABEL: func.func @softmax(
// CHECK-NOT: kernel.convert
// CHECK: %[[P:.*]] = kernel.custom(%arg0) {{.*}} -> tensor<8x{{[0-9]+}}xf32>
// CHECK: accumulate (max)
// CHECK: block.load %in0 {{.*}} : tensor<8x8192xf16> -> tensor<{{.*}}xf32>
// CHECK: %[[M:.*]] = kernel.custom(%[[P]]) {{.*}} -> tensor<8x1xf32>
// CHECK: kernel.custom(%arg0, %[[M]])
// CHECK: thread.binary sub
// CHECK: thread.unary exp
// CHECK: kernel.reduce_sum
// CHECK: kernel.custom(
// CHECK: thread.binary div
// CHECK: block.store {{.*}} into tensor<8x8192xf16>
// CHECK-NOT: kernel.
// CHECK: return

// VERIFY: remark: @softmax is equivalent to @softmax_reference

func.func @softmax(%x: tensor<8x8192xf16>) -> tensor<8x8192xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<8x8192xf16>
  %d = kernel.sub %x, %m : tensor<8x8192xf16>, tensor<8x1xf16>
  %e = kernel.exp %d : tensor<8x8192xf16>
  %s = kernel.reduce_sum %e dim 1 : tensor<8x8192xf16>
  %o = kernel.div %e, %s : tensor<8x8192xf16>, tensor<8x1xf16>
  return %o : tensor<8x8192xf16>
}
