// Programs that split a product with slices, as torch's chunk and split
// do: a gated MLP whose gate and up projections are one matmul, and
// attentions whose q, k and v are one (GPT-2's c_attn, with a bias, its
// heads split by views and transposes). The search takes each slice as an
// input; the kernels it finds then read the product in place, through
// windows (--fold-slices-into-loads), and no slice is left to copy. The
// rewrite is verified against the program as written.
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlsopt-opt %t.mlir --verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | FileCheck %s --check-prefix=GPU

// The gate-and-up product stays the library matmul (its default block
// graph, 16 blocks reading the weight in 64x64 tiles, beats every custom
// kernel the search finds); the kernel after it reads its halves in place.
// CHECK-LABEL: func.func @gated_mlp_fused_gate_up
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[H:.*]] = kernel.matmul %arg0, %arg1
// CHECK: kernel.custom(%[[H]]
// CHECK-DAG: block.load %in0 window [0, 0] [8, 512]
// CHECK-DAG: block.load %in0 window [0, 512] [8, 512]
// CHECK-NOT: tensor.extract_slice
// CHECK: return
// VERIFY: remark: @gated_mlp_fused_gate_up is equivalent to @gated_mlp_fused_gate_up_reference
// GPU-LABEL: func.func @gated_mlp_fused_gate_up
// GPU-COUNT-2: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return
func.func @gated_mlp_fused_gate_up(%x: tensor<8x256xf16>, %wgu: tensor<256x1024xf16>, %wd: tensor<512x256xf16>) -> tensor<8x256xf16> {
  %h = kernel.matmul %x, %wgu : tensor<8x256xf16>, tensor<256x1024xf16>
  %g = tensor.extract_slice %h[0, 0] [8, 512] [1, 1] : tensor<8x1024xf16> to tensor<8x512xf16>
  %u = tensor.extract_slice %h[0, 512] [8, 512] [1, 1] : tensor<8x1024xf16> to tensor<8x512xf16>
  %s = kernel.silu %g : tensor<8x512xf16>
  %m = kernel.mul %s, %u : tensor<8x512xf16>, tensor<8x512xf16>
  %o = kernel.matmul %m, %wd : tensor<8x512xf16>, tensor<512x256xf16>
  return %o : tensor<8x256xf16>
}

// CHECK-LABEL: func.func @attention_fused_qkv
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[QKV:.*]] = kernel.custom(%arg0, %arg1)
// CHECK: kernel.custom(%[[QKV]])
// CHECK-DAG: block.load %in0 window [0, 0] [64, 128]
// CHECK-DAG: block.load %in0 window [0, 128] [64, 128]
// CHECK-DAG: block.load %in0 window [0, 256] [64, 128]
// CHECK-NOT: tensor.extract_slice
// CHECK: return
// VERIFY: remark: @attention_fused_qkv is equivalent to @attention_fused_qkv_reference
func.func @attention_fused_qkv(%x: tensor<64x128xf16>, %w: tensor<128x384xf16>) -> tensor<64x128xf16> {
  %h = kernel.matmul %x, %w : tensor<64x128xf16>, tensor<128x384xf16>
  %q = tensor.extract_slice %h[0, 0] [64, 128] [1, 1] : tensor<64x384xf16> to tensor<64x128xf16>
  %k = tensor.extract_slice %h[0, 128] [64, 128] [1, 1] : tensor<64x384xf16> to tensor<64x128xf16>
  %v = tensor.extract_slice %h[0, 256] [64, 128] [1, 1] : tensor<64x384xf16> to tensor<64x128xf16>
  %kt = kernel.transpose %k [1, 0] : tensor<64x128xf16>
  %s = kernel.matmul %q, %kt : tensor<64x128xf16>, tensor<128x64xf16>
  %e = kernel.exp %s : tensor<64x64xf16>
  %z = kernel.reduce_sum %e dim 1 : tensor<64x64xf16>
  %p = kernel.div %e, %z : tensor<64x64xf16>, tensor<64x1xf16>
  %o = kernel.matmul %p, %v : tensor<64x64xf16>, tensor<64x128xf16>
  return %o : tensor<64x128xf16>
}

// The heads of q, k and v are views of the slices; each is the slice of
// one view of the projection ([64, 12, 64]), which the attention kernel
// reads in place: 2 kernels where the ops as written launch 12 (3 while
// the scores' scale counted against max-kernel-ops and cut the attention).
// CHECK-LABEL: func.func @gpt2_attention
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[QKV:.*]] = kernel.custom(%arg0, %arg1
// CHECK: %[[HEADS:.*]] = tensor.expand_shape %[[QKV]] {{\[\[}}0], [1, 2]] output_shape [64, 12, 64]
// CHECK-NOT: tensor.expand_shape %[[QKV]]
// CHECK: kernel.custom(%[[HEADS]])
// CHECK-DAG: block.load %in0 window [0, 0, 0] [64, 4, 64]
// CHECK-DAG: block.load %in0 window [0, 4, 0] [64, 4, 64]
// CHECK-DAG: block.load %in0 window [0, 8, 0] [64, 4, 64]
// CHECK-NOT: tensor.extract_slice
// CHECK: return
// VERIFY: remark: @gpt2_attention is equivalent to @gpt2_attention_reference
// GPU-LABEL: func.func @gpt2_attention
// GPU-COUNT-2: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return
func.func @gpt2_attention(%x: tensor<64x256xf16>, %w: tensor<256x768xf16>, %bias: tensor<768xf16>) -> tensor<64x256xf16> {
  %h0 = kernel.matmul %x, %w : tensor<64x256xf16>, tensor<256x768xf16>
  %h = kernel.add %h0, %bias : tensor<64x768xf16>, tensor<768xf16>
  %q = tensor.extract_slice %h[0, 0] [64, 256] [1, 1] : tensor<64x768xf16> to tensor<64x256xf16>
  %k = tensor.extract_slice %h[0, 256] [64, 256] [1, 1] : tensor<64x768xf16> to tensor<64x256xf16>
  %v = tensor.extract_slice %h[0, 512] [64, 256] [1, 1] : tensor<64x768xf16> to tensor<64x256xf16>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [64, 4, 64] : tensor<64x256xf16> into tensor<64x4x64xf16>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [64, 4, 64] : tensor<64x256xf16> into tensor<64x4x64xf16>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [64, 4, 64] : tensor<64x256xf16> into tensor<64x4x64xf16>
  %qh = kernel.transpose %q3 [1, 0, 2] : tensor<64x4x64xf16>
  %kh = kernel.transpose %k3 [1, 2, 0] : tensor<64x4x64xf16>
  %vh = kernel.transpose %v3 [1, 0, 2] : tensor<64x4x64xf16>
  %s = kernel.matmul %qh, %kh : tensor<4x64x64xf16>, tensor<4x64x64xf16>
  %ss = kernel.mul_scalar %s, 0.125 : tensor<4x64x64xf16>
  %e = kernel.exp %ss : tensor<4x64x64xf16>
  %z = kernel.reduce_sum %e dim 2 : tensor<4x64x64xf16>
  %p = kernel.div %e, %z : tensor<4x64x64xf16>, tensor<4x64x1xf16>
  %o = kernel.matmul %p, %vh : tensor<4x64x64xf16>, tensor<4x64x64xf16>
  %ot = kernel.transpose %o [1, 0, 2] : tensor<4x64x64xf16>
  %oc = tensor.collapse_shape %ot [[0], [1, 2]] : tensor<64x4x64xf16> into tensor<64x256xf16>
  return %oc : tensor<64x256xf16>
}

// rotate_half (the concat of the negated second half and the first) under
// a product: the matmul's tiles hold whole rows, so its kernel joins the
// halves it loads in place (block.concat) and negates one: 1 kernel for
// what the ops as written launch as 3 (and 2 slice copies).
// CHECK-LABEL: func.func @rotate_half_matmul
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: kernel.concat
// CHECK: kernel.custom(%arg0, %arg1)
// CHECK: block.load %in0 window [0, 0, 8] [4, 8, 8]
// CHECK: thread.unary neg
// CHECK: block.load %in0 window [0, 0, 0] [4, 8, 8]
// CHECK: block.concat %{{.*}}, %{{.*}} dim 2
// CHECK: block.matmul
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @rotate_half_matmul is equivalent to @rotate_half_matmul_reference
// GPU-LABEL: func.func @rotate_half_matmul
// GPU-COUNT-1: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return
func.func @rotate_half_matmul(%x: tensor<4x8x16xf32>, %w: tensor<4x16x8xf32>) -> tensor<4x8x8xf32> {
  %lo = tensor.extract_slice %x[0, 0, 0] [4, 8, 8] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x8x8xf32>
  %hi = tensor.extract_slice %x[0, 0, 8] [4, 8, 8] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x8x8xf32>
  %n = kernel.neg %hi : tensor<4x8x8xf32>
  %r = kernel.concat %n, %lo dim 2 : tensor<4x8x8xf32>, tensor<4x8x8xf32>
  %o = kernel.matmul %r, %w : tensor<4x8x16xf32>, tensor<4x16x8xf32>
  return %o : tensor<4x8x8xf32>
}
