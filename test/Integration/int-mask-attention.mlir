// BERT attention as Hugging Face builds its padding mask and torch-mlir
// imports it: an int64 attention_mask [b, s] made floats, then
// (1 - mask) * finfo(f32).min added to the scores. The conversion imports
// as kernel.int_to_float, and the chain on it counts as an input of the
// attention (the mask's add counts nothing against max-kernel-ops, as a
// float mask's does), so the search finds the one attention kernel and the
// chain joins it as a prologue that loads the integers (one launch).
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | sed s/-3.4028234663852886E+38/-6.550400e+04/g | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-launch-plan %t.gpu.mlir | FileCheck %s --check-prefix=PLAN
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @int_mask_attention(
// IMPORT-NOT: linalg.
// IMPORT: kernel.int_to_float %arg3 : tensor<2x32xi64> to tensor<2x32xf32>
// IMPORT-NOT: linalg.
// IMPORT: return

// OPT-LABEL: func.func @int_mask_attention(
// OPT-NEXT: tensor.expand_shape %arg3
// OPT-NEXT: kernel.custom({{.*}}) {{.*}} : (tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32>, tensor<2x1x1x32xi64>, tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32>
// OPT: thread.int_to_float %{{.*}} : i64 to f32
// OPT-NOT: kernel.
// OPT: {{^ *}}return %

// VERIFY: remark: @int_mask_attention is equivalent to @int_mask_attention_reference

// HOST-LABEL: func.func @int_mask_attention(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: {{^ *}}return

// PLAN: "index": 3,
// PLAN-NEXT: "role": "input",
// PLAN: "dtype": "i64",
// PLAN-NEXT: "bytes": 512

// PTX: cvt.rn.{{f16|f32}}.s64

func.func @int_mask_attention(%q: tensor<2x4x32x16xf32>, %kt: tensor<2x4x16x32xf32>, %v: tensor<2x4x32x16xf32>, %mask: tensor<2x32xi64>) -> tensor<2x4x32x16xf32> {
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
  %me = tensor.empty() : tensor<2x1x1x32xf32>
  %mfl = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,j)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x32xi64>) outs(%me : tensor<2x1x1x32xf32>) {
  ^bb0(%m: i64, %o: f32):
    %x = arith.sitofp %m : i64 to f32
    linalg.yield %x : f32
  } -> tensor<2x1x1x32xf32>
  %inv = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mfl : tensor<2x1x1x32xf32>) outs(%me : tensor<2x1x1x32xf32>) {
  ^bb0(%m: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %min = arith.constant -3.40282347E+38 : f32
    %x = arith.subf %one, %m : f32
    %y = arith.mulf %x, %min : f32
    linalg.yield %y : f32
  } -> tensor<2x1x1x32xf32>
  %e1 = tensor.empty() : tensor<2x4x32x32xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(a,h,i,j)->(a,h,i,j)>, affine_map<(a,h,i,j)->(a,0,0,j)>, affine_map<(a,h,i,j)->(a,h,i,j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4, %inv : tensor<2x4x32x32xf32>, tensor<2x1x1x32xf32>) outs(%e1 : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %c = arith.constant 0.25 : f32
    %x = arith.mulf %a, %c : f32
    %y = arith.addf %x, %m : f32
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
