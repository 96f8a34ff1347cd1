// block.transpose views (block::isTransposedMatmulView): tiles that only a
// matmul reads through a transpose of their last two dims are read in
// place, not copied. A right operand stored [n, k] (a linear layer's
// weight) is read with ldmatrix without .trans, a left operand stored
// [k, m] with ldmatrix.trans; the shared memory holds each tile once
// (double-buffered: 2 x (32x64 + 64x32) f16 = 16384 bytes, and the 32x32
// result, its 64-byte rows padded by 16 for the fragment stores: 18944
// bytes). With m = 8, not a whole 16-row fragment, the left
// view would read past the tile's rows: that transpose is copied instead,
// into a tile of its own (6144 bytes in all).
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: mlsopt-translate --emit-ptx %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: sed s/f16/f32/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.f32.ptx
// RUN: FileCheck %s --check-prefix=TF32 < %t.f32.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f32.ptx -o %t.f32.cubin %}

// HOST-LABEL: func.func @both_views(
// HOST: gpu.launch_func @mlsopt_kernels::@both_views_kernel0 {{.*}} dynamic_shared_memory_size %c18944_i32
// HOST-LABEL: func.func @loop_result(
// HOST: gpu.launch_func @mlsopt_kernels::@loop_result_kernel0 {{.*}} dynamic_shared_memory_size %c11264_i32
// HOST-LABEL: func.func @narrow_left(
// HOST: gpu.launch_func @mlsopt_kernels::@narrow_left_kernel0 {{.*}} dynamic_shared_memory_size %c6272_i32

// PTX-LABEL: .entry both_views_kernel0(
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX-LABEL: .entry loop_result_kernel0(
// PTX-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
// PTX-LABEL: .entry narrow_left_kernel0(
// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// X^T W^T: X stored [k, m] = [64, 32], W stored [n, k] = [32, 64].
func.func @both_views(%x: tensor<128x32xf16>, %w: tensor<32x128xf16>) -> tensor<32x32xf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1> : (tensor<128x32xf16>, tensor<32x128xf16>) -> tensor<32x32xf16> {
  ^bb0(%in0: tensor<128x32xf16>, %in1: tensor<32x128xf16>, %out0: tensor<32x32xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<32x32xf16> {
      %a = block.load %in0 imap <> fmap 0 : tensor<128x32xf16> -> tensor<64x32xf16>
      %at = block.transpose %a [1, 0] : tensor<64x32xf16>
      %b = block.load %in1 imap <> fmap 1 : tensor<32x128xf16> -> tensor<32x64xf16>
      %bt = block.transpose %b [1, 0] : tensor<32x64xf16>
      %p = block.matmul %at, %bt : tensor<32x64xf16>, tensor<64x32xf16>
      block.yield %p : tensor<32x32xf16>
    }
    block.store %m, %out0 omap <> : tensor<32x32xf16> into tensor<32x32xf16>
    block.return
  }
  return %o : tensor<32x32xf16>
}

// A for-loop's result (here the yielded tile of a one-iteration loop) is
// copied (no ldmatrix.trans reads it): the plan keeps a loop result only as
// long as the loop result itself is read. 10240 bytes: the 64x32 tile, its
// transposed copy and the 32x32 result.
func.func @loop_result(%x: tensor<64x32xf16>) -> tensor<32x32xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<64x32xf16>) -> tensor<32x32xf16> {
  ^bb0(%in0: tensor<64x32xf16>, %out0: tensor<32x32xf16>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<64x32xf16> {
      %t = block.load %in0 imap <> : tensor<64x32xf16> -> tensor<64x32xf16>
      block.yield %t : tensor<64x32xf16>
    }
    %at = block.transpose %a [1, 0] : tensor<64x32xf16>
    %p = block.matmul %at, %a : tensor<32x64xf16>, tensor<64x32xf16>
    block.store %p, %out0 omap <> : tensor<32x32xf16> into tensor<32x32xf16>
    block.return
  }
  return %o : tensor<32x32xf16>
}

// A left operand of 8 rows: copied, not viewed.
func.func @narrow_left(%x: tensor<64x8xf16>, %w: tensor<64x32xf16>) -> tensor<8x32xf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1> : (tensor<64x8xf16>, tensor<64x32xf16>) -> tensor<8x32xf16> {
  ^bb0(%in0: tensor<64x8xf16>, %in1: tensor<64x32xf16>, %out0: tensor<8x32xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf16> {
      %a = block.load %in0 imap <> : tensor<64x8xf16> -> tensor<64x8xf16>
      %at = block.transpose %a [1, 0] : tensor<64x8xf16>
      %b = block.load %in1 imap <> : tensor<64x32xf16> -> tensor<64x32xf16>
      %p = block.matmul %at, %b : tensor<8x64xf16>, tensor<64x32xf16>
      block.yield %p : tensor<8x32xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x32xf16> into tensor<8x32xf16>
    block.return
  }
  return %o : tensor<8x32xf16>
}
