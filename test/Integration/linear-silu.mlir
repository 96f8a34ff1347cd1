// A linear layer as torch-mlir emits nn.Linear: linalg.matmul reading the
// weight [out, in] through a transposed indexing map, then SiLU spelled out
// in arith and math. The import makes the transposed read a
// kernel.transpose; the kernel the search finds loads the weight as it is
// stored and reads its tiles through block.transpose, so the whole layer is
// one launch and no copy of the weight is made. In f32 the product runs on
// tensor cores as tf32, each B element read from the [n, k] tile.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=2" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @linear_silu
// IMPORT: kernel.transpose %arg1 [1, 0] : tensor<1024x512xf32>
// IMPORT: kernel.matmul
// OPT-LABEL: func.func @linear_silu(
// OPT-NOT: kernel.transpose
// OPT: kernel.custom(%arg0, %arg1)
// OPT: block.transpose
// OPT: block.matmul
// OPT-LABEL: func.func private @linear_silu_reference(
// VERIFY: remark: @linear_silu is equivalent to @linear_silu_reference
// HOST-LABEL: func.func @linear_silu(
// HOST: gpu.launch_func {{.*}} args(%arg0 : memref<8x512xf32>, %arg1 : memref<1024x512xf32>
// HOST-NOT: gpu.launch_func
// PTX: cvt.rna.tf32.f32
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

func.func @linear_silu(%x: tensor<8x512xf32>, %w: tensor<1024x512xf32>) -> tensor<8x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %o = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x512xf32>, tensor<1024x512xf32>)
      outs(%f : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%o : tensor<8x1024xf32>) outs(%e : tensor<8x1024xf32>) {
  ^bb0(%a: f32, %unused: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %y = arith.divf %a, %d : f32
    linalg.yield %y : f32
  } -> tensor<8x1024xf32>
  return %s : tensor<8x1024xf32>
}
