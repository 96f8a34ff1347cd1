// Hugging Face's eager attention in f16: the softmax computed in f32
// (`softmax(s, dtype=float32).to(s.dtype)`), as torch-mlir emits it: an
// extf copy of the scores, the safe softmax in f32, and a truncf of the
// probabilities. Imported as written, the two kernel.converts cut the
// attention into three kernels. By default the import computes the safe
// softmax on the f16 scores instead (kernel ops compute in f32 and round
// once), and the search finds one kernel; `narrow-softmax=false` keeps the
// conversions. A softmax whose widened values something else reads stays.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel="narrow-softmax=false" | FileCheck %s --check-prefix=WIDE
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | mlsopt-opt --superoptimize="timeout=10 keep-reference=true" -o %t.opt.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mlsopt-opt %t.opt.mlir --verify-equivalence 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY

// CHECK-LABEL: func.func @eager_attention(
// CHECK-NOT: kernel.convert
// CHECK: %[[S:.*]] = kernel.matmul
// CHECK-NEXT: %[[M:.*]] = kernel.reduce_max %[[S]] dim 2 : tensor<4x64x64xf16>
// CHECK-NEXT: %[[D:.*]] = kernel.sub %[[S]], %[[M]] : tensor<4x64x64xf16>, tensor<4x64x1xf16>
// CHECK-NEXT: %[[E:.*]] = kernel.exp %[[D]] : tensor<4x64x64xf16>
// CHECK-NEXT: %[[SUM:.*]] = kernel.reduce_sum %[[E]] dim 2 : tensor<4x64x64xf16>
// CHECK-NEXT: %[[P:.*]] = kernel.div %[[E]], %[[SUM]]
// CHECK-NEXT: kernel.matmul %[[P]], %arg2
// CHECK-LABEL: func.func @widened_scores_read(
// CHECK: kernel.convert %arg0 : tensor<4x64x64xf16> to tensor<4x64x64xf32>
// CHECK: kernel.convert %{{.*}} : tensor<4x64x64xf32> to tensor<4x64x64xf16>

// WIDE-LABEL: func.func @eager_attention(
// WIDE: kernel.convert %{{.*}} : tensor<4x64x64xf16> to tensor<4x64x64xf32>
// WIDE: kernel.reduce_max %{{.*}} dim 2 : tensor<4x64x64xf32>
// WIDE: kernel.convert %{{.*}} : tensor<4x64x64xf32> to tensor<4x64x64xf16>

// REMARK: @eager_attention launches 1 kernels
// VERIFY: remark: @eager_attention is equivalent to @eager_attention_reference

func.func @eager_attention(%q: tensor<4x64x32xf16>, %k: tensor<4x64x32xf16>, %v: tensor<4x64x32xf16>) -> tensor<4x64x32xf16> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %hzero = arith.constant 0.0 : f16
  %kte = tensor.empty() : tensor<4x32x64xf16>
  %kt = linalg.transpose ins(%k : tensor<4x64x32xf16>) outs(%kte : tensor<4x32x64xf16>) permutation = [0, 2, 1]
  %se = tensor.empty() : tensor<4x64x64xf16>
  %sz = linalg.fill ins(%hzero : f16) outs(%se : tensor<4x64x64xf16>) -> tensor<4x64x64xf16>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x64x32xf16>, tensor<4x32x64xf16>) outs(%sz : tensor<4x64x64xf16>) -> tensor<4x64x64xf16>
  %e0 = tensor.empty() : tensor<4x64x64xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x64x64xf16>) outs(%e0 : tensor<4x64x64xf32>) {
  ^bb0(%a: f16, %o: f32):
    %x = arith.extf %a : f16 to f32
    linalg.yield %x : f32
  } -> tensor<4x64x64xf32>
  %e1 = tensor.empty() : tensor<4x64xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w : tensor<4x64x64xf32>) outs(%mf : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.maximumf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<4x64xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %mx : tensor<4x64x64xf32>, tensor<4x64xf32>) outs(%e0 : tensor<4x64x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %x = arith.subf %a, %m : f32
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4x64x64xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<4x64x64xf32>) outs(%sf : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.addf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<4x64xf32>
  %e2 = tensor.empty() : tensor<4x64x64xf16>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %sm : tensor<4x64x64xf32>, tensor<4x64xf32>) outs(%e2 : tensor<4x64x64xf16>) {
  ^bb0(%a: f32, %t: f32, %o: f16):
    %x = arith.divf %a, %t : f32
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<4x64x64xf16>
  %oe = tensor.empty() : tensor<4x64x32xf16>
  %oz = linalg.fill ins(%hzero : f16) outs(%oe : tensor<4x64x32xf16>) -> tensor<4x64x32xf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x64x64xf16>, tensor<4x64x32xf16>) outs(%oz : tensor<4x64x32xf16>) -> tensor<4x64x32xf16>
  return %o : tensor<4x64x32xf16>
}

func.func @widened_scores_read(%s: tensor<4x64x64xf16>) -> (tensor<4x64x64xf16>, tensor<4x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<4x64x64xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x64x64xf16>) outs(%e0 : tensor<4x64x64xf32>) {
  ^bb0(%a: f16, %o: f32):
    %x = arith.extf %a : f16 to f32
    linalg.yield %x : f32
  } -> tensor<4x64x64xf32>
  %e1 = tensor.empty() : tensor<4x64xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w : tensor<4x64x64xf32>) outs(%mf : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.maximumf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<4x64xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %mx : tensor<4x64x64xf32>, tensor<4x64xf32>) outs(%e0 : tensor<4x64x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %x = arith.subf %a, %m : f32
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4x64x64xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<4x64x64xf32>) outs(%sf : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.addf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<4x64xf32>
  %e2 = tensor.empty() : tensor<4x64x64xf16>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %sm : tensor<4x64x64xf32>, tensor<4x64xf32>) outs(%e2 : tensor<4x64x64xf16>) {
  ^bb0(%a: f32, %t: f32, %o: f16):
    %x = arith.divf %a, %t : f32
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<4x64x64xf16>
  return %p, %w : tensor<4x64x64xf16>, tensor<4x64x64xf32>
}

// The scores widened, then scaled in f32 (`scores.float() * scale`): the
// scale is computed on the f16 scores as well, rounded once more as their
// product already was. Left widened, the product Q K^T was a kernel of its
// own (2 launches).
// CHECK-LABEL: func.func @scaled_after_widening(
// CHECK-NOT: kernel.convert
// CHECK: %[[S:.*]] = kernel.matmul
// CHECK-NEXT: %[[X:.*]] = kernel.mul_scalar %[[S]], 0.1767766922712326 : tensor<4x64x64xf16>
// CHECK-NEXT: %[[M:.*]] = kernel.reduce_max %[[X]] dim 2 : tensor<4x64x64xf16>
// CHECK-NEXT: kernel.sub %[[X]], %[[M]] : tensor<4x64x64xf16>, tensor<4x64x1xf16>
// CHECK-NOT: kernel.convert
// CHECK: return
// REMARK: @scaled_after_widening launches 1 kernels
// VERIFY: remark: @scaled_after_widening is equivalent to @scaled_after_widening_reference

func.func @scaled_after_widening(%q: tensor<4x64x32xf16>, %k: tensor<4x64x32xf16>, %v: tensor<4x64x32xf16>) -> tensor<4x64x32xf16> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %hzero = arith.constant 0.0 : f16
  %kte = tensor.empty() : tensor<4x32x64xf16>
  %kt = linalg.transpose ins(%k : tensor<4x64x32xf16>) outs(%kte : tensor<4x32x64xf16>) permutation = [0, 2, 1]
  %se = tensor.empty() : tensor<4x64x64xf16>
  %sz = linalg.fill ins(%hzero : f16) outs(%se : tensor<4x64x64xf16>) -> tensor<4x64x64xf16>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x64x32xf16>, tensor<4x32x64xf16>) outs(%sz : tensor<4x64x64xf16>) -> tensor<4x64x64xf16>
  %e0 = tensor.empty() : tensor<4x64x64xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x64x64xf16>) outs(%e0 : tensor<4x64x64xf32>) {
  ^bb0(%a: f16, %o: f32):
    %x = arith.extf %a : f16 to f32
    %c = arith.constant 0.176776692 : f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<4x64x64xf32>
  %e1 = tensor.empty() : tensor<4x64xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w : tensor<4x64x64xf32>) outs(%mf : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.maximumf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<4x64xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %mx : tensor<4x64x64xf32>, tensor<4x64xf32>) outs(%e0 : tensor<4x64x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %x = arith.subf %a, %m : f32
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4x64x64xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<4x64x64xf32>) outs(%sf : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.addf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<4x64xf32>
  %e2 = tensor.empty() : tensor<4x64x64xf16>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %sm : tensor<4x64x64xf32>, tensor<4x64xf32>) outs(%e2 : tensor<4x64x64xf16>) {
  ^bb0(%a: f32, %t: f32, %o: f16):
    %x = arith.divf %a, %t : f32
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<4x64x64xf16>
  %oe = tensor.empty() : tensor<4x64x32xf16>
  %oz = linalg.fill ins(%hzero : f16) outs(%oe : tensor<4x64x32xf16>) -> tensor<4x64x32xf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x64x64xf16>, tensor<4x64x32xf16>) outs(%oz : tensor<4x64x32xf16>) -> tensor<4x64x32xf16>
  return %o : tensor<4x64x32xf16>
}
