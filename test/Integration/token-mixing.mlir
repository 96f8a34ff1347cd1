// MLP-Mixer's token mixing from linalg: a learned [s, s] matrix times each
// image's [s, d] tokens, as torch.matmul writes it (the matrix broadcast
// over the batch, then a batch matmul), and a tanh. One kernel: it reads
// the matrix in place, through a view with a batch dim of size 1, instead
// of a copy kernel writing it once per image; the tanh is its epilogue.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// IMPORT-LABEL: func.func @token_mixing
// IMPORT: linalg.broadcast
// IMPORT: kernel.matmul
// IMPORT: kernel.tanh
// OPT-LABEL: func.func @token_mixing(
// OPT-NOT: linalg.broadcast
// OPT: %[[V:.*]] = tensor.expand_shape %arg0 {{.*}} into tensor<1x64x64xf16>
// OPT: kernel.custom(%[[V]], %arg1)
// OPT: block.matmul
// OPT: thread.unary tanh
// OPT-NOT: kernel.
// OPT: return
// VERIFY: remark: @token_mixing is equivalent to @token_mixing_reference
// GPU-LABEL: func.func @token_mixing(
// GPU-COUNT-1: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return
// PTX: mma.sync

#id = affine_map<(b, i, j) -> (b, i, j)>
func.func @token_mixing(%w: tensor<64x64xf16>, %x: tensor<8x64x256xf16>) -> tensor<8x64x256xf16> {
  %z = arith.constant 0.0 : f16
  %ew = tensor.empty() : tensor<8x64x64xf16>
  %wb = linalg.broadcast ins(%w : tensor<64x64xf16>) outs(%ew : tensor<8x64x64xf16>) dimensions = [0]
  %e = tensor.empty() : tensor<8x64x256xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<8x64x256xf16>) -> tensor<8x64x256xf16>
  %m = linalg.batch_matmul ins(%wb, %x : tensor<8x64x64xf16>, tensor<8x64x256xf16>) outs(%f : tensor<8x64x256xf16>) -> tensor<8x64x256xf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m : tensor<8x64x256xf16>) outs(%e : tensor<8x64x256xf16>) {
  ^bb0(%a: f16, %o: f16):
    %t = math.tanh %a : f16
    linalg.yield %t : f16
  } -> tensor<8x64x256xf16>
  return %g : tensor<8x64x256xf16>
}
