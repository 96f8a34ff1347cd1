// Programs that split a product with slices, as torch's chunk and split
// do: a gated MLP whose gate and up projections are one matmul, and an
// attention whose q, k and v are one. The search takes each slice as an
// input; the kernels it finds then read the product in place, through
// windows (--fold-slices-into-loads), and no slice is left to copy. The
// rewrite is verified against the program as written.
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlsopt-opt %t.mlir --verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | FileCheck %s --check-prefix=GPU

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
// CHECK: %[[QKV:.*]] = kernel.matmul %arg0, %arg1
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
