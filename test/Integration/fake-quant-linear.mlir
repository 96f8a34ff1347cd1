// A linear layer whose weight is fake-quantized to int8, as quantization-
// aware training writes it: round(w / s) clamped to [-128, 127], times s,
// then the matmul, in f16 from linalg. The import gives kernel.round; the
// search puts the quantization in the matmul kernel's prologue, so the
// quantized weight is never written: one kernel. Rounding is round to
// nearest, ties to even (torch.round), cvt.rni in the PTX.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// IMPORT-LABEL: func.func @fake_quant_linear
// IMPORT-NOT: linalg.
// IMPORT: kernel.mul_scalar %{{.*}}, 6.400000e+01
// IMPORT: kernel.round
// IMPORT: kernel.max_scalar %{{.*}}, -1.280000e+02
// IMPORT: kernel.min_scalar %{{.*}}, 1.270000e+02
// IMPORT: kernel.mul_scalar %{{.*}}, 1.562500e-02
// IMPORT: kernel.matmul
// OPT-LABEL: func.func @fake_quant_linear(
// OPT: kernel.custom
// OPT: thread.unary round
// OPT: block.matmul
// OPT-NOT: kernel.
// OPT: return
// VERIFY: remark: @fake_quant_linear is equivalent to @fake_quant_linear_reference
// PTX: cvt.rni

#id = affine_map<(i, j) -> (i, j)>
func.func @fake_quant_linear(%x: tensor<16x256xf16>, %w: tensor<256x128xf16>) -> tensor<16x128xf16> {
  %e = tensor.empty() : tensor<256x128xf16>
  %inv = arith.constant 64.0 : f16
  %s = arith.constant 0.015625 : f16
  %lo = arith.constant -128.0 : f16
  %hi = arith.constant 127.0 : f16
  %wq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<256x128xf16>) outs(%e : tensor<256x128xf16>) {
  ^bb0(%a: f16, %o: f16):
    %d = arith.mulf %a, %inv : f16
    %r = math.roundeven %d : f16
    %c0 = arith.maximumf %r, %lo : f16
    %c1 = arith.minimumf %c0, %hi : f16
    %q = arith.mulf %c1, %s : f16
    linalg.yield %q : f16
  } -> tensor<256x128xf16>
  %z = arith.constant 0.0 : f16
  %eo = tensor.empty() : tensor<16x128xf16>
  %f = linalg.fill ins(%z : f16) outs(%eo : tensor<16x128xf16>) -> tensor<16x128xf16>
  %o = linalg.matmul ins(%x, %wq : tensor<16x256xf16>, tensor<256x128xf16>) outs(%f : tensor<16x128xf16>) -> tensor<16x128xf16>
  return %o : tensor<16x128xf16>
}
