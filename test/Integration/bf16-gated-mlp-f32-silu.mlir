// A bf16 gated MLP as torch-mlir emits `F.silu(x @ w1).float() *
// (x @ w2).float()` rounded back to bf16: bf16 matmuls, then one generic
// that extends both products to f32, computes the SiLU and the product
// there and truncates. The import makes kernel.convert ops of the casts;
// the search sees through them and finds one kernel, computed in f32, that
// loads and stores bf16 (three kernels before) and multiplies the bf16
// tiles into f32 sums. CPU/run-bf16-gated-mlp.mlir
// runs the result against the program computed in f32.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}

// IMPORT-LABEL: func.func @bf16_gated_mlp
// IMPORT-COUNT-2: kernel.matmul {{.*}} : tensor<8x512xbf16>, tensor<512x256xbf16>
// IMPORT-COUNT-2: kernel.convert {{.*}} : tensor<8x256xbf16> to tensor<8x256xf32>
// IMPORT: kernel.silu {{.*}} : tensor<8x256xf32>
// IMPORT: kernel.mul
// IMPORT: kernel.convert {{.*}} : tensor<8x256xf32> to tensor<8x256xbf16>
// SEARCH: remark: superoptimize: replaced 7 kernel ops ({{.*}}) by 1 kernels
// OPT-LABEL: func.func @bf16_gated_mlp
// OPT-NEXT: kernel.custom(%arg0, %arg1, %arg2) {{.*}} -> tensor<8x256xbf16>
// OPT-COUNT-2: block.matmul {{.*}}xbf16>, tensor<{{.*}}xbf16> -> tensor<{{.*}}xf32>
// OPT: block.store {{.*}}xf32> into tensor<8x256xbf16>
// OPT-NOT: kernel.
// OPT: return
// VERIFY: remark: @bf16_gated_mlp is equivalent to @bf16_gated_mlp_reference

#id = affine_map<(i, j) -> (i, j)>
func.func @bf16_gated_mlp(%x: tensor<8x512xbf16>, %w1: tensor<512x256xbf16>, %w2: tensor<512x256xbf16>) -> tensor<8x256xbf16> {
  %zero = arith.constant 0.0 : bf16
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x256xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<8x256xbf16>) -> tensor<8x256xbf16>
  %a = linalg.matmul ins(%x, %w1 : tensor<8x512xbf16>, tensor<512x256xbf16>) outs(%f : tensor<8x256xbf16>) -> tensor<8x256xbf16>
  %b = linalg.matmul ins(%x, %w2 : tensor<8x512xbf16>, tensor<512x256xbf16>) outs(%f : tensor<8x256xbf16>) -> tensor<8x256xbf16>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x256xbf16>, tensor<8x256xbf16>) outs(%e : tensor<8x256xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %n = arith.negf %pf : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %pf, %d : f32
    %m = arith.mulf %s, %qf : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x256xbf16>
  return %g : tensor<8x256xbf16>
}
