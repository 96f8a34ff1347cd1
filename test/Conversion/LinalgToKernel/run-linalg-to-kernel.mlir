// REQUIRES: mlir-runner
// The programs below, as front ends write them in linalg, compute the same
// numbers before and after --convert-linalg-to-kernel (lowered back through
// --convert-kernel-to-linalg): both runs must print what the CHECK lines say.
// RUN: mlsopt-opt %s %lower_to_llvm \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// The second run tests the conversion only if the programs were converted.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | FileCheck %s --check-prefix=KERNEL

// KERNEL-LABEL: func.func @linear
// KERNEL-NOT: linalg.
// KERNEL: kernel.matmul
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @linear(%x: tensor<3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<3x5xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %xw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<3x4xf32>, tensor<5x4xf32>) outs(%z : tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%xw, %b : tensor<3x5xf32>, tensor<5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// KERNEL-LABEL: func.func @accumulate
// KERNEL-NOT: linalg.
// KERNEL: kernel.add
// KERNEL: return
func.func @accumulate(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>, %c: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<4x3xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// torch.addmm's beta * constant: a matmul into a constant fill other than
// zero is the product plus a scalar.
// KERNEL-LABEL: func.func @accumulate_half
// KERNEL-NOT: linalg.
// KERNEL: kernel.add_scalar
// KERNEL: return
func.func @accumulate_half(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %c = linalg.fill ins(%half : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<4x3xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// Scaled Q K^T and a softmax over keys with keepdim reductions.
// KERNEL-LABEL: func.func @attention_probs
// KERNEL-NOT: linalg.
// KERNEL: kernel.reduce_max
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @attention_probs(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>) -> tensor<2x3x5xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x3x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x3x4xf32>, tensor<2x5x4xf32>) outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e1 = tensor.empty() : tensor<2x3x1xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, 0)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x3x5xf32>) outs(%minit : tensor<2x3x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2x3x1xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, 0)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max : tensor<2x3x5xf32>, tensor<2x3x1xf32>) outs(%e : tensor<2x3x5xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %scaled = arith.mulf %in, %half : f32
    %ms = arith.mulf %m, %half : f32
    %d = arith.subf %scaled, %ms : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<2x3x5xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, 0)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x3x5xf32>) outs(%sinit : tensor<2x3x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2x3x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, 0)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %sum : tensor<2x3x5xf32>, tensor<2x3x1xf32>) outs(%e : tensor<2x3x5xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %q2 = arith.divf %in, %t : f32
    linalg.yield %q2 : f32
  } -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// KERNEL-LABEL: func.func @rms_norm
// KERNEL-NOT: linalg.
// KERNEL: kernel.rsqrt
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @rms_norm(%x: tensor<3x8xf32>, %w: tensor<8xf32>) -> tensor<3x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 8.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e = tensor.empty() : tensor<3x8xf32>
  %e1 = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x8xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %sq, %acc : f32
    linalg.yield %a : f32
  } -> tensor<3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %w : tensor<3x8xf32>, tensor<3xf32>, tensor<8xf32>) outs(%e : tensor<3x8xf32>) {
  ^bb0(%in: f32, %s: f32, %wt: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %xn = arith.mulf %in, %r : f32
    %o = arith.mulf %xn, %wt : f32
    linalg.yield %o : f32
  } -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// KERNEL-LABEL: func.func @gated_mlp
// KERNEL-NOT: linalg.
// KERNEL: kernel.silu
// KERNEL-NOT: linalg.
// KERNEL: kernel.silu
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @gated_mlp(%x: tensor<3x4xf32>, %wg: tensor<4x6xf32>, %wu: tensor<4x6xf32>, %wd: tensor<6x4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %eh = tensor.empty() : tensor<3x6xf32>
  %zh = linalg.fill ins(%zero : f32) outs(%eh : tensor<3x6xf32>) -> tensor<3x6xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<3x4xf32>, tensor<4x6xf32>) outs(%zh : tensor<3x6xf32>) -> tensor<3x6xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<3x4xf32>, tensor<4x6xf32>) outs(%zh : tensor<3x6xf32>) -> tensor<3x6xf32>
  // silu(g) * u with silu written as g * sigmoid(g) ...
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<3x6xf32>, tensor<3x6xf32>) outs(%eh : tensor<3x6xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %den = arith.addf %ex, %one : f32
    %sig = arith.divf %one, %den : f32
    %silu = arith.mulf %a, %sig : f32
    %p = arith.mulf %silu, %b : f32
    linalg.yield %p : f32
  } -> tensor<3x6xf32>
  // ... and again as h / (1 + exp(-h)).
  %h2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<3x6xf32>) outs(%eh : tensor<3x6xf32>) {
  ^bb0(%a: f32, %out: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %den = arith.addf %one, %ex : f32
    %s = arith.divf %a, %den : f32
    linalg.yield %s : f32
  } -> tensor<3x6xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%h2, %wd : tensor<3x6xf32>, tensor<6x4xf32>) outs(%zo : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// KERNEL-LABEL: func.func @lora
// KERNEL-NOT: linalg.
// KERNEL: kernel.add
// KERNEL: return
func.func @lora(%x: tensor<3x4xf32>, %w: tensor<4x4xf32>, %a: tensor<4x2xf32>, %b: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %xw = linalg.matmul ins(%x, %w : tensor<3x4xf32>, tensor<4x4xf32>) outs(%z : tensor<3x4xf32>) -> tensor<3x4xf32>
  %er = tensor.empty() : tensor<3x2xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<3x2xf32>) -> tensor<3x2xf32>
  %xa = linalg.matmul ins(%x, %a : tensor<3x4xf32>, tensor<4x2xf32>) outs(%zr : tensor<3x2xf32>) -> tensor<3x2xf32>
  %y = linalg.matmul ins(%xa, %b : tensor<3x2xf32>, tensor<2x4xf32>) outs(%xw : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// Sums over the middle dim into a transposed result, maxima over dim 0.
// KERNEL-LABEL: func.func @reductions
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @reductions(%x: tensor<4x3x5xf32>) -> (tensor<5x4xf32>, tensor<3x5xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<5x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<5x4xf32>) -> tensor<5x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k, j)>, affine_map<(i, k, j) -> (j, i)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<4x3x5xf32>) outs(%init : tensor<5x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  } -> tensor<5x4xf32>
  %e2 = tensor.empty() : tensor<3x5xf32>
  %init2 = linalg.fill ins(%lowest : f32) outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %m = linalg.reduce ins(%x : tensor<4x3x5xf32>) outs(%init2 : tensor<3x5xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %mx = arith.maximumf %in, %acc : f32
      linalg.yield %mx : f32
    }
  return %s, %m : tensor<5x4xf32>, tensor<3x5xf32>
}

// Reductions from other inits: a sum into a tensor (a bias) adds it, a
// maximum from a constant fill (0.9) is max_scalar of the maximum (from 0,
// a relu of it), a minimum is the negated maximum of the negated values,
// and one from a constant fill (-0.9) min_scalar of that. The fills are
// inside the range of the values, so both bounds bite.
// KERNEL-LABEL: func.func @reduction_inits
// KERNEL-NOT: linalg.
// KERNEL: kernel.reduce_sum
// KERNEL: kernel.add
// KERNEL: kernel.reduce_max
// KERNEL: kernel.max_scalar {{.*}}, 0.89999997615814208
// KERNEL: kernel.mul_scalar {{.*}}, -1.000000e+00
// KERNEL: kernel.reduce_max
// KERNEL: kernel.mul_scalar {{.*}}, -1.000000e+00
// KERNEL: kernel.min_scalar {{.*}}, -0.89999997615814208
// KERNEL: return
func.func @reduction_inits(%x: tensor<4x3x5xf32>, %b: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %zero = arith.constant 0.9 : f32
  %half = arith.constant -0.9 : f32
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %s = linalg.reduce ins(%x : tensor<4x3x5xf32>) outs(%b : tensor<3x5xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %m = linalg.reduce ins(%x : tensor<4x3x5xf32>) outs(%zeros : tensor<3x5xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.maximumf %in, %acc : f32
      linalg.yield %a : f32
    }
  %infs = linalg.fill ins(%inf : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %n = linalg.reduce ins(%x : tensor<4x3x5xf32>) outs(%infs : tensor<3x5xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.minimumf %in, %acc : f32
      linalg.yield %a : f32
    }
  %halves = linalg.fill ins(%half : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %h = linalg.reduce ins(%x : tensor<4x3x5xf32>) outs(%halves : tensor<3x5xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.minnumf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %s, %m, %n, %h : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}

// Reductions over two dims (a mean over [H, W], a maximum over dims 0 and
// 2): one kernel reduction per dim, the innermost first.
// KERNEL-LABEL: func.func @multi_dim
// KERNEL-NOT: linalg.
// KERNEL: kernel.reduce_sum %{{.*}} dim 2
// KERNEL: kernel.reduce_sum %{{.*}} dim 1
// KERNEL: kernel.reduce_max %{{.*}} dim 2
// KERNEL: kernel.reduce_max %{{.*}} dim 0
// KERNEL: return
func.func @multi_dim(%x: tensor<4x3x5xf32>) -> (tensor<4xf32>, tensor<3xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, h, w) -> (i, h, w)>, affine_map<(i, h, w) -> (i)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x3x5xf32>) outs(%zeros : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%s : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c15 = arith.constant 15.0 : f32
    %d = arith.divf %in, %c15 : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<3xf32>
  %ninfs = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %m = linalg.reduce ins(%x : tensor<4x3x5xf32>) outs(%ninfs : tensor<3xf32>) dimensions = [0, 2]
    (%in: f32, %acc: f32) {
      %a = arith.maximumf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %mean, %m : tensor<4xf32>, tensor<3xf32>
}

// torch-mlir's relu, clamp and leaky relu: selects on comparisons of their
// own operands, imported as relu, max_scalar/min_scalar and
// relu(x) - a * relu(-x).
// KERNEL-LABEL: func.func @torch_activations
// KERNEL-NOT: linalg.
// KERNEL: kernel.relu
// KERNEL: kernel.max_scalar
// KERNEL: kernel.min_scalar
// KERNEL: return
func.func @torch_activations(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %e = tensor.empty() : tensor<3x5xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ugt, %a, %z : f32
    %r = arith.select %p, %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<3x5xf32>
  %clamp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %lo = arith.constant -0.5 : f32
    %hi = arith.constant 0.5 : f32
    %p = arith.cmpf ult, %a, %lo : f32
    %l = arith.select %p, %lo, %a : f32
    %q = arith.cmpf ugt, %l, %hi : f32
    %h = arith.select %q, %hi, %l : f32
    linalg.yield %h : f32
  } -> tensor<3x5xf32>
  %leaky = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %alpha = arith.constant 0.1 : f32
    %p = arith.cmpf ugt, %a, %z : f32
    %m = arith.mulf %a, %alpha : f32
    %r = arith.select %p, %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<3x5xf32>
  return %relu, %clamp, %leaky : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}

// Constants in every operand position, an outer difference, an operand read
// transposed and one read at a constant index.
// KERNEL-LABEL: func.func @elementwise
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @elementwise(%x: tensor<3x5xf32>, %t: tensor<5x3xf32>, %r: tensor<3x1xf32>, %c: tensor<5xf32>) -> tensor<3x5xf32> {
  %c3 = arith.constant 3.000000e+00 : f32
  %c2 = arith.constant 2.000000e+00 : f32
  %c4 = arith.constant 4.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t, %r, %c : tensor<3x5xf32>, tensor<5x3xf32>, tensor<3x1xf32>, tensor<5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %rr: f32, %cc: f32, %out: f32):
    %0 = arith.mulf %c3, %a : f32
    %1 = arith.subf %0, %b : f32
    %2 = arith.subf %c2, %1 : f32
    %3 = arith.divf %2, %c4 : f32
    %4 = arith.subf %rr, %cc : f32
    %5 = arith.mulf %3, %4 : f32
    %6 = arith.subf %5, %c2 : f32
    %7 = arith.maximumf %6, %zero : f32
    %8 = arith.addf %7, %5 : f32
    %9 = math.tanh %8 : f32
    linalg.yield %9 : f32
  } -> tensor<3x5xf32>
  return %o : tensor<3x5xf32>
}

// f16 elementwise ops round once, as the kernel ops do.
// KERNEL-LABEL: func.func @f16_bias_scale
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @f16_bias_scale(%x: tensor<3x5xf16>, %b: tensor<5xf16>, %s: tensor<3xf16>) -> tensor<3x5xf16> {
  %e = tensor.empty() : tensor<3x5xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %s : tensor<3x5xf16>, tensor<5xf16>, tensor<3xf16>) outs(%e : tensor<3x5xf16>) {
  ^bb0(%a: f16, %bb: f16, %ss: f16, %out: f16):
    %0 = arith.addf %a, %bb : f16
    %1 = arith.mulf %0, %ss : f16
    linalg.yield %1 : f16
  } -> tensor<3x5xf16>
  return %o : tensor<3x5xf16>
}

// f16 computed in f32 and rounded once per op, as kernel ops compute:
// silu, then gelu with the halving applied first.
// KERNEL-LABEL: func.func @f16_via_f32
// KERNEL-NOT: linalg.
// KERNEL: kernel.silu
// KERNEL-NEXT: kernel.gelu
// KERNEL-NEXT: return
func.func @f16_via_f32(%x: tensor<3x5xf16>) -> tensor<3x5xf16> {
  %e = tensor.empty() : tensor<3x5xf16>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x5xf16>) outs(%e : tensor<3x5xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f32
    %w = arith.extf %in : f16 to f32
    %n = arith.negf %w : f32
    %ex = math.exp %n : f32
    %den = arith.addf %one, %ex : f32
    %sig = arith.divf %one, %den : f32
    %r = arith.mulf %sig, %w : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<3x5xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<3x5xf16>) outs(%e : tensor<3x5xf16>) {
  ^bb0(%in: f16, %out: f16):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %rsqrt2 = arith.constant 0.707106769 : f32
    %w = arith.extf %in : f16 to f32
    %h = arith.mulf %half, %w : f32
    %a = arith.mulf %w, %rsqrt2 : f32
    %erf = math.erf %a : f32
    %cdf = arith.addf %one, %erf : f32
    %r = arith.mulf %h, %cdf : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<3x5xf16>
  return %g : tensor<3x5xf16>
}

// Softmax as StableHLO/IREE write it: the row max and sum drop the reduced
// dim and linalg.broadcast puts it back for the elementwise ops.
// KERNEL-LABEL: func.func @softmax_broadcast
// KERNEL-NOT: linalg.
// KERNEL: kernel.div
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @softmax_broadcast(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<3xf32>
  %e = tensor.empty() : tensor<3x5xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %max = linalg.reduce ins(%x : tensor<3x5xf32>) outs(%minit : tensor<3xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %bmax = linalg.broadcast ins(%max : tensor<3xf32>) outs(%e : tensor<3x5xf32>) dimensions = [1]
  %d = linalg.sub ins(%x, %bmax : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %exp = linalg.exp ins(%d : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.reduce ins(%exp : tensor<3x5xf32>) outs(%sinit : tensor<3xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %bsum = linalg.broadcast ins(%sum : tensor<3xf32>) outs(%e : tensor<3x5xf32>) dimensions = [1]
  %p = linalg.div ins(%exp, %bsum : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %p : tensor<3x5xf32>
}

// 1 / sqrt(x) written out, in f32 and in f16 computed in f32.
// KERNEL-LABEL: func.func @inv_sqrt
// KERNEL-NOT: linalg.
// KERNEL: kernel.rsqrt
// KERNEL-NEXT: kernel.rsqrt
// KERNEL-NEXT: return
func.func @inv_sqrt(%x: tensor<3x5xf32>, %y: tensor<3x5xf16>) -> (tensor<3x5xf32>, tensor<3x5xf16>) {
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sqrt %in : f32
    %q = arith.divf %one, %s : f32
    linalg.yield %q : f32
  } -> tensor<3x5xf32>
  %eh = tensor.empty() : tensor<3x5xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<3x5xf16>) outs(%eh : tensor<3x5xf16>) {
  ^bb0(%in: f16, %out: f16):
    %w = arith.extf %in : f16 to f32
    %s = math.sqrt %w : f32
    %q = arith.divf %one, %s : f32
    %t = arith.truncf %q : f32 to f16
    linalg.yield %t : f16
  } -> tensor<3x5xf16>
  return %r, %h : tensor<3x5xf32>, tensor<3x5xf16>
}

//===----------------------------------------------------------------------===//
// Expected output, in the order @main prints it: four significant digits,
// and only the form of values that cancellation makes tiny.
//===----------------------------------------------------------------------===//

// linear
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{2\.217[0-9]*}}, {{-0\.9672[0-9]*}}, {{-2\.135[0-9]*}}, {{-0\.1919[0-9]*}}, {{1\.125[0-9]*}}],
// CHECK-NEXT: {{\[}}{{2\.821[0-9]*}}, {{1\.290[0-9]*}}, {{-1\.839[0-9]*}}, {{-2\.331[0-9]*}}, {{-0\.02381[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.3638[0-9]*}}, {{2\.151[0-9]*}}, {{0\.9620[0-9]*}}, {{-2\.075[0-9]*}}, {{-2\.723[0-9]*}}]]
// accumulate (C += A^T B into the linear result)
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{3\.340[0-9]*}}, {{-0\.9752[0-9]*}}, {{-3\.270[0-9]*}}, {{-1\.904[0-9]*}}, {{-0\.3375[0-9]*}}],
// CHECK-NEXT: {{\[}}{{5\.008[0-9]*}}, {{2\.737[0-9]*}}, {{-1\.830[0-9]*}}, {{-3\.764[0-9]*}}, {{-2\.207[0-9]*}}],
// CHECK-NEXT: {{\[}}{{2\.556[0-9]*}}, {{4\.355[0-9]*}}, {{2\.111[0-9]*}}, {{-2\.535[0-9]*}}, {{-4\.571[0-9]*}}]]
// accumulate_half (A^T B + 0.5: the rows above less linear's, plus 0.5)
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{1\.622[0-9]*}}, {{0\.4920[0-9]*}}, {{-0\.6345[0-9]*}}, {{-1\.212[0-9]*}}, {{-0\.9634[0-9]*}}],
// CHECK-NEXT: {{\[}}{{2\.686[0-9]*}}, {{1\.947[0-9]*}}, {{0\.5094[0-9]*}}, {{-0\.9331[0-9]*}}, {{-1\.683[0-9]*}}],
// CHECK-NEXT: {{\[}}{{2\.693[0-9]*}}, {{2\.703[0-9]*}}, {{1\.648[0-9]*}}, {{0\.03915[0-9]*}}, {{-1\.347[0-9]*}}]]
// attention_probs (rows sum to 1)
// CHECK: sizes = {{\[}}6, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.2360[0-9]*}}, {{0\.06290[0-9]*}}, {{0\.06313[0-9]*}}, {{0\.2372[0-9]*}}, {{0\.4007[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.3587[0-9]*}}, {{0\.2714[0-9]*}}, {{0\.08621[0-9]*}}, {{0\.07211[0-9]*}}, {{0\.2114[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.1337[0-9]*}}, {{0\.4490[0-9]*}}, {{0\.2831[0-9]*}}, {{0\.07018[0-9]*}}, {{0\.06381[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.08527[0-9]*}}, {{0\.2529[0-9]*}}, {{0\.4170[0-9]*}}, {{0\.1716[0-9]*}}, {{0\.07306[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.07549[0-9]*}}, {{0\.06163[0-9]*}}, {{0\.2267[0-9]*}}, {{0\.4668[0-9]*}}, {{0\.1693[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.2343[0-9]*}}, {{0\.07288[0-9]*}}, {{0\.07431[0-9]*}}, {{0\.2408[0-9]*}}, {{0\.3775[0-9]*}}]]
// rms_norm
// CHECK: sizes = {{\[}}3, 8] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.1512[0-9]*}}, {{0\.7623[0-9]*}}, {{1\.030[0-9]*}}, {{0\.1975[0-9]*}}, {{-0\.3209[0-9]*}}, {{0\.3562[0-9]*}}, {{1\.078[0-9]*}}, {{0\.6178[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.9861[0-9]*}}, {{1\.290[0-9]*}}, {{0\.4976[0-9]*}}, {{-0\.04540[0-9]*}}, {{0\.5846[0-9]*}}, {{1\.317[0-9]*}}, {{0\.9070[0-9]*}}, {{0\.05145[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.5767[0-9]*}}, {{-0\.2448[0-9]*}}, {{-0\.8613[0-9]*}}, {{-0\.2249[0-9]*}}, {{0\.5827[0-9]*}}, {{0\.1890[0-9]*}}, {{-0\.7369[0-9]*}}, {{-0\.6214[0-9]*}}]]
// gated_mlp
// CHECK: sizes = {{\[}}3, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.2033[0-9]*}}, {{-0\.8722[0-9]*}}, {{-1\.119[0-9]*}}, {{-0\.8258[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.4699[0-9]*}}, {{0\.3223[0-9]*}}, {{0\.01895[0-9]*}}, {{-0\.2935[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.05219[0-9]*}}, {{-1\.317[0-9]*}}, {{-2\.050[0-9]*}}, {{-1\.792[0-9]*}}]]
// lora
// CHECK: sizes = {{\[}}3, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.2293[0-9]*}}, {{1\.933[0-9]*}}, {{2\.702[0-9]*}}, {{2\.166[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.3911[0-9]*}}, {{-1\.069[0-9]*}}, {{-1\.230[0-9]*}}, {{-0\.7974[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.3853[0-9]*}}, {{-2\.359[0-9]*}}, {{-3\.193[0-9]*}}, {{-2\.484[0-9]*}}]]
// reductions: sums
// CHECK: sizes = {{\[}}5, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-1\.317[0-9]*}}, {{1\.133[0-9]*}}, {{0\.03305[0-9]*}}, {{-1\.171[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-1\.305[0-9]*}}, {{0\.3254[0-9]*}}, {{0\.9366[0-9]*}}, {{-1\.386[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.6622[0-9]*}}, {{-0\.6400[0-9]*}}, {{1\.387[0-9]*}}, {{-0\.9324[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.3009[0-9]*}}, {{-1\.296[0-9]*}}, {{1\.167[0-9]*}}, {{-0\.02735[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.118[0-9]*}}, {{-1\.325[0-9]*}}, {{0\.3838[0-9]*}}, {{0\.8909[0-9]*}}]]
// reductions: maxima
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.7357[0-9]*}}, {{0\.9994[0-9]*}}, {{0\.7800[0-9]*}}, {{0\.7058[0-9]*}}, {{0\.9970[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.8103[0-9]*}}, {{0\.6695[0-9]*}}, {{0\.9919[0-9]*}}, {{0\.8349[0-9]*}}, {{0\.7997[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.9843[0-9]*}}, {{0\.8613[0-9]*}}, {{0\.7687[0-9]*}}, {{0\.9998[0-9]*}}, {{0\.8824[0-9]*}}]]
// reduction_inits: the sums plus the maxima above
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{1\.006[0-9]*}}, {{0\.5403[0-9]*}}, {{-0\.1872[0-9]*}}, {{-0\.3022[0-9]*}}, {{0\.4353[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.1347[0-9]*}}, {{-0\.3528[0-9]*}}, {{0\.3863[0-9]*}}, {{0\.9387[0-9]*}}, {{1\.562[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.3363[0-9]*}}, {{0\.9126[0-9]*}}, {{1\.494[0-9]*}}, {{2\.049[0-9]*}}, {{1\.748[0-9]*}}]]
// reduction_inits: the maxima, at least 0.9
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}0.9, {{0\.9994[0-9]*}}, 0.9, 0.9, {{0\.9970[0-9]*}}],
// CHECK-NEXT: {{\[}}0.9, 0.9, {{0\.9919[0-9]*}}, 0.9, 0.9],
// CHECK-NEXT: {{\[}}{{0\.9843[0-9]*}}, 0.9, 0.9, {{0\.9998[0-9]*}}, 0.9]]
// reduction_inits: the minima
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.9749[0-9]*}}, {{-0\.5942[0-9]*}}, {{-0\.9575[0-9]*}}, {{-0\.9836[0-9]*}}, {{-0\.6284[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.9419[0-9]*}}, {{-0\.9914[0-9]*}}, {{-0\.6665[0-9]*}}, {{-0\.9265[0-9]*}}, {{-0\.9478[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.7029[0-9]*}}, {{-0\.9066[0-9]*}}, {{-0\.9625[0-9]*}}, {{-0\.5533[0-9]*}}, {{-0\.8875[0-9]*}}]]
// reduction_inits: the minima, at most -0.9
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.9749[0-9]*}}, -0.9, {{-0\.9575[0-9]*}}, {{-0\.9836[0-9]*}}, -0.9],
// CHECK-NEXT: {{\[}}{{-0\.9419[0-9]*}}, {{-0\.9914[0-9]*}}, -0.9, {{-0\.9265[0-9]*}}, {{-0\.9478[0-9]*}}],
// CHECK-NEXT: {{\[}}-0.9, {{-0\.9066[0-9]*}}, {{-0\.9625[0-9]*}}, -0.9, -0.9]]
// multi_dim: the means over [3, 5], the maxima over dims 0 and 2 (each the
// largest of a row of the maxima above)
// CHECK: sizes = {{\[}}1, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.1243[0-9]*}}, {{-0\.1202[0-9]*}}, {{0\.2606[0-9]*}}, {{-0\.1751[0-9]*}}]]
// CHECK: sizes = {{\[}}1, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.9994[0-9]*}}, {{0\.9919[0-9]*}}, {{0\.9998[0-9]*}}]]
// elementwise
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-?0}}, {{0\.09079[0-9]*}}, {{-0\.4241[0-9]*}}, {{-0\.5641[0-9]*}}, {{0\.5511[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.01436[0-9]*}}, {{0\.08967[0-9]*}}, {{-?[0-9.]+e[-+][0-9]+}}, {{0\.3769[0-9]*}}, {{0\.7765[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.6107[0-9]*}}, {{-0\.6738[0-9]*}}, {{-0\.5795[0-9]*}}, {{-0\.2108[0-9]*}}, {{-0\.009568[0-9]*}}]]
// torch_activations: relu, clamp to [-0.5, 0.5] and leaky relu (0.1) of it
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-?0}}, {{0\.09079[0-9]*}}, 0, 0, {{0\.5511[0-9]*}}],
// CHECK-NEXT: {{\[}}0, {{0\.08967[0-9]*}}, {{[0-9.]+e-05}}, {{0\.3769[0-9]*}}, {{0\.7765[0-9]*}}],
// CHECK-NEXT: {{\[}}0, 0, 0, 0, 0]]
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-?0}}, {{0\.09079[0-9]*}}, {{-0\.4241[0-9]*}}, -0.5, 0.5],
// CHECK-NEXT: {{\[}}{{-0\.01436[0-9]*}}, {{0\.08967[0-9]*}}, {{[0-9.]+e-05}}, {{0\.3769[0-9]*}}, 0.5],
// CHECK-NEXT: {{\[}}-0.5, -0.5, -0.5, {{-0\.2108[0-9]*}}, {{-0\.009568[0-9]*}}]]
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-?0}}, {{0\.09079[0-9]*}}, {{-0\.04241[0-9]*}}, {{-0\.05641[0-9]*}}, {{0\.5511[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.001436[0-9]*}}, {{0\.08967[0-9]*}}, {{[0-9.]+e-05}}, {{0\.3769[0-9]*}}, {{0\.7765[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.06107[0-9]*}}, {{-0\.06738[0-9]*}}, {{-0\.05795[0-9]*}}, {{-0\.02108[0-9]*}}, {{-0\.0009568[0-9]*}}]]
// f16_bias_scale
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.8266[0-9]*}}, {{0\.9731[0-9]*}}, {{0\.6489[0-9]*}}, {{0\.01154[0-9]*}}, {{-0\.6313[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.4277[0-9]*}}, {{-0\.2922[0-9]*}}, {{-0\.01576[0-9]*}}, {{0\.2685[0-9]*}}, {{0\.4230[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-1\.298[0-9]*}}, {{-0\.1146[0-9]*}}, {{1\.125[0-9]*}}, {{1\.821[0-9]*}}, {{1\.637[0-9]*}}]]
// f16_via_f32
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-?0}}, {{0\.2854[0-9]*}}, {{0\.5507[0-9]*}}, {{0\.4291[0-9]*}}, {{0\.09674[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.5429[0-9]*}}, {{0\.4499[0-9]*}}, {{0\.1169[0-9]*}}, {{-0\.06408[0-9]*}}, {{-0\.1026[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.1380[0-9]*}}, {{-0\.05783[0-9]*}}, {{-0\.1017[0-9]*}}, {{-0\.1057[0-9]*}}, {{-0\.09161[0-9]*}}]]
// softmax_broadcast
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.1076[0-9]*}}, {{0\.2066[0-9]*}}, {{0\.2894[0-9]*}}, {{0\.2513[0-9]*}}, {{0\.1449[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.3510[0-9]*}}, {{0\.3154[0-9]*}}, {{0\.1859[0-9]*}}, {{0\.09276[0-9]*}}, {{0\.05484[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.4176[0-9]*}}, {{0\.2085[0-9]*}}, {{0\.1205[0-9]*}}, {{0\.1052[0-9]*}}, {{0\.1479[0-9]*}}]]
// inv_sqrt: f32
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{3\.047[0-9]*}}, {{2\.199[0-9]*}}, {{1\.858[0-9]*}}, {{1\.994[0-9]*}}, {{2\.626[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.687[0-9]*}}, {{1\.780[0-9]*}}, {{2\.319[0-9]*}}, {{3\.283[0-9]*}}, {{4\.270[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.547[0-9]*}}, {{2\.189[0-9]*}}, {{2\.879[0-9]*}}, {{3\.082[0-9]*}}, {{2\.599[0-9]*}}]]
// inv_sqrt: f16 (computed in f32)
// CHECK: sizes = {{\[}}3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{3\.046[0-9]*}}, {{2\.199[0-9]*}}, {{1\.859[0-9]*}}, {{1\.994[0-9]*}}, {{2\.626[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.687[0-9]*}}, {{1\.780[0-9]*}}, {{2\.318[0-9]*}}, {{3\.283[0-9]*}}, {{4\.269[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.546[0-9]*}}, {{2\.189[0-9]*}}, {{2\.878[0-9]*}}, {{3\.082[0-9]*}}, {{2\.599[0-9]*}}]]

//===----------------------------------------------------------------------===//
// Inputs and printing (linalg.index and casts: nothing here converts)
//===----------------------------------------------------------------------===//

// x[i, j] = sin(1.37 i + 0.71 j + phase).
func.func @wave(%rows: index, %cols: index, %phase: f32) -> tensor<?x?xf32> {
  %empty = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%empty : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %ci = arith.constant 1.37 : f32
    %cj = arith.constant 0.71 : f32
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %ji = arith.index_cast %j : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %fj = arith.sitofp %ji : i32 to f32
    %ti = arith.mulf %fi, %ci : f32
    %tj = arith.mulf %fj, %cj : f32
    %t = arith.addf %ti, %tj : f32
    %tp = arith.addf %t, %phase : f32
    %v = math.sin %tp : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}

// batch_weight
// CHECK: sizes = {{\[}}6, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.7381[0-9]*}}, {{-1\.760[0-9]*}}, {{-1\.931[0-9]*}}, {{-1\.169[0-9]*}}, {{0\.1578[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.7240[0-9]*}}, {{0\.00393[0-9]*}}, {{-0\.7180[0-9]*}}, {{-1\.093[0-9]*}}, {{-0\.9397[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.026[0-9]*}}, {{1\.761[0-9]*}}, {{1\.645[0-9]*}}, {{0\.7333[0-9]*}}, {{-0\.5327[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.3143[0-9]*}}, {{0\.6988[0-9]*}}, {{1\.374[0-9]*}}, {{1\.385[0-9]*}}, {{0\.7272[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-1\.152[0-9]*}}, {{-1\.482[0-9]*}}, {{-1\.096[0-9]*}}, {{-0\.1806[0-9]*}}, {{0\.8228[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.1453[0-9]*}}, {{-1\.290[0-9]*}}, {{-1\.811[0-9]*}}, {{-1\.457[0-9]*}}, {{-0\.3990[0-9]*}}]]

// abs_diff
// CHECK: sizes = {{\[}}2, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{1\.598[0-9]*}}, {{1\.990[0-9]*}}, {{1\.420[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.488[0-9]*}}, {{0\.2633[0-9]*}}, {{1\.089[0-9]*}}]]

// max_minus_min
// CHECK: sizes = {{\[}}2, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{1\.598[0-9]*}}, {{1\.990[0-9]*}}, {{1\.420[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.488[0-9]*}}, {{0\.2633[0-9]*}}, {{1\.089[0-9]*}}]]
// CHECK: sizes = {{\[}}2, 1] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{1\.990[0-9]*}}],
// CHECK-NEXT: {{\[}}1.5]]

// KERNEL-LABEL: func.func @abs_diff
// KERNEL-NOT: linalg.
// KERNEL: kernel.neg
// KERNEL: kernel.max
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @abs_diff(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %m = math.absf %d : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// torch.maximum(x, y) - torch.where(x < y, x, y) is |x - y|, abs_diff's
// numbers; and the row maxima of that, folded into a running maximum that
// starts from a tensor.
// KERNEL-LABEL: func.func @max_minus_min
// KERNEL-NOT: linalg.
// KERNEL: %[[MAX:.*]] = kernel.max %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>
// KERNEL: %[[MIN:.*]] = kernel.min %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>
// KERNEL: %[[D:.*]] = kernel.sub %[[MAX]], %[[MIN]]
// KERNEL: %[[R:.*]] = kernel.reduce_max %[[D]] dim 1
// KERNEL: kernel.max %{{.*}}, %{{.*}} : tensor<2x1xf32>, tensor<2x1xf32>
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @max_minus_min(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %running: tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %hi = arith.maximumf %a, %b : f32
    %lt = arith.cmpf olt, %a, %b : f32
    %lo = arith.select %lt, %a, %b : f32
    %d = arith.subf %hi, %lo : f32
    linalg.yield %d : f32
  } -> tensor<2x3xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%r : tensor<2x3xf32>) outs(%running : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %n = arith.maximumf %a, %acc : f32
    linalg.yield %n : f32
  } -> tensor<2xf32>
  return %r, %m : tensor<2x3xf32>, tensor<2xf32>
}

// KERNEL-LABEL: func.func @batch_weight
// KERNEL-NOT: linalg.
// KERNEL: kernel.matmul %{{.*}}, %{{.*}} : tensor<6x4xf32>, tensor<4x5xf32>
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @batch_weight(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %eb = tensor.empty() : tensor<2x4x5xf32>
  %wb = linalg.broadcast ins(%w : tensor<4x5xf32>) outs(%eb : tensor<2x4x5xf32>) dimensions = [0]
  %e = tensor.empty() : tensor<2x3x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = linalg.batch_matmul ins(%x, %wb : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %o : tensor<2x3x5xf32>
}

func.func @in2(%rows: index, %cols: index, %phase: f32) -> tensor<?x?xf32> {
  %x = call @wave(%rows, %cols, %phase) : (index, index, f32) -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c12 = arith.constant 12 : index
  %p0 = arith.constant 0.0 : f32
  %p1 = arith.constant 1.0 : f32
  %p2 = arith.constant 2.0 : f32
  %p3 = arith.constant 3.0 : f32
  %p4 = arith.constant 4.0 : f32

  // linear
  %x0 = call @in2(%c3, %c4, %p0) : (index, index, f32) -> tensor<?x?xf32>
  %x34 = tensor.cast %x0 : tensor<?x?xf32> to tensor<3x4xf32>
  %w0 = call @in2(%c5, %c4, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %w54 = tensor.cast %w0 : tensor<?x?xf32> to tensor<5x4xf32>
  %b0 = call @in2(%c1, %c5, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %b15 = tensor.cast %b0 : tensor<?x?xf32> to tensor<1x5xf32>
  %b5 = tensor.collapse_shape %b15 [[0, 1]] : tensor<1x5xf32> into tensor<5xf32>
  %lin = call @linear(%x34, %w54, %b5) : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %lin0 = tensor.cast %lin : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%lin0) : (tensor<?x?xf32>) -> ()

  // accumulate
  %a0 = call @in2(%c4, %c3, %p3) : (index, index, f32) -> tensor<?x?xf32>
  %a43 = tensor.cast %a0 : tensor<?x?xf32> to tensor<4x3xf32>
  %bb0 = call @in2(%c4, %c5, %p4) : (index, index, f32) -> tensor<?x?xf32>
  %bb45 = tensor.cast %bb0 : tensor<?x?xf32> to tensor<4x5xf32>
  %acc = call @accumulate(%a43, %bb45, %lin) : (tensor<4x3xf32>, tensor<4x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %acc0 = tensor.cast %acc : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%acc0) : (tensor<?x?xf32>) -> ()
  %half = call @accumulate_half(%a43, %bb45) : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %half0 = tensor.cast %half : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%half0) : (tensor<?x?xf32>) -> ()

  // attention_probs
  %q0 = call @in2(%c6, %c4, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %q64 = tensor.cast %q0 : tensor<?x?xf32> to tensor<6x4xf32>
  %q = tensor.expand_shape %q64 [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  %k0 = call @in2(%c10, %c4, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %k104 = tensor.cast %k0 : tensor<?x?xf32> to tensor<10x4xf32>
  %k = tensor.expand_shape %k104 [[0, 1], [2]] output_shape [2, 5, 4] : tensor<10x4xf32> into tensor<2x5x4xf32>
  %att = call @attention_probs(%q, %k) : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %att2 = tensor.collapse_shape %att [[0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
  %att0 = tensor.cast %att2 : tensor<6x5xf32> to tensor<?x?xf32>
  call @print(%att0) : (tensor<?x?xf32>) -> ()

  // rms_norm
  %r0 = call @in2(%c3, %c8, %p3) : (index, index, f32) -> tensor<?x?xf32>
  %r38 = tensor.cast %r0 : tensor<?x?xf32> to tensor<3x8xf32>
  %rw0 = call @in2(%c1, %c8, %p4) : (index, index, f32) -> tensor<?x?xf32>
  %rw18 = tensor.cast %rw0 : tensor<?x?xf32> to tensor<1x8xf32>
  %rw = tensor.collapse_shape %rw18 [[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
  %rms = call @rms_norm(%r38, %rw) : (tensor<3x8xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  %rms0 = tensor.cast %rms : tensor<3x8xf32> to tensor<?x?xf32>
  call @print(%rms0) : (tensor<?x?xf32>) -> ()

  // gated_mlp
  %wg0 = call @in2(%c4, %c6, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %wg = tensor.cast %wg0 : tensor<?x?xf32> to tensor<4x6xf32>
  %wu0 = call @in2(%c4, %c6, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %wu = tensor.cast %wu0 : tensor<?x?xf32> to tensor<4x6xf32>
  %wd0 = call @in2(%c6, %c4, %p3) : (index, index, f32) -> tensor<?x?xf32>
  %wd = tensor.cast %wd0 : tensor<?x?xf32> to tensor<6x4xf32>
  %mlp = call @gated_mlp(%x34, %wg, %wu, %wd) : (tensor<3x4xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<3x4xf32>
  %mlp0 = tensor.cast %mlp : tensor<3x4xf32> to tensor<?x?xf32>
  call @print(%mlp0) : (tensor<?x?xf32>) -> ()

  // lora
  %lw0 = call @in2(%c4, %c4, %p4) : (index, index, f32) -> tensor<?x?xf32>
  %lw = tensor.cast %lw0 : tensor<?x?xf32> to tensor<4x4xf32>
  %la0 = call @in2(%c4, %c2, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %la = tensor.cast %la0 : tensor<?x?xf32> to tensor<4x2xf32>
  %lb0 = call @in2(%c2, %c4, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %lb = tensor.cast %lb0 : tensor<?x?xf32> to tensor<2x4xf32>
  %lora = call @lora(%x34, %lw, %la, %lb) : (tensor<3x4xf32>, tensor<4x4xf32>, tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %lora0 = tensor.cast %lora : tensor<3x4xf32> to tensor<?x?xf32>
  call @print(%lora0) : (tensor<?x?xf32>) -> ()

  // reductions
  %d0 = call @in2(%c12, %c5, %p3) : (index, index, f32) -> tensor<?x?xf32>
  %d125 = tensor.cast %d0 : tensor<?x?xf32> to tensor<12x5xf32>
  %d = tensor.expand_shape %d125 [[0, 1], [2]] output_shape [4, 3, 5] : tensor<12x5xf32> into tensor<4x3x5xf32>
  %sum, %max = call @reductions(%d) : (tensor<4x3x5xf32>) -> (tensor<5x4xf32>, tensor<3x5xf32>)
  %sum0 = tensor.cast %sum : tensor<5x4xf32> to tensor<?x?xf32>
  call @print(%sum0) : (tensor<?x?xf32>) -> ()
  %max0 = tensor.cast %max : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%max0) : (tensor<?x?xf32>) -> ()
  %ri:4 = call @reduction_inits(%d, %max) : (tensor<4x3x5xf32>, tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>)
  %ri0 = tensor.cast %ri#0 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%ri0) : (tensor<?x?xf32>) -> ()
  %ri1 = tensor.cast %ri#1 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%ri1) : (tensor<?x?xf32>) -> ()
  %ri2 = tensor.cast %ri#2 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%ri2) : (tensor<?x?xf32>) -> ()
  %ri3 = tensor.cast %ri#3 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%ri3) : (tensor<?x?xf32>) -> ()
  %md:2 = call @multi_dim(%d) : (tensor<4x3x5xf32>) -> (tensor<4xf32>, tensor<3xf32>)
  %md0 = tensor.expand_shape %md#0 [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  %md0d = tensor.cast %md0 : tensor<1x4xf32> to tensor<?x?xf32>
  call @print(%md0d) : (tensor<?x?xf32>) -> ()
  %md1 = tensor.expand_shape %md#1 [[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
  %md1d = tensor.cast %md1 : tensor<1x3xf32> to tensor<?x?xf32>
  call @print(%md1d) : (tensor<?x?xf32>) -> ()

  // elementwise
  %ex0 = call @in2(%c3, %c5, %p0) : (index, index, f32) -> tensor<?x?xf32>
  %ex = tensor.cast %ex0 : tensor<?x?xf32> to tensor<3x5xf32>
  %et0 = call @in2(%c5, %c3, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %et = tensor.cast %et0 : tensor<?x?xf32> to tensor<5x3xf32>
  %er0 = call @in2(%c3, %c1, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %er = tensor.cast %er0 : tensor<?x?xf32> to tensor<3x1xf32>
  %ew = call @elementwise(%ex, %et, %er, %b5) : (tensor<3x5xf32>, tensor<5x3xf32>, tensor<3x1xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %ew0 = tensor.cast %ew : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%ew0) : (tensor<?x?xf32>) -> ()
  %act:3 = call @torch_activations(%ew) : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>)
  %act0 = tensor.cast %act#0 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%act0) : (tensor<?x?xf32>) -> ()
  %act1 = tensor.cast %act#1 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%act1) : (tensor<?x?xf32>) -> ()
  %act2 = tensor.cast %act#2 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%act2) : (tensor<?x?xf32>) -> ()

  // f16_bias_scale
  %hxe = tensor.empty() : tensor<3x5xf16>
  %hx = linalg.map { arith.truncf } ins(%ex : tensor<3x5xf32>) outs(%hxe : tensor<3x5xf16>)
  %hbe = tensor.empty() : tensor<5xf16>
  %hb = linalg.map { arith.truncf } ins(%b5 : tensor<5xf32>) outs(%hbe : tensor<5xf16>)
  %er3 = tensor.collapse_shape %er [[0, 1]] : tensor<3x1xf32> into tensor<3xf32>
  %hse = tensor.empty() : tensor<3xf16>
  %hs = linalg.map { arith.truncf } ins(%er3 : tensor<3xf32>) outs(%hse : tensor<3xf16>)
  %hy = call @f16_bias_scale(%hx, %hb, %hs) : (tensor<3x5xf16>, tensor<5xf16>, tensor<3xf16>) -> tensor<3x5xf16>
  %hye = tensor.empty() : tensor<3x5xf32>
  %hy32 = linalg.map { arith.extf } ins(%hy : tensor<3x5xf16>) outs(%hye : tensor<3x5xf32>)
  %hy0 = tensor.cast %hy32 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%hy0) : (tensor<?x?xf32>) -> ()

  // f16_via_f32
  %hx2 = call @f16_via_f32(%hx) : (tensor<3x5xf16>) -> tensor<3x5xf16>
  %hx2e = tensor.empty() : tensor<3x5xf32>
  %hx232 = linalg.map { arith.extf } ins(%hx2 : tensor<3x5xf16>) outs(%hx2e : tensor<3x5xf32>)
  %hx20 = tensor.cast %hx232 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%hx20) : (tensor<?x?xf32>) -> ()

  // softmax_broadcast
  %sb = call @softmax_broadcast(%ex) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %sb0 = tensor.cast %sb : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%sb0) : (tensor<?x?xf32>) -> ()

  // inv_sqrt (of the positive softmax probabilities)
  %sbhe = tensor.empty() : tensor<3x5xf16>
  %sbh = linalg.map { arith.truncf } ins(%sb : tensor<3x5xf32>) outs(%sbhe : tensor<3x5xf16>)
  %is, %ish = call @inv_sqrt(%sb, %sbh) : (tensor<3x5xf32>, tensor<3x5xf16>) -> (tensor<3x5xf32>, tensor<3x5xf16>)
  %is0 = tensor.cast %is : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%is0) : (tensor<?x?xf32>) -> ()
  %ishe = tensor.empty() : tensor<3x5xf32>
  %ish32 = linalg.map { arith.extf } ins(%ish : tensor<3x5xf16>) outs(%ishe : tensor<3x5xf32>)
  %ish0 = tensor.cast %ish32 : tensor<3x5xf32> to tensor<?x?xf32>
  call @print(%ish0) : (tensor<?x?xf32>) -> ()

  // batch_weight (torch.matmul of a batch by a broadcast weight)
  %bx0 = call @in2(%c6, %c4, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %bx64 = tensor.cast %bx0 : tensor<?x?xf32> to tensor<6x4xf32>
  %bx = tensor.expand_shape %bx64 [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  %bw0 = call @in2(%c4, %c5, %p3) : (index, index, f32) -> tensor<?x?xf32>
  %bw = tensor.cast %bw0 : tensor<?x?xf32> to tensor<4x5xf32>
  %bo = call @batch_weight(%bx, %bw) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %bo65 = tensor.collapse_shape %bo [[0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
  %bo0 = tensor.cast %bo65 : tensor<6x5xf32> to tensor<?x?xf32>
  call @print(%bo0) : (tensor<?x?xf32>) -> ()

  // abs_diff (torch.abs(x - y))
  %ax0 = call @in2(%c2, %c3, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %ax = tensor.cast %ax0 : tensor<?x?xf32> to tensor<2x3xf32>
  %ay0 = call @in2(%c2, %c3, %p4) : (index, index, f32) -> tensor<?x?xf32>
  %ay = tensor.cast %ay0 : tensor<?x?xf32> to tensor<2x3xf32>
  %ad = call @abs_diff(%ax, %ay) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %ad0 = tensor.cast %ad : tensor<2x3xf32> to tensor<?x?xf32>
  call @print(%ad0) : (tensor<?x?xf32>) -> ()

  // max_minus_min: |x - y| again, then max(running, its row maxima) with
  // running = [1.5, 1.5]: row 0 keeps its maximum 1.990, row 1 (1.488) the
  // running 1.5.
  %run0 = arith.constant dense<1.5> : tensor<2xf32>
  %mm:2 = call @max_minus_min(%ax, %ay, %run0) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
  %mm0 = tensor.cast %mm#0 : tensor<2x3xf32> to tensor<?x?xf32>
  call @print(%mm0) : (tensor<?x?xf32>) -> ()
  %mr = tensor.expand_shape %mm#1 [[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
  %mr0 = tensor.cast %mr : tensor<2x1xf32> to tensor<?x?xf32>
  call @print(%mr0) : (tensor<?x?xf32>) -> ()

  // block_3d
  %tx0 = call @in2(%c6, %c4, %p4) : (index, index, f32) -> tensor<?x?xf32>
  %tx64 = tensor.cast %tx0 : tensor<?x?xf32> to tensor<6x4xf32>
  %tx = tensor.expand_shape %tx64 [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  %tg0 = call @in2(%c1, %c4, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %tg14 = tensor.cast %tg0 : tensor<?x?xf32> to tensor<1x4xf32>
  %tg = tensor.collapse_shape %tg14 [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
  %to = call @block_3d(%tx, %tg, %wg, %wu, %wd) : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<2x3x4xf32>
  %to64 = tensor.collapse_shape %to [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %to0 = tensor.cast %to64 : tensor<6x4xf32> to tensor<?x?xf32>
  call @print(%to0) : (tensor<?x?xf32>) -> ()

  // concat_exp
  %cc = call @concat_exp(%ax, %ex) : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x8xf32>
  %cc0 = tensor.cast %cc : tensor<2x8xf32> to tensor<?x?xf32>
  call @print(%cc0) : (tensor<?x?xf32>) -> ()

  // product_transposed
  %tw0 = call @in2(%c5, %c2, %p4) : (index, index, f32) -> tensor<?x?xf32>
  %tw = tensor.cast %tw0 : tensor<?x?xf32> to tensor<5x2xf32>
  %pt = call @product_transposed(%d, %tw) : (tensor<4x3x5xf32>, tensor<5x2xf32>) -> tensor<4x2x3xf32>
  %pt2 = tensor.collapse_shape %pt [[0, 1], [2]] : tensor<4x2x3xf32> into tensor<8x3xf32>
  %pt0 = tensor.cast %pt2 : tensor<8x3xf32> to tensor<?x?xf32>
  call @print(%pt0) : (tensor<?x?xf32>) -> ()
  return
}

// block_3d
// CHECK: sizes = {{\[}}6, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.6617[0-9]*}}, {{-0\.8705[0-9]*}}, {{-1\.982[0-9]*}}, {{-2\.135[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-1\.024[0-9]*}}, {{-0\.2614[0-9]*}}, {{0\.6277[0-9]*}}, {{1\.213[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.382[0-9]*}}, {{0\.9293[0-9]*}}, {{0\.02710[0-9]*}}, {{-0\.8882[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.4693[0-9]*}}, {{-0\.2420[0-9]*}}, {{-0\.8365[0-9]*}}, {{-1\.026[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.661[0-9]*}}, {{0\.6773[0-9]*}}, {{-0\.6341[0-9]*}}, {{-1\.639[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.7390[0-9]*}}, {{-1\.621[0-9]*}}, {{-1\.720[0-9]*}}, {{-0\.9877[0-9]*}}]]

// An RMSNorm, a gated MLP and a residual add on [batch, seq, hidden], the
// linear layers on rows collapsed and expanded back: the import computes it
// all on the rows.
// KERNEL-LABEL: func.func @block_3d
// KERNEL-NOT: linalg.
// KERNEL: tensor.collapse_shape
// KERNEL-NOT: tensor.
// KERNEL: tensor.expand_shape
// KERNEL-NEXT: return
#id3b = affine_map<(b, i, j) -> (b, i, j)>
#red3b = affine_map<(b, i, j) -> (b, i)>
#gain3b = affine_map<(b, i, j) -> (j)>
func.func @block_3d(%x: tensor<2x3x4xf32>, %gain: tensor<4xf32>, %w1: tensor<4x6xf32>, %w2: tensor<4x6xf32>, %w3: tensor<6x4xf32>) -> tensor<2x3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x3xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x3xf32>) -> tensor<2x3xf32>
  %ss = linalg.generic {indexing_maps = [#id3b, #red3b], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x3x4xf32>) outs(%zs : tensor<2x3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %e0 = tensor.empty() : tensor<2x3x4xf32>
  %n = linalg.generic {indexing_maps = [#id3b, #red3b, #gain3b, #id3b], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %ss, %gain : tensor<2x3x4xf32>, tensor<2x3xf32>, tensor<4xf32>) outs(%e0 : tensor<2x3x4xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %c4 = arith.constant 4.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %m = arith.divf %s, %c4 : f32
    %me = arith.addf %m, %eps : f32
    %rs = math.rsqrt %me : f32
    %y = arith.mulf %a, %rs : f32
    %yg = arith.mulf %y, %g : f32
    linalg.yield %yg : f32
  } -> tensor<2x3x4xf32>
  %nf = tensor.collapse_shape %n [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e1 = tensor.empty() : tensor<6x6xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x6xf32>) -> tensor<6x6xf32>
  %g1 = linalg.matmul ins(%nf, %w1 : tensor<6x4xf32>, tensor<4x6xf32>) outs(%z1 : tensor<6x6xf32>) -> tensor<6x6xf32>
  %g13 = tensor.expand_shape %g1 [[0, 1], [2]] output_shape [2, 3, 6] : tensor<6x6xf32> into tensor<2x3x6xf32>
  %nf2 = tensor.collapse_shape %n [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %u1 = linalg.matmul ins(%nf2, %w2 : tensor<6x4xf32>, tensor<4x6xf32>) outs(%z1 : tensor<6x6xf32>) -> tensor<6x6xf32>
  %u13 = tensor.expand_shape %u1 [[0, 1], [2]] output_shape [2, 3, 6] : tensor<6x6xf32> into tensor<2x3x6xf32>
  %e2 = tensor.empty() : tensor<2x3x6xf32>
  %h = linalg.generic {indexing_maps = [#id3b, #id3b, #id3b], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g13, %u13 : tensor<2x3x6xf32>, tensor<2x3x6xf32>) outs(%e2 : tensor<2x3x6xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %a : f32
    %ex = math.exp %neg : f32
    %den = arith.addf %ex, %one : f32
    %sig = arith.divf %one, %den : f32
    %silu = arith.mulf %a, %sig : f32
    %r = arith.mulf %silu, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x3x6xf32>
  %hf = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x3x6xf32> into tensor<6x6xf32>
  %e3 = tensor.empty() : tensor<6x4xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<6x4xf32>) -> tensor<6x4xf32>
  %d = linalg.matmul ins(%hf, %w3 : tensor<6x6xf32>, tensor<6x4xf32>) outs(%z3 : tensor<6x4xf32>) -> tensor<6x4xf32>
  %d3 = tensor.expand_shape %d [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  %o = linalg.add ins(%x, %d3 : tensor<2x3x4xf32>, tensor<2x3x4xf32>) outs(%e0 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// concat_exp
// CHECK: sizes = {{\[}}2, 8] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{2\.319[0-9]*}}, {{2\.692[0-9]*}}, {{1\.935[0-9]*}}, 1, {{1\.919[0-9]*}}, {{2\.687[0-9]*}}, {{2\.334[0-9]*}}, {{1\.345[0-9]*}}],
// CHECK-NEXT: {{\[}}{{2\.008[0-9]*}}, {{1\.063[0-9]*}}, {{0\.5466[0-9]*}}, {{2\.664[0-9]*}}, {{2\.394[0-9]*}}, {{1\.411[0-9]*}}, {{0\.7041[0-9]*}}, {{0\.4162[0-9]*}}]]

// KERNEL-LABEL: func.func @concat_exp
// KERNEL-NOT: linalg.
// KERNEL: kernel.concat %{{.*}}, %{{.*}} dim 1 : tensor<2x3xf32>, tensor<2x5xf32>
// KERNEL: kernel.exp
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @concat_exp(%x: tensor<2x3xf32>, %y: tensor<3x5xf32>) -> tensor<2x8xf32> {
  %top = tensor.extract_slice %y[0, 0] [2, 5] [1, 1] : tensor<3x5xf32> to tensor<2x5xf32>
  %c = tensor.concat dim(1) %x, %top : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.exp ins(%c : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// product_transposed
// CHECK: sizes = {{\[}}8, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.9637[0-9]*}}, {{1\.406[0-9]*}}, {{1\.524[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-1\.135[0-9]*}}, {{0\.2632[0-9]*}}, {{1\.240[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-0\.7983[0-9]*}}, {{-1\.843[0-9]*}}, {{0\.06305[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.2316[0-9]*}}, {{-1\.148[0-9]*}}, {{-0\.6896[0-9]*}}],
// CHECK-NEXT: {{\[}}{{1\.868[0-9]*}}, {{0\.6822[0-9]*}}, {{-1\.596[0-9]*}}],
// CHECK-NEXT: {{\[}}{{0\.8731[0-9]*}}, {{1\.037[0-9]*}}, {{-0\.4591[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-1\.319[0-9]*}}, {{1\.070[0-9]*}}, {{1\.745[0-9]*}}],
// CHECK-NEXT: {{\[}}{{-1\.221[0-9]*}}, {{-0\.02797[0-9]*}}, {{1\.209[0-9]*}}]]

// A linear layer on a batch of sequences whose product is written
// transposed, [b, n, m]: one matmul of the flattened rows, then a transpose.
// KERNEL-LABEL: func.func @product_transposed
// KERNEL-NOT: linalg.
// KERNEL: kernel.matmul
// KERNEL: kernel.transpose %{{.*}} [0, 2, 1] : tensor<4x3x2xf32>
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @product_transposed(%a: tensor<4x3x5xf32>, %w: tensor<5x2xf32>) -> tensor<4x2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, n, m)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<4x3x5xf32>, tensor<5x2xf32>) outs(%f : tensor<4x2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x2x3xf32>
  return %c : tensor<4x2x3xf32>
}
