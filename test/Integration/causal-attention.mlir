// A causal attention (Inputs/causal-attention.mlir): the mask imports as
// kernel.triangle_fill, and the search computes it on the scores' tiles
// inside the one attention kernel, placed by the grid (the query rows) as
// a load of the scores would be. Verified against the program as imported,
// then lowered to one launch and accepted by ptxas in f16.
// RUN: mlsopt-opt %S/Inputs/causal-attention.mlir --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: sed s/f32/f16/g %t.opt.mlir | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// IMPORT-LABEL: func.func @causal_attention
// IMPORT-NOT: linalg.
// IMPORT: kernel.mul_scalar %{{.*}}, 1.250000e-01 : tensor<2x128x512xf32>
// IMPORT: kernel.triangle_fill %{{.*}} dims [1, 2] diagonal 385 value 0xFFF0000000000000 : tensor<2x128x512xf32>
// IMPORT: kernel.reduce_max
// IMPORT-NOT: linalg.
// OPT-LABEL: func.func @causal_attention(
// OPT: kernel.custom
// OPT: block.matmul
// OPT: block.triangle_fill %{{.*}} dims [1, 2] diagonal 385 value 0xFFF0000000000000 imap <x = 0, y = 1>
// OPT: block.store
// OPT-NOT: kernel.
// OPT: return
// OPT-LABEL: func.func private @causal_attention_reference(
// VERIFY: remark: @causal_attention is equivalent to @causal_attention_reference
// HOST-LABEL: func.func @causal_attention(
// HOST-COUNT-1: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: return
