// A softmax over a tensor's columns (`k.softmax(dim=0)`), transposed into
// a matmul: efficient attention's `softmax(k, dim=-2)^T v`. The transpose
// cut the softmax's kernel from the matmul's; it moves onto the argument,
// and the softmax over rows and its product are one custom kernel, as in
// attention. Ranked by the roofline (the default), the kernel found
// recomputes all rows' softmax in each of its blocks, whose latency term
// then refuses to load the argument transposed inside it: the transpose
// stays a launch of its own, two launches as before. Ranked with latency,
// the search picks a kernel that loads it, one launch.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize="timeout=3 keep-reference=true latency-model=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=LATENCY
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_80 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// REMARK: remark: superoptimize: replaced 6 kernel ops ({{.*}}) by 1 kernels
// LATENCY: remark: superoptimize: replaced 6 kernel ops ({{.*}}) by 1 kernels
// VERIFY: remark: @col_softmax_matmul is equivalent to @col_softmax_matmul_reference
// HOST-LABEL: func.func @col_softmax_matmul(
// HOST: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: return

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @col_softmax_matmul(%x: tensor<128x64xf32>, %v: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %ec = tensor.empty() : tensor<64xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%ec : tensor<64xf32>) -> tensor<64xf32>
  %mx = linalg.reduce ins(%x : tensor<128x64xf32>) outs(%minit : tensor<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e = tensor.empty() : tensor<128x64xf32>
  %ex = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<128x64xf32>, tensor<64xf32>) outs(%e : tensor<128x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<128x64xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%ec : tensor<64xf32>) -> tensor<64xf32>
  %sm = linalg.reduce ins(%ex : tensor<128x64xf32>) outs(%sinit : tensor<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %p = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sm : tensor<128x64xf32>, tensor<64xf32>) outs(%e : tensor<128x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<128x64xf32>
  %et = tensor.empty() : tensor<64x128xf32>
  %pt = linalg.transpose ins(%p : tensor<128x64xf32>) outs(%et : tensor<64x128xf32>) permutation = [1, 0]
  %eo = tensor.empty() : tensor<64x256xf32>
  %oi = linalg.fill ins(%zero : f32) outs(%eo : tensor<64x256xf32>) -> tensor<64x256xf32>
  %o = linalg.matmul ins(%pt, %v : tensor<64x128xf32>, tensor<128x256xf32>) outs(%oi : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %o : tensor<64x256xf32>
}
