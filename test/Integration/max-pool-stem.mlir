// A ResNet stem's pooling as torch-mlir emits it: a 3x3 stride-2 max pool
// over the -inf padded image (tensor.pad), then a global average pool
// (linalg.pooling_nhwc_sum over the whole 8x8 map, times 1/64). The pooling
// ops take their window as an input, a tensor.empty that gives only the
// window's shape and that the payload never reads. Neither has a kernel
// op, so each runs on the GPU as a loop kernel; the window is no kernel
// argument (before, the loop kernel refused to read a tensor.empty and the
// function could not run on the GPU). Verified, lowered for sm_80 and sm_90
// and accepted by ptxas; python/tests/test_ptx_emulator.py runs the PTX to
// the CPU pipeline's numbers.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=5 keep-reference=true" -o %t.opt.mlir
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu90.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu90.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu90.mlir -o %t.90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin %}
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 2>/dev/null | mlsopt-translate --emit-ptx -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// VERIFY: remark: @stem_pool is equivalent to @stem_pool_reference
// REMARK-DAG: remark: 'linalg.pooling_nhwc_max' runs as a loop kernel
// REMARK-DAG: remark: 'linalg.pooling_nhwc_sum' runs as a loop kernel
// HOST-LABEL: func.func @stem_pool(
// The max pool reads the padded image and writes the pooled map: no
// window buffer.
// HOST: gpu.launch_func {{.*}}args(%{{.*}} : memref<1x18x18x32xf32>, %{{.*}} : memref<1x8x8x32xf32>)
// HOST: gpu.launch_func {{.*}}args(%{{.*}} : memref<1x8x8x32xf32>, %{{.*}} : memref<1x1x1x32xf32>)
// HOST: return

func.func @stem_pool(%x: tensor<1x16x16x32xf32>) -> (tensor<1x8x8x32xf32>, tensor<1x1x1x32xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.015625 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%n: index, %h: index, %w: index, %c: index):
    tensor.yield %ninf : f32
  } : tensor<1x16x16x32xf32> to tensor<1x18x18x32xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x8x8x32xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %max = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded, %window : tensor<1x18x18x32xf32>, tensor<3x3xf32>) outs(%init : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %whole = tensor.empty() : tensor<8x8xf32>
  %eg = tensor.empty() : tensor<1x1x1x32xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%eg : tensor<1x1x1x32xf32>) -> tensor<1x1x1x32xf32>
  %sum = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%max, %whole : tensor<1x8x8x32xf32>, tensor<8x8xf32>) outs(%zeros : tensor<1x1x1x32xf32>) -> tensor<1x1x1x32xf32>
  %avg = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sum : tensor<1x1x1x32xf32>) outs(%eg : tensor<1x1x1x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %inv : f32
    linalg.yield %r : f32
  } -> tensor<1x1x1x32xf32>
  return %max, %avg : tensor<1x8x8x32xf32>, tensor<1x1x1x32xf32>
}
