// A matmul operand the kernel computes, rounded to the program's f16 (bf16)
// by block.convert: attention's exp(S), summed in f32 and multiplied by V
// in f16. The thread graph that exponentiates writes each element twice,
// in f32 for the row sums and rounded for the product (cvt.rn of two
// elements at once: each thread takes 4 of a row), and both
// products run on the f16 (bf16) tensor cores with f32 accumulators; no
// product is tf32. ptxas accepts the PTX for sm_80 and sm_90.
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx
// RUN: FileCheck %s < %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: sed s/f16/bf16/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// CHECK-LABEL: .entry attention_kernel0(
// CHECK-NOT: tf32
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: tf32
// CHECK: ex2.approx
// CHECK-NOT: tf32
// CHECK: cvt.rn.f16x2.f32
// CHECK-NOT: tf32
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: tf32
// BF16-LABEL: .entry attention_kernel0(
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16: cvt.rn.bf16x2.f32
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-NOT: tf32
func.func @attention(%q: tensor<2x64x64xf16>, %k: tensor<2x64x512xf16>, %v: tensor<2x512x64xf16>) -> tensor<2x64x64xf16> {
  %o = kernel.custom (%q, %k, %v) grid <2, 1, 1> block <128, 1, 1>
      : (tensor<2x64x64xf16>, tensor<2x64x512xf16>, tensor<2x512x64xf16>) -> tensor<2x64x64xf16> {
  ^bb0(%in0: tensor<2x64x64xf16>, %in1: tensor<2x64x512xf16>, %in2: tensor<2x512x64xf16>, %out0: tensor<2x64x64xf16>):
    %acc:2 = block.for_loop 4 iterations accumulate (sum, sum) : tensor<1x64x64xf32>, tensor<1x64x1xf32> {
      %qt = block.load %in0 imap <x = 0> : tensor<2x64x64xf16> -> tensor<1x64x64xf16>
      %kt = block.load %in1 imap <x = 0> fmap 2 : tensor<2x64x512xf16> -> tensor<1x64x128xf16>
      %vt = block.load %in2 imap <x = 0> fmap 1 : tensor<2x512x64xf16> -> tensor<1x128x64xf16>
      %s = block.matmul %qt, %kt : tensor<1x64x64xf16>, tensor<1x64x128xf16> -> tensor<1x64x128xf32>
      %e = block.exp %s : tensor<1x64x128xf32>
      %l = block.reduce_sum %e dim 2 : tensor<1x64x128xf32>
      %p = block.convert %e : tensor<1x64x128xf32> to tensor<1x64x128xf16>
      %pv = block.matmul %p, %vt : tensor<1x64x128xf16>, tensor<1x128x64xf16> -> tensor<1x64x64xf32>
      block.yield %pv, %l : tensor<1x64x64xf32>, tensor<1x64x1xf32>
    }
    %d = block.div %acc#0, %acc#1 : tensor<1x64x64xf32>, tensor<1x64x1xf32>
    block.store %d, %out0 omap <x = 0> : tensor<1x64x64xf32> into tensor<2x64x64xf16>
    block.return
  }
  return %o : tensor<2x64x64xf16>
}
