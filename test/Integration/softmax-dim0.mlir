// Safe softmax over dim 0 (columns) of a 96x80 matrix, as a front end
// writes it in linalg, through every stage: import, search, verification,
// GPU lowering and ptxas. The statistics are rows [1, 80] held as [80];
// the import leaves no reshape between its kernel ops, so the search sees
// all five as one subprogram and the GPU pipeline takes the function.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.f32.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f32.sm_80.ptx -o %t.f32.sm_80.cubin %}
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f16.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f16.sm_90.ptx -o %t.f16.sm_90.cubin %}

// IMPORT-LABEL: func.func @softmax_dim0
// IMPORT-NOT: linalg.
// IMPORT-NOT: tensor.
// IMPORT-COUNT-5: kernel.
// IMPORT-NOT: kernel.
// IMPORT: return
// SEARCH: remark: superoptimize: {{replaced|kept the subprogram of}} 5 kernel ops
// SEARCH-NOT: remark: superoptimize
// VERIFY: remark: @softmax_dim0 is equivalent to @softmax_dim0_reference

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @softmax_dim0(%x: tensor<96x80xf32>) -> tensor<96x80xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<80xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<80xf32>) -> tensor<80xf32>
  %mx = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<96x80xf32>) outs(%mf : tensor<80xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<80xf32>
  %e1 = tensor.empty() : tensor<96x80xf32>
  %e = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx : tensor<96x80xf32>, tensor<80xf32>) outs(%e1 : tensor<96x80xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<96x80xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%e0 : tensor<80xf32>) -> tensor<80xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%e : tensor<96x80xf32>) outs(%zf : tensor<80xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<80xf32>
  %out = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<96x80xf32>, tensor<80xf32>) outs(%e1 : tensor<96x80xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %y = arith.divf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<96x80xf32>
  return %out : tensor<96x80xf32>
}
