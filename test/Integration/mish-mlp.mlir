// An MLP with Mish, as torch-mlir emits it in f16: a matmul and a bias,
// Mish (x * tanh(softplus(x)), softplus with torch's threshold select, one
// generic), a second matmul. The softplus imports as one kernel.softplus,
// so the MLP is six kernel ops, which the search makes two kernels: the
// first computes the bias and Mish in registers, in its epilogue. (One
// kernel, whose 16 rows leave few blocks each walking the whole hidden dim,
// is slower by the latency term.)
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true max-kernel-ops=6" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// IMPORT-LABEL: func.func @mish_mlp
// IMPORT-NOT: linalg.
// IMPORT: kernel.matmul
// IMPORT-NEXT: kernel.add
// IMPORT-NEXT: kernel.softplus
// IMPORT-NEXT: kernel.tanh
// IMPORT-NEXT: kernel.mul
// IMPORT-NEXT: kernel.matmul
// SEARCH: remark: superoptimize: replaced 6 kernel ops ({{.*}}) by 2 kernels
// OPT-LABEL: func.func @mish_mlp(
// OPT: kernel.custom
// OPT: block.matmul
// OPT: thread.binary add
// OPT-NEXT: thread.unary softplus
// OPT-NEXT: thread.unary tanh
// OPT-NEXT: thread.binary mul
// OPT: kernel.custom
// OPT: block.matmul
// OPT: return
// VERIFY: remark: @mish_mlp is equivalent to @mish_mlp_reference
// GPU-LABEL: func.func @mish_mlp
// GPU-COUNT-2: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return

#x = affine_map<(i, j) -> (i, j)>
#b = affine_map<(i, j) -> (j)>

func.func @mish_mlp(%x: tensor<16x256xf16>, %w1: tensor<256x512xf16>, %b1: tensor<512xf16>, %w2: tensor<512x256xf16>) -> tensor<16x256xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %e0 = tensor.empty() : tensor<16x512xf16>
  %z0 = linalg.fill ins(%zero : f16) outs(%e0 : tensor<16x512xf16>) -> tensor<16x512xf16>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x256xf16>, tensor<256x512xf16>) outs(%z0 : tensor<16x512xf16>) -> tensor<16x512xf16>
  %hb = linalg.generic {indexing_maps = [#x, #b, #x], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<16x512xf16>, tensor<512xf16>) outs(%e0 : tensor<16x512xf16>) {
  ^bb0(%p: f16, %q: f16, %o: f16):
    %s = arith.addf %p, %q : f16
    linalg.yield %s : f16
  } -> tensor<16x512xf16>
  %m = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]}
      ins(%hb : tensor<16x512xf16>) outs(%e0 : tensor<16x512xf16>) {
  ^bb0(%p: f16, %o: f16):
    %t = arith.constant 2.000000e+01 : f16
    %c = arith.cmpf ogt, %p, %t : f16
    %ex = math.exp %p : f16
    %l = math.log1p %ex : f16
    %sp = arith.select %c, %p, %l : f16
    %th = math.tanh %sp : f16
    %r = arith.mulf %p, %th : f16
    linalg.yield %r : f16
  } -> tensor<16x512xf16>
  %e1 = tensor.empty() : tensor<16x256xf16>
  %z1 = linalg.fill ins(%zero : f16) outs(%e1 : tensor<16x256xf16>) -> tensor<16x256xf16>
  %o = linalg.matmul ins(%m, %w2 : tensor<16x512xf16>, tensor<512x256xf16>) outs(%z1 : tensor<16x256xf16>) -> tensor<16x256xf16>
  return %o : tensor<16x256xf16>
}
