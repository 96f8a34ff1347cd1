// BERT-style attention whose padding mask is a boolean tensor, as
// torch-mlir writes `torch.where(mask, scores, -inf)` for a [b, 1, 1, s]
// mask of kept keys: the select imports as the scores plus
// kernel.where(mask, 0, -inf), the additive mask the search already places
// on the score tiles, and the where joins the attention kernel as a
// prologue, which loads the mask's bytes itself (one launch; the float
// bias is never written).
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// A mask whose constants are swapped (kept keys masked) is told apart.
// RUN: sed -e 's/0.000000e+00, 0xFFF0000000000000 : i1/0xFFF0000000000000, 0.000000e+00 : i1/' %t.opt.mlir \
// RUN:   | not mlsopt-opt --verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=MUTANT
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-launch-plan %t.gpu.mlir | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @masked_attention(
// IMPORT-NOT: linalg.
// IMPORT: %[[B:.*]] = kernel.where %arg3, 0.000000e+00, 0xFFF0000000000000 : tensor<2x1x1x32xi1> to tensor<2x1x1x32xf32>
// IMPORT-NEXT: kernel.add %{{.*}}, %[[B]] : tensor<2x4x32x32xf32>, tensor<2x1x1x32xf32>
// IMPORT-NOT: linalg.
// IMPORT: return

// OPT-LABEL: func.func @masked_attention(
// OPT-NEXT: kernel.custom(%arg0, %arg1, %arg3, %arg2) {{.*}} : (tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32>, tensor<2x1x1x32xi1>, tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32>
// OPT: block.load %in2 imap <x = 0> : tensor<2x1x1x32xi1> -> tensor<1x1x1x32xi1>
// OPT: thread.where %{{.*}}, 0.000000e+00, 0xFFF0000000000000 : i1 to f32
// OPT-NOT: kernel.
// OPT: {{^ *}}return %

// VERIFY: remark: @masked_attention is equivalent to @masked_attention_reference

// MUTANT: error: @masked_attention is not equivalent to @masked_attention_reference

// HOST-LABEL: func.func @masked_attention(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return

// The mask is one byte per element, as torch.bool is.
// PLAN: "index": 3,
// PLAN-NEXT: "role": "input",
// PLAN: "dtype": "i1",
// PLAN-NEXT: "bytes": 64

// PTX: ld.global.{{(nc.)?}}{{[bu]}}8
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

func.func @masked_attention(%q: tensor<2x4x32x16xf32>, %kt: tensor<2x4x16x32xf32>, %v: tensor<2x4x32x16xf32>, %mask: tensor<2x1x1x32xi1>) -> tensor<2x4x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %se = tensor.empty() : tensor<2x4x32x32xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %s4 = linalg.generic {indexing_maps = [affine_map<(a,h,i,j,k)->(a,h,i,k)>, affine_map<(a,h,i,j,k)->(a,h,k,j)>, affine_map<(a,h,i,j,k)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kt : tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32>) outs(%sf : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %x = arith.mulf %a, %b : f32
    %y = arith.addf %o, %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4x32x32xf32>
  %e1 = tensor.empty() : tensor<2x4x32x32xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,0,0,j)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4, %mask : tensor<2x4x32x32xf32>, tensor<2x1x1x32xi1>) outs(%e1 : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %m: i1, %o: f32):
    %c = arith.constant 0.25 : f32
    %x = arith.mulf %a, %c : f32
    %y = arith.select %m, %x, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x4x32x32xf32>
  %e2 = tensor.empty() : tensor<2x4x32x1xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x4x32x1xf32>) -> tensor<2x4x32x1xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sc : tensor<2x4x32x32xf32>) outs(%mf : tensor<2x4x32x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.maximumf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<2x4x32x1xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sc, %mx : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>) outs(%e1 : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %x = arith.subf %a, %m : f32
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4x32x32xf32>
  %sumf = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x32x1xf32>) -> tensor<2x4x32x1xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<2x4x32x32xf32>) outs(%sumf : tensor<2x4x32x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.addf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<2x4x32x1xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,0)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sm : tensor<2x4x32x32xf32>, tensor<2x4x32x1xf32>) outs(%e1 : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %x = arith.divf %a, %s : f32
    linalg.yield %x : f32
  } -> tensor<2x4x32x32xf32>
  %oe = tensor.empty() : tensor<2x4x32x16xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(a,h,i,j,k)->(a,h,i,k)>, affine_map<(a,h,i,j,k)->(a,h,k,j)>, affine_map<(a,h,i,j,k)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x4x32x32xf32>, tensor<2x4x32x16xf32>) outs(%of : tensor<2x4x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o2: f32):
    %x = arith.mulf %a, %b : f32
    %y = arith.addf %o2, %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4x32x16xf32>
  return %o : tensor<2x4x32x16xf32>
}
