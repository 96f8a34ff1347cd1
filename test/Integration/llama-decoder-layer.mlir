// A LLaMA decoder layer at batch 1 as torch-mlir emits it, one unfused
// generic per torch op: RMSNorm, q/k/v projections of the rows of
// [1, 8, 64], heads split and transposed, a rotary embedding (rotate_half
// as two tensor.extract_slice halves, a negation and a tensor.concat),
// repeat_kv (a linalg.broadcast of the 2 KV heads to 4 and a collapse),
// scores scaled by 1/sqrt(16) plus a causal mask, a safe softmax, the
// output projection and residual, the post-attention RMSNorm, a gated MLP
// and the second residual. Every stage takes the whole layer: the import
// leaves only the slices and broadcasts (data movement), the search and
// the finite-field verification read through them, and the GPU pipeline
// launches them as copy kernels, so the layer reaches PTX.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-launch-plan %t.gpu.mlir -o /dev/null
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// The RMSNorm reads the argument's rows and feeds the three projections
// with no reshape between them (a batch of one is rows too).
// IMPORT-LABEL: func.func @llama_decoder_layer
// IMPORT-NEXT: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
// IMPORT-NEXT: kernel.square
// IMPORT-NEXT: kernel.reduce_sum
// IMPORT: kernel.rsqrt
// IMPORT-NOT: tensor.
// IMPORT: kernel.matmul {{.*}} : tensor<8x64xf32>, tensor<64x64xf32>
// IMPORT-NEXT: kernel.matmul {{.*}} : tensor<8x64xf32>, tensor<64x32xf32>
// IMPORT-NEXT: kernel.matmul {{.*}} : tensor<8x64xf32>, tensor<64x32xf32>
// IMPORT-COUNT-4: tensor.extract_slice
// IMPORT-COUNT-2: linalg.broadcast
// IMPORT-NOT: linalg.{{[a-z]+}} 
// IMPORT: return
// VERIFY: remark: @llama_decoder_layer is equivalent to @llama_decoder_layer_reference
// HOST-LABEL: func.func @llama_decoder_layer(
// HOST-NOT: linalg.
// HOST-NOT: tensor.
// HOST: gpu.launch_func
// HOST: return

func.func @llama_decoder_layer(%x: tensor<1x8x64xf32>, %ln1: tensor<64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<64x32xf32>, %wv: tensor<64x32xf32>, %wo: tensor<64x64xf32>, %ln2: tensor<64xf32>, %w1: tensor<64x128xf32>, %w3: tensor<64x128xf32>, %w2: tensor<128x64xf32>, %cos: tensor<8x16xf32>, %sin: tensor<8x16xf32>, %mask: tensor<8x8xf32>) -> tensor<1x8x64xf32> {
  %cst0 = arith.constant 0.000000e+00 : f32
  %cst1 = arith.constant 6.400000e+01 : f32
  %cst2 = arith.constant 9.99999997E-7 : f32
  %cst3 = arith.constant 4.000000e+00 : f32
  %cst4 = arith.constant 0xFF800000 : f32
  %cst5 = arith.constant 1.000000e+00 : f32
  %e1 = tensor.empty() : tensor<1x8x64xf32>
  %g2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x64xf32>) outs(%e1 : tensor<1x8x64xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.mulf %in0, %in0 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %e3 = tensor.empty() : tensor<1x8x1xf32>
  %f4 = linalg.fill ins(%cst0 : f32) outs(%e3 : tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g2 : tensor<1x8x64xf32>) outs(%f4 : tensor<1x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.addf %in0, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1xf32>
  %e6 = tensor.empty() : tensor<1x8x1xf32>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g5 : tensor<1x8x1xf32>) outs(%e6 : tensor<1x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.divf %in0, %cst1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1xf32>
  %e8 = tensor.empty() : tensor<1x8x1xf32>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g7 : tensor<1x8x1xf32>) outs(%e8 : tensor<1x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.addf %in0, %cst2 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1xf32>
  %e10 = tensor.empty() : tensor<1x8x1xf32>
  %g11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g9 : tensor<1x8x1xf32>) outs(%e10 : tensor<1x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = math.rsqrt %in0 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1xf32>
  %e12 = tensor.empty() : tensor<1x8x64xf32>
  %g13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %g11 : tensor<1x8x64xf32>, tensor<1x8x1xf32>) outs(%e12 : tensor<1x8x64xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %e14 = tensor.empty() : tensor<1x8x64xf32>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ln1, %g13 : tensor<64xf32>, tensor<1x8x64xf32>) outs(%e14 : tensor<1x8x64xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %co16 = tensor.collapse_shape %g15 [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
  %e17 = tensor.empty() : tensor<8x64xf32>
  %f18 = linalg.fill ins(%cst0 : f32) outs(%e17 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %mm19 = linalg.matmul ins(%co16, %wq : tensor<8x64xf32>, tensor<64x64xf32>) outs(%f18 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %e20 = tensor.empty() : tensor<8x32xf32>
  %f21 = linalg.fill ins(%cst0 : f32) outs(%e20 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm22 = linalg.matmul ins(%co16, %wk : tensor<8x64xf32>, tensor<64x32xf32>) outs(%f21 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e23 = tensor.empty() : tensor<8x32xf32>
  %f24 = linalg.fill ins(%cst0 : f32) outs(%e23 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm25 = linalg.matmul ins(%co16, %wv : tensor<8x64xf32>, tensor<64x32xf32>) outs(%f24 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %ex26 = tensor.expand_shape %mm19 [[0], [1, 2]] output_shape [8, 4, 16] : tensor<8x64xf32> into tensor<8x4x16xf32>
  %e27 = tensor.empty() : tensor<4x8x16xf32>
  %tr28 = linalg.transpose ins(%ex26 : tensor<8x4x16xf32>) outs(%e27 : tensor<4x8x16xf32>) permutation = [1, 0, 2]
  %ex29 = tensor.expand_shape %mm22 [[0], [1, 2]] output_shape [8, 2, 16] : tensor<8x32xf32> into tensor<8x2x16xf32>
  %e30 = tensor.empty() : tensor<2x8x16xf32>
  %tr31 = linalg.transpose ins(%ex29 : tensor<8x2x16xf32>) outs(%e30 : tensor<2x8x16xf32>) permutation = [1, 0, 2]
  %ex32 = tensor.expand_shape %mm25 [[0], [1, 2]] output_shape [8, 2, 16] : tensor<8x32xf32> into tensor<8x2x16xf32>
  %e33 = tensor.empty() : tensor<2x8x16xf32>
  %tr34 = linalg.transpose ins(%ex32 : tensor<8x2x16xf32>) outs(%e33 : tensor<2x8x16xf32>) permutation = [1, 0, 2]
  %sl35 = tensor.extract_slice %tr28[0, 0, 0] [4, 8, 8] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x8x8xf32>
  %sl36 = tensor.extract_slice %tr28[0, 0, 8] [4, 8, 8] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x8x8xf32>
  %e37 = tensor.empty() : tensor<4x8x8xf32>
  %neg38 = linalg.negf ins(%sl36 : tensor<4x8x8xf32>) outs(%e37 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %cat39 = tensor.concat dim(2) %neg38, %sl35 : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x16xf32>
  %e40 = tensor.empty() : tensor<4x8x16xf32>
  %g41 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%tr28, %cos : tensor<4x8x16xf32>, tensor<8x16xf32>) outs(%e40 : tensor<4x8x16xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16xf32>
  %e42 = tensor.empty() : tensor<4x8x16xf32>
  %g43 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cat39, %sin : tensor<4x8x16xf32>, tensor<8x16xf32>) outs(%e42 : tensor<4x8x16xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16xf32>
  %e44 = tensor.empty() : tensor<4x8x16xf32>
  %n45 = linalg.add ins(%g41, %g43 : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%e44 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %sl46 = tensor.extract_slice %tr31[0, 0, 0] [2, 8, 8] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x8x8xf32>
  %sl47 = tensor.extract_slice %tr31[0, 0, 8] [2, 8, 8] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x8x8xf32>
  %e48 = tensor.empty() : tensor<2x8x8xf32>
  %neg49 = linalg.negf ins(%sl47 : tensor<2x8x8xf32>) outs(%e48 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %cat50 = tensor.concat dim(2) %neg49, %sl46 : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x16xf32>
  %e51 = tensor.empty() : tensor<2x8x16xf32>
  %g52 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%tr31, %cos : tensor<2x8x16xf32>, tensor<8x16xf32>) outs(%e51 : tensor<2x8x16xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x16xf32>
  %e53 = tensor.empty() : tensor<2x8x16xf32>
  %g54 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cat50, %sin : tensor<2x8x16xf32>, tensor<8x16xf32>) outs(%e53 : tensor<2x8x16xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x16xf32>
  %e55 = tensor.empty() : tensor<2x8x16xf32>
  %n56 = linalg.add ins(%g52, %g54 : tensor<2x8x16xf32>, tensor<2x8x16xf32>) outs(%e55 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %e57 = tensor.empty() : tensor<2x2x8x16xf32>
  %bc58 = linalg.broadcast ins(%n56 : tensor<2x8x16xf32>) outs(%e57 : tensor<2x2x8x16xf32>) dimensions = [1]
  %co59 = tensor.collapse_shape %bc58 [[0, 1], [2], [3]] : tensor<2x2x8x16xf32> into tensor<4x8x16xf32>
  %e60 = tensor.empty() : tensor<2x2x8x16xf32>
  %bc61 = linalg.broadcast ins(%tr34 : tensor<2x8x16xf32>) outs(%e60 : tensor<2x2x8x16xf32>) dimensions = [1]
  %co62 = tensor.collapse_shape %bc61 [[0, 1], [2], [3]] : tensor<2x2x8x16xf32> into tensor<4x8x16xf32>
  %e63 = tensor.empty() : tensor<4x16x8xf32>
  %tr64 = linalg.transpose ins(%co59 : tensor<4x8x16xf32>) outs(%e63 : tensor<4x16x8xf32>) permutation = [0, 2, 1]
  %e65 = tensor.empty() : tensor<4x8x8xf32>
  %f66 = linalg.fill ins(%cst0 : f32) outs(%e65 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %bmm67 = linalg.batch_matmul ins(%n45, %tr64 : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%f66 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %e68 = tensor.empty() : tensor<4x8x8xf32>
  %g69 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm67 : tensor<4x8x8xf32>) outs(%e68 : tensor<4x8x8xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.divf %in0, %cst3 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %e70 = tensor.empty() : tensor<4x8x8xf32>
  %g71 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g69, %mask : tensor<4x8x8xf32>, tensor<8x8xf32>) outs(%e70 : tensor<4x8x8xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.addf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %e72 = tensor.empty() : tensor<4x8x1xf32>
  %f73 = linalg.fill ins(%cst4 : f32) outs(%e72 : tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %g74 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g71 : tensor<4x8x8xf32>) outs(%f73 : tensor<4x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.maximumf %in0, %out : f32
    linalg.yield %r : f32
  } -> tensor<4x8x1xf32>
  %e75 = tensor.empty() : tensor<4x8x8xf32>
  %g76 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g71, %g74 : tensor<4x8x8xf32>, tensor<4x8x1xf32>) outs(%e75 : tensor<4x8x8xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.subf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %e77 = tensor.empty() : tensor<4x8x8xf32>
  %g78 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g76 : tensor<4x8x8xf32>) outs(%e77 : tensor<4x8x8xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = math.exp %in0 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %e79 = tensor.empty() : tensor<4x8x1xf32>
  %f80 = linalg.fill ins(%cst0 : f32) outs(%e79 : tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %g81 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g78 : tensor<4x8x8xf32>) outs(%f80 : tensor<4x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.addf %in0, %out : f32
    linalg.yield %r : f32
  } -> tensor<4x8x1xf32>
  %e82 = tensor.empty() : tensor<4x8x8xf32>
  %g83 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g78, %g81 : tensor<4x8x8xf32>, tensor<4x8x1xf32>) outs(%e82 : tensor<4x8x8xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.divf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %e84 = tensor.empty() : tensor<4x8x16xf32>
  %f85 = linalg.fill ins(%cst0 : f32) outs(%e84 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %bmm86 = linalg.batch_matmul ins(%g83, %co62 : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%f85 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %e87 = tensor.empty() : tensor<8x4x16xf32>
  %tr88 = linalg.transpose ins(%bmm86 : tensor<4x8x16xf32>) outs(%e87 : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  %co89 = tensor.collapse_shape %tr88 [[0], [1, 2]] : tensor<8x4x16xf32> into tensor<8x64xf32>
  %e90 = tensor.empty() : tensor<8x64xf32>
  %f91 = linalg.fill ins(%cst0 : f32) outs(%e90 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %mm92 = linalg.matmul ins(%co89, %wo : tensor<8x64xf32>, tensor<64x64xf32>) outs(%f91 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %ex93 = tensor.expand_shape %mm92 [[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xf32> into tensor<1x8x64xf32>
  %e94 = tensor.empty() : tensor<1x8x64xf32>
  %n95 = linalg.add ins(%x, %ex93 : tensor<1x8x64xf32>, tensor<1x8x64xf32>) outs(%e94 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %e96 = tensor.empty() : tensor<1x8x64xf32>
  %g97 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%n95 : tensor<1x8x64xf32>) outs(%e96 : tensor<1x8x64xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.mulf %in0, %in0 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %e98 = tensor.empty() : tensor<1x8x1xf32>
  %f99 = linalg.fill ins(%cst0 : f32) outs(%e98 : tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %g100 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g97 : tensor<1x8x64xf32>) outs(%f99 : tensor<1x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.addf %in0, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1xf32>
  %e101 = tensor.empty() : tensor<1x8x1xf32>
  %g102 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g100 : tensor<1x8x1xf32>) outs(%e101 : tensor<1x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.divf %in0, %cst1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1xf32>
  %e103 = tensor.empty() : tensor<1x8x1xf32>
  %g104 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g102 : tensor<1x8x1xf32>) outs(%e103 : tensor<1x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = arith.addf %in0, %cst2 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1xf32>
  %e105 = tensor.empty() : tensor<1x8x1xf32>
  %g106 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g104 : tensor<1x8x1xf32>) outs(%e105 : tensor<1x8x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %r = math.rsqrt %in0 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1xf32>
  %e107 = tensor.empty() : tensor<1x8x64xf32>
  %g108 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%n95, %g106 : tensor<1x8x64xf32>, tensor<1x8x1xf32>) outs(%e107 : tensor<1x8x64xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %e109 = tensor.empty() : tensor<1x8x64xf32>
  %g110 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ln2, %g108 : tensor<64xf32>, tensor<1x8x64xf32>) outs(%e109 : tensor<1x8x64xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %co111 = tensor.collapse_shape %g110 [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
  %e112 = tensor.empty() : tensor<8x128xf32>
  %f113 = linalg.fill ins(%cst0 : f32) outs(%e112 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %mm114 = linalg.matmul ins(%co111, %w1 : tensor<8x64xf32>, tensor<64x128xf32>) outs(%f113 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %e115 = tensor.empty() : tensor<8x128xf32>
  %f116 = linalg.fill ins(%cst0 : f32) outs(%e115 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %mm117 = linalg.matmul ins(%co111, %w3 : tensor<8x64xf32>, tensor<64x128xf32>) outs(%f116 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %e118 = tensor.empty() : tensor<8x128xf32>
  %g119 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm114 : tensor<8x128xf32>) outs(%e118 : tensor<8x128xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %n = arith.negf %in0 : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %cst5 : f32
    %r = arith.divf %cst5, %d : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  %e120 = tensor.empty() : tensor<8x128xf32>
  %g121 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm114, %g119 : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e120 : tensor<8x128xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  %e122 = tensor.empty() : tensor<8x128xf32>
  %g123 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g121, %mm117 : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e122 : tensor<8x128xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  %e124 = tensor.empty() : tensor<8x64xf32>
  %f125 = linalg.fill ins(%cst0 : f32) outs(%e124 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %mm126 = linalg.matmul ins(%g123, %w2 : tensor<8x128xf32>, tensor<128x64xf32>) outs(%f125 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %ex127 = tensor.expand_shape %mm126 [[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xf32> into tensor<1x8x64xf32>
  %e128 = tensor.empty() : tensor<1x8x64xf32>
  %n129 = linalg.add ins(%n95, %ex127 : tensor<1x8x64xf32>, tensor<1x8x64xf32>) outs(%e128 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  return %n129 : tensor<1x8x64xf32>
}
