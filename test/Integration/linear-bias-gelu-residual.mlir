// The feed-forward tail of a pre-LN transformer block as torch-mlir emits
// it: h + gelu(x W + b), with a contraction of 4096, longer than one tile
// of shared memory holds, so the kernel walks it in a for-loop. The bias
// and the residual do not vary along that loop: the kernel the search finds
// loads their tiles after the loop and adds them to the accumulated product
// there (its epilogue), one launch. Before loads after the loop existed, the
// epilogue was a second kernel reading the product back.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="latency-veto=false timeout=10 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="latency-veto=false timeout=10" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// SEARCH: remark: superoptimize: replaced 4 kernel ops ({{.*}}) by 1 kernels
// OPT-LABEL: func.func @ffn_tail(
// OPT: kernel.custom
// OPT: block.for_loop {{[0-9]+}} iterations accumulate (sum)
// OPT: block.matmul
// OPT: block.yield
// OPT-NEXT: }
// OPT-DAG: block.load %in2 imap <{{.*}}> : tensor<1x512xf16>
// OPT-DAG: block.load %in3 imap <{{.*}}> : tensor<64x512xf16>
// OPT: thread.unary gelu
// OPT: block.store
// OPT-NOT: kernel.
// OPT: {{^    }}return
// VERIFY: remark: @ffn_tail is equivalent to @ffn_tail_reference
// HOST-LABEL: func.func @ffn_tail(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// PTX: mma.sync.aligned
// PTX: cp.async

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @ffn_tail(%x: tensor<64x4096xf16>, %w: tensor<4096x512xf16>, %b: tensor<512xf16>, %h: tensor<64x512xf16>) -> tensor<64x512xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x512xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<64x512xf16>) -> tensor<64x512xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<64x4096xf16>, tensor<4096x512xf16>) outs(%f : tensor<64x512xf16>) -> tensor<64x512xf16>
  %y = linalg.generic {indexing_maps = [#id, #col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b, %h : tensor<64x512xf16>, tensor<512xf16>, tensor<64x512xf16>) outs(%e : tensor<64x512xf16>) {
  ^bb0(%v: f16, %bias: f16, %res: f16, %o: f16):
    %s = arith.addf %v, %bias : f16
    %half = arith.constant 0.5 : f16
    %one = arith.constant 1.0 : f16
    %rs2 = arith.constant 0.70710678 : f16
    %t = arith.mulf %s, %rs2 : f16
    %erf = math.erf %t : f16
    %p = arith.addf %erf, %one : f16
    %q = arith.mulf %s, %p : f16
    %g = arith.mulf %q, %half : f16
    %r = arith.addf %res, %g : f16
    linalg.yield %r : f16
  } -> tensor<64x512xf16>
  return %y : tensor<64x512xf16>
}
