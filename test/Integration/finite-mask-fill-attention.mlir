// GPT-2's attention as Hugging Face writes it: `torch.where(causal_mask,
// attn_weights, torch.finfo(dtype).min)`, the mask a boolean [1, 1, s, s]
// slice of the model's buffer. A finite fill imports as max(x + where(m, 0,
// -inf), where(m, -inf, c)), two ops on two inputs made of the mask, which
// the search sees as the add alone (ScoreChains.h) and gets the max back
// in the kernel it finds: one launch, as a fill of -inf is (it was five).
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// The fill is told apart from another one.
// RUN: sed -e 's/0xFFF0000000000000, -3.4028234663852886E+38 : i1/0xFFF0000000000000, -1.000000e+04 : i1/' %t.opt.mlir \
// RUN:   | not mlsopt-opt --verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=MUTANT
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @gpt2_attention(
// IMPORT-NOT: linalg.
// IMPORT: %[[K:.*]] = kernel.where %arg3, 0.000000e+00, 0xFFF0000000000000 : tensor<1x1x32x32xi1> to tensor<1x1x32x32xf32>
// IMPORT-NEXT: %[[A:.*]] = kernel.add %{{.*}}, %[[K]] : tensor<2x4x32x32xf32>, tensor<1x1x32x32xf32>
// IMPORT-NEXT: %[[F:.*]] = kernel.where %arg3, 0xFFF0000000000000, -3.4028234663852886E+38 : tensor<1x1x32x32xi1> to tensor<1x1x32x32xf32>
// IMPORT-NEXT: kernel.max %[[A]], %[[F]]
// IMPORT-NOT: linalg.
// IMPORT: return

// REMARK: remark: superoptimize: replaced 9 kernel ops ({{.*}} us) by 1 kernels
// REMARK: @gpt2_attention launches 1 kernels

// The mask is loaded once, as bytes, and both wheres and the max are in
// the thread graph on the scores' tile.
// OPT-LABEL: func.func @gpt2_attention(
// OPT-NEXT: kernel.custom({{.*}}%arg3{{.*}}) {{.*}} : ({{.*}}tensor<1x1x32x32xi1>{{.*}}) -> tensor<2x4x32x16xf32>
// OPT-COUNT-1: block.load {{.*}} : tensor<1x1x32x32xi1> -> tensor
// OPT-NOT: block.load {{.*}}xi1>
// OPT: thread.where %[[M:.*]], 0.000000e+00, 0xFFF0000000000000 : i1 to f32
// OPT-NEXT: thread.where %[[M]], 0xFFF0000000000000, -3.4028234663852886E+38 : i1 to f32
// OPT-NEXT: thread.binary add
// OPT-NEXT: thread.binary max
// OPT-NOT: kernel.
// OPT: {{^ *}}return %

// VERIFY: remark: @gpt2_attention is equivalent to @gpt2_attention_reference

// MUTANT: error: @gpt2_attention is not equivalent to @gpt2_attention_reference

// HOST-LABEL: func.func @gpt2_attention(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return

func.func @gpt2_attention(%q: tensor<2x4x32x16xf32>, %kt: tensor<2x4x16x32xf32>, %v: tensor<2x4x32x16xf32>, %causal: tensor<1x1x32x32xi1>) -> tensor<2x4x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %fmin = arith.constant -3.40282347E+38 : f32
  %se = tensor.empty() : tensor<2x4x32x32xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %s4 = linalg.generic {indexing_maps = [affine_map<(a,h,i,j,k)->(a,h,i,k)>, affine_map<(a,h,i,j,k)->(a,h,k,j)>, affine_map<(a,h,i,j,k)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kt : tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32>) outs(%sf : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %x = arith.mulf %a, %b : f32
    %y = arith.addf %o, %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4x32x32xf32>
  %e1 = tensor.empty() : tensor<2x4x32x32xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(0,0,i,j)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4, %causal : tensor<2x4x32x32xf32>, tensor<1x1x32x32xi1>) outs(%e1 : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %m: i1, %o: f32):
    %c = arith.constant 0.25 : f32
    %x = arith.mulf %a, %c : f32
    %y = arith.select %m, %x, %fmin : f32
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
