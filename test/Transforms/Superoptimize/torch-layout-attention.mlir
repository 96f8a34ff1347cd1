// Multi-head attention in PyTorch's layout: Q, K and V as [b, s, h, d] (the
// view of a [b, s, h*d] projection), transposed to [b, h, s, d] (K to
// [b, h, d, s]) for the products, and the output transposed back. Ten
// kernel ops, four of them transposes: one launch. The kernel loads each
// input as stored and permutes its tiles (block.transpose copies them in
// shared memory: these permutations are not the [n, k] view a matmul reads
// in place), and stores its output tiles permuted back. K and V, which only
// the products read, stay f16; exp(S) is written in f32 for its row sums
// and in f16 for the product with V, both products on the f16 tensor cores.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=10 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// REMARK: @mha launches 1 kernels ({{.*}}), 10 before

// CHECK-LABEL: func.func @mha(
// CHECK-NOT: kernel.transpose
// CHECK: kernel.custom(%arg0, %arg1, %arg2)
// CHECK-DAG: block.transpose %{{.*}} [0, 2, 1, 3] : tensor<1x8x1x64xf32>
// CHECK-DAG: block.transpose %{{.*}} [0, 2, 3, 1] : tensor<1x128x1x64xf16>
// CHECK-DAG: block.transpose %{{.*}} [0, 2, 1, 3] : tensor<1x128x1x64xf16>
// CHECK: thread.unary exp
// CHECK-NEXT: thread.convert %{{.*}} : f32 to f16
// CHECK: block.matmul %{{.*}} : tensor<1x1x8x128xf16>, tensor<1x1x128x64xf16> -> tensor<1x1x8x64xf32>
// CHECK: block.store %{{.*}}, %out0 {{.*}} into tensor<1x128x8x64xf16>
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @mha is equivalent to @mha_reference
func.func @mha(%q: tensor<1x128x8x64xf16>, %k: tensor<1x128x8x64xf16>, %v: tensor<1x128x8x64xf16>) -> tensor<1x128x8x64xf16> {
  %qt = kernel.transpose %q [0, 2, 1, 3] : tensor<1x128x8x64xf16>
  %kt = kernel.transpose %k [0, 2, 3, 1] : tensor<1x128x8x64xf16>
  %vt = kernel.transpose %v [0, 2, 1, 3] : tensor<1x128x8x64xf16>
  %s = kernel.matmul %qt, %kt : tensor<1x8x128x64xf16>, tensor<1x8x64x128xf16>
  %ss = kernel.mul_scalar %s, 0.125 : tensor<1x8x128x128xf16>
  %e = kernel.exp %ss : tensor<1x8x128x128xf16>
  %l = kernel.reduce_sum %e dim 3 : tensor<1x8x128x128xf16>
  %ev = kernel.matmul %e, %vt : tensor<1x8x128x128xf16>, tensor<1x8x128x64xf16>
  %o = kernel.div %ev, %l : tensor<1x8x128x64xf16>, tensor<1x8x128x1xf16>
  %ot = kernel.transpose %o [0, 2, 1, 3] : tensor<1x8x128x64xf16>
  return %ot : tensor<1x128x8x64xf16>
}
